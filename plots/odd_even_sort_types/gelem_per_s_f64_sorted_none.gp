# Made by `bench plot` from results/h200/odd_even_sort_types.csv; edit freely, then run
# `gnuplot gelem_per_s_f64_sorted_none.gp` here to redraw the PNG and SVG. The .dat file holds a block per
# backend (index 0, 1, ...): the segment value, its x coordinate, the value, its 95%
# interval.
reset
set title 'sort: n=4194304 dtype=f64 distribution=sorted values=none order=ascending' noenhanced
set xlabel 'segment' noenhanced
set ylabel 'Gelem/s' noenhanced
set logscale x 2
set format x '2^{%L}'
set logscale y
set grid
set key below noenhanced
set bars small
set terminal pngcairo size 960,600
set output 'gelem_per_s_f64_sorted_none.png'
plot 'gelem_per_s_f64_sorted_none.dat' index 0 using 2:3:4:5 with yerrorlines lw 1.5 title 'sort/odd-even-merge', \
     'gelem_per_s_f64_sorted_none.dat' index 1 using 2:3:4:5 with yerrorlines lw 1.5 title 'sort/cub-segmented', \
     'gelem_per_s_f64_sorted_none.dat' index 2 using 2:3:4:5 with yerrorlines lw 1.5 title 'sort/cpu'
set terminal svg size 960,600 dynamic
set output 'gelem_per_s_f64_sorted_none.svg'
replot
unset output
