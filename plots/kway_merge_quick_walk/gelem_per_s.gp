# Made by `bench plot` from results/h200/kway_merge_quick_walk.csv; edit freely, then run
# `gnuplot gelem_per_s.gp` here to redraw the PNG and SVG. The .dat file holds a block per
# backend (index 0, 1, ...): the k value, its x coordinate, the value, its 95%
# interval.
reset
set title 'merge: n=134217728 max_size=0 sizes=uniform dtype=u32 distribution=uniform values=none' noenhanced
set xlabel 'k' noenhanced
set ylabel 'Gelem/s' noenhanced
set logscale x 2
set format x '2^{%L}'
set logscale y
set grid
set key below noenhanced
set bars small
set terminal pngcairo size 960,600
set output 'gelem_per_s.png'
plot 'gelem_per_s.dat' index 0 using 2:3:4:5 with yerrorlines lw 1.5 title 'merge/path', \
     'gelem_per_s.dat' index 1 using 2:3:4:5 with yerrorlines lw 1.5 title 'merge/bitonic-splitters', \
     'gelem_per_s.dat' index 2 using 2:3:4:5 with yerrorlines lw 1.5 title 'merge/cub-sort', \
     'gelem_per_s.dat' index 3 using 2:3:4:5 with yerrorlines lw 1.5 title 'merge/cub-merge-tree'
set terminal svg size 960,600 dynamic
set output 'gelem_per_s.svg'
replot
unset output
