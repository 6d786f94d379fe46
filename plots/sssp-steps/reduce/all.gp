# Redraws every figure here: gnuplot all.gp
load 'gelem_per_s.gp'
