# Made by `bench plot` from results/h200/reduction.csv; edit freely, then run
# `gnuplot gelem_per_s_f32_uniform_argmin-speedup.gp` here to redraw the PNG and SVG. The .dat file holds a block per
# backend (index 0, 1, ...): the n value, its x coordinate, the value, its 95%
# interval.
reset
set title 'reduce: dtype=f32 distribution=uniform op=argmin' noenhanced
set xlabel 'n' noenhanced
set ylabel 'speedup over reduce/cub (from gelem_per_s)' noenhanced
set logscale x 2
set format x '2^{%L}'
set logscale y
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2
set grid
set key below noenhanced
set bars small
set terminal pngcairo size 960,600
set output 'gelem_per_s_f32_uniform_argmin-speedup.png'
plot 'gelem_per_s_f32_uniform_argmin-speedup.dat' index 0 using 2:3:4:5 with yerrorlines lw 1.5 title 'reduce/butterfly', \
     'gelem_per_s_f32_uniform_argmin-speedup.dat' index 1 using 2:3:4:5 with yerrorlines lw 1.5 title 'reduce/cpu'
set terminal svg size 960,600 dynamic
set output 'gelem_per_s_f32_uniform_argmin-speedup.svg'
replot
unset output
