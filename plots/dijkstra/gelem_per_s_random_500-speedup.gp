# Made by `bench plot` from results/h200/dijkstra.csv; edit freely, then run
# `gnuplot gelem_per_s_random_500-speedup.gp` here to redraw the PNG and SVG. The .dat file holds a block per
# backend (index 0, 1, ...): the vertices value, its x coordinate, the value, its 95%
# interval.
reset
set title 'sssp: graph=random density=500 weights=int source=0' noenhanced
set xlabel 'vertices' noenhanced
set ylabel 'speedup over sssp/cpu-heap (from gelem_per_s)' noenhanced
set logscale x 2
set logscale y
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2
set grid
set key below noenhanced
set bars small
set terminal pngcairo size 960,600
set output 'gelem_per_s_random_500-speedup.png'
plot 'gelem_per_s_random_500-speedup.dat' index 0 using 2:3:4:5 with yerrorlines lw 1.5 title 'sssp/dijkstra-butterfly', \
     'gelem_per_s_random_500-speedup.dat' index 1 using 2:3:4:5 with yerrorlines lw 1.5 title 'sssp/dijkstra-cub', \
     'gelem_per_s_random_500-speedup.dat' index 2 using 2:3:4:5 with yerrorlines lw 1.5 title 'sssp/frontier', \
     'gelem_per_s_random_500-speedup.dat' index 3 using 2:3:4:5 with yerrorlines lw 1.5 title 'sssp/cpu-scan'
set terminal svg size 960,600 dynamic
set output 'gelem_per_s_random_500-speedup.svg'
replot
unset output
