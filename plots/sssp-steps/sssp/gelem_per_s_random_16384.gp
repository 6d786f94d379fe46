# Made by `bench plot` from results/h200/sssp-steps.csv; edit freely, then run
# `gnuplot gelem_per_s_random_16384.gp` here to redraw the PNG and SVG. The .dat file holds a block per
# backend (index 0, 1, ...): the density value, its x coordinate, the value, its 95%
# interval.
reset
set title 'sssp: graph=random vertices=16384 weights=int source=0' noenhanced
set xlabel 'density' noenhanced
set ylabel 'Gelem/s' noenhanced
set logscale x 2
set logscale y
set grid
set key below noenhanced
set bars small
set terminal pngcairo size 960,600
set output 'gelem_per_s_random_16384.png'
plot 'gelem_per_s_random_16384.dat' index 0 using 2:3:4:5 with yerrorlines lw 1.5 title 'sssp/dijkstra-butterfly', \
     'gelem_per_s_random_16384.dat' index 1 using 2:3:4:5 with yerrorlines lw 1.5 title 'sssp/cpu-heap'
set terminal svg size 960,600 dynamic
set output 'gelem_per_s_random_16384.svg'
replot
unset output
