# Made by `bench plot` from results/h200/multisplit.csv; edit freely, then run
# `gnuplot gelem_per_s_268435456_uniform.gp` here to redraw the PNG and SVG. The .dat file holds a block per
# backend (index 0, 1, ...): the bins value, its x coordinate, the value, its 95%
# interval.
reset
set title 'multisplit: n=268435456 dtype=u32 distribution=uniform values=none bucket=range' noenhanced
set xlabel 'bins' noenhanced
set ylabel 'Gelem/s' noenhanced
set logscale x 2
set logscale y
set grid
set key below noenhanced
set bars small
set terminal pngcairo size 960,600
set output 'gelem_per_s_268435456_uniform.png'
plot 'gelem_per_s_268435456_uniform.dat' index 0 using 2:3:4:5 with yerrorlines lw 1.5 title 'multisplit/bpw', \
     'gelem_per_s_268435456_uniform.dat' index 1 using 2:3:4:5 with yerrorlines lw 1.5 title 'multisplit/large', \
     'gelem_per_s_268435456_uniform.dat' index 2 using 2:3:4:5 with yerrorlines lw 1.5 title 'multisplit/cpu', \
     'gelem_per_s_268435456_uniform.dat' index 3 using 2:3:4:5 with yerrorlines lw 1.5 title 'multisplit/auto', \
     'gelem_per_s_268435456_uniform.dat' index 4 using 2:3:4:5 with yerrorlines lw 1.5 title 'multisplit/cub-sort'
set terminal svg size 960,600 dynamic
set output 'gelem_per_s_268435456_uniform.svg'
replot
unset output
