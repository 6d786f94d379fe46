# Made by `bench plot` from results/h200/sort-middle-threads128.csv; edit freely, then run
# `gnuplot gelem_per_s_100.gp` here to redraw the PNG and SVG. The .dat file holds a block per
# backend (index 0, 1, ...): the n value, its x coordinate, the value, its 95%
# interval.
reset
set title 'sort: dtype=u32 distribution=uniform values=none segment=100 order=ascending' noenhanced
set xlabel 'n' noenhanced
set ylabel 'Gelem/s' noenhanced
set grid
set key below noenhanced
set bars small
set terminal pngcairo size 960,600
set output 'gelem_per_s_100.png'
plot 'gelem_per_s_100.dat' index 0 using 2:3:4:5 with yerrorlines lw 1.5 title 'sort/odd-even-merge', \
     'gelem_per_s_100.dat' index 1 using 2:3:4:5 with yerrorlines lw 1.5 title 'sort/cub-segmented'
set terminal svg size 960,600 dynamic
set output 'gelem_per_s_100.svg'
replot
unset output
