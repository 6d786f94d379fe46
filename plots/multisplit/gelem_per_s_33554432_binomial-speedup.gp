# Made by `bench plot` from results/h200/multisplit.csv; edit freely, then run
# `gnuplot gelem_per_s_33554432_binomial-speedup.gp` here to redraw the PNG and SVG. The .dat file holds a block per
# backend (index 0, 1, ...): the bins value, its x coordinate, the value, its 95%
# interval.
reset
set title 'multisplit: n=33554432 dtype=u32 distribution=binomial values=none bucket=range' noenhanced
set xlabel 'bins' noenhanced
set ylabel 'speedup over multisplit/cub-sort (from gelem_per_s)' noenhanced
set logscale x 2
set logscale y
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2
set grid
set key below noenhanced
set bars small
set terminal pngcairo size 960,600
set output 'gelem_per_s_33554432_binomial-speedup.png'
plot 'gelem_per_s_33554432_binomial-speedup.dat' index 0 using 2:3:4:5 with yerrorlines lw 1.5 title 'multisplit/bpw', \
     'gelem_per_s_33554432_binomial-speedup.dat' index 1 using 2:3:4:5 with yerrorlines lw 1.5 title 'multisplit/large', \
     'gelem_per_s_33554432_binomial-speedup.dat' index 2 using 2:3:4:5 with yerrorlines lw 1.5 title 'multisplit/cpu', \
     'gelem_per_s_33554432_binomial-speedup.dat' index 3 using 2:3:4:5 with yerrorlines lw 1.5 title 'multisplit/auto'
set terminal svg size 960,600 dynamic
set output 'gelem_per_s_33554432_binomial-speedup.svg'
replot
unset output
