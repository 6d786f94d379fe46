# Made by `bench plot` from results/h200/sssp-steps.csv; edit freely, then run
# `gnuplot gelem_per_s.gp` here to redraw the PNG and SVG. The .dat file holds a block per
# backend (index 0, 1, ...): the n value, its x coordinate, the value, its 95%
# interval.
reset
set title 'reduce: dtype=u32 distribution=uniform op=argmin' noenhanced
set xlabel 'n' noenhanced
set ylabel 'Gelem/s' noenhanced
set grid
set key below noenhanced
set bars small
set terminal pngcairo size 960,600
set output 'gelem_per_s.png'
plot 'gelem_per_s.dat' index 0 using 2:3:4:5 with yerrorlines lw 1.5 title 'reduce/butterfly'
set terminal svg size 960,600 dynamic
set output 'gelem_per_s.svg'
replot
unset output
