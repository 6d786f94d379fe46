# Made by `bench plot` from results/h200/radix_select.csv; edit freely, then run
# `gnuplot gelem_per_s_268435456_1_u32_dense_fixed_max.gp` here to redraw the PNG and SVG. The .dat file holds a block per
# backend (index 0, 1, ...): the k value, its x coordinate, the value, its 95%
# interval.
reset
set title 'select: n=268435456 batch=1 dtype=u32 distribution=dense k_rule=fixed order=max output=unordered with_index=no' noenhanced
set xlabel 'k' noenhanced
set ylabel 'Gelem/s' noenhanced
set logscale x 2
set format x '2^{%L}'
set logscale y
set grid
set key below noenhanced
set bars small
set terminal pngcairo size 960,600
set output 'gelem_per_s_268435456_1_u32_dense_fixed_max.png'
plot 'gelem_per_s_268435456_1_u32_dense_fixed_max.dat' index 0 using 2:3:4:5 with yerrorlines lw 1.5 title 'select/radix', \
     'gelem_per_s_268435456_1_u32_dense_fixed_max.dat' index 1 using 2:3:4:5 with yerrorlines lw 1.5 title 'select/radix-multipass', \
     'gelem_per_s_268435456_1_u32_dense_fixed_max.dat' index 2 using 2:3:4:5 with yerrorlines lw 1.5 title 'select/radix8', \
     'gelem_per_s_268435456_1_u32_dense_fixed_max.dat' index 3 using 2:3:4:5 with yerrorlines lw 1.5 title 'select/cub-sort'
set terminal svg size 960,600 dynamic
set output 'gelem_per_s_268435456_1_u32_dense_fixed_max.svg'
replot
unset output
