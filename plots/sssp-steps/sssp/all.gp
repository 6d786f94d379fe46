# Redraws every figure here: gnuplot all.gp
load 'gelem_per_s_random_16384.gp'
load 'gelem_per_s_grid_65536.gp'
load 'gelem_per_s_rmat_65536.gp'
