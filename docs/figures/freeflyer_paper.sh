#!/usr/bin/env bash
# freeflyer_paper.sh — draws docs/figures/freeflyer_paper_fig{3..8}.png, seed 004's Figs. 3-8, from dry-runs of
# programs/freeflyer_paper.irl on the Virtual Manipulator and on the DEM (docs/FREEFLYER-PAPER.md). Run by
# `make paper-figures` (IRL = the irl to use); needs gnuplot.
set -eu
cd "$(dirname "$0")/../.."
IRL=${IRL:-build/release/irl}
case $IRL in /*) ;; *) IRL=$PWD/$IRL ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
opts=(--trace csv --no-plots --no-html --closed-loop --controller-rate continuous --start ff=0,0,0.5
      --actual-start ff=0,0,0)
(cd programs && "$IRL" run "${opts[@]}" --out "$tmp/vm" freeflyer_paper.irl >/dev/null 2>&1)
(cd programs && "$IRL" run "${opts[@]}" --device ff=../models/freeflyer_paper_dem.irm --out "$tmp/dem" \
    freeflyer_paper.irl >/dev/null 2>&1)
# VM - DEM, column by column: t, base, theta1, theta2
paste -d, "$tmp/vm/trace.csv" "$tmp/dem/trace.csv" | awk -F, '
    NR == 1 { n = NF / 2; for (i = 1; i <= n; i++) c[$i] = i; print "t,dalpha,dtheta1,dtheta2"; next }
    { a = c["ff.qa1.alpha"]; b = c["ff.qa2.shoulder"]; e = c["ff.qa3.elbow"];
      printf "%s,%.17g,%.17g,%.17g\n", $1, $a - $(a + n), $b - $(b + n), $e - $(e + n) }' >"$tmp/diff.csv"
out=docs/figures
gnuplot <<GP
set datafile separator ','
set terminal pngcairo noenhanced size 640,360 font 'sans,9' background rgb 'white'
set grid
set style data lines
set key top right
set xlabel 't (s)'
set xrange [0:10]
set output '$out/freeflyer_paper_fig3.png'
set title 'Fig. 3: base and joint angles of the space manipulator (VM)'
set ylabel 'rad'
plot '$tmp/vm/trace.csv' using 1:'ff.qa1.alpha' lw 1.5 title 'base alpha', '' using 1:'ff.qa2.shoulder' lw 1.5 title 'theta1', '' using 1:'ff.qa3.elbow' lw 1.5 title 'theta2'
set output '$out/freeflyer_paper_fig4.png'
set title 'Fig. 4: base and joint angles of the DEM'
plot '$tmp/dem/trace.csv' using 1:'ff.qa1.alpha' lw 1.5 title 'base alpha', '' using 1:'ff.qa2.shoulder' lw 1.5 title 'theta1', '' using 1:'ff.qa3.elbow' lw 1.5 title 'theta2'
set output '$out/freeflyer_paper_fig5.png'
set title 'Fig. 5: tracking errors of the joint angles of the DEM'
plot '$tmp/dem/trace.csv' using 1:'ff.e2.shoulder' lw 1.5 title 'e1 = theta1d - theta1', '' using 1:'ff.e3.elbow' lw 1.5 title 'e2 = theta2d - theta2'
set output '$out/freeflyer_paper_fig6.png'
set title 'Fig. 6: VM minus DEM (base and joint angles)'
set format y '%.1e'
plot '$tmp/diff.csv' using 1:2 lw 1.5 title 'base alpha', '' using 1:3 lw 1.5 title 'theta1', '' using 1:4 lw 1.5 title 'theta2'
set format y '%g'
set ylabel 'N m'
set output '$out/freeflyer_paper_fig7.png'
set title 'Fig. 7: torques applied to the joints of the space manipulator (VM)'
plot '$tmp/vm/trace.csv' using 1:'ff.tau2.shoulder' lw 1.5 title 'tau1', '' using 1:'ff.tau3.elbow' lw 1.5 title 'tau2'
set output '$out/freeflyer_paper_fig8.png'
set title 'Fig. 8: torques applied to the joints of the DEM'
plot '$tmp/dem/trace.csv' using 1:'ff.tau2.shoulder' lw 1.5 title 'tau1', '' using 1:'ff.tau3.elbow' lw 1.5 title 'tau2'
GP
ls -l $out/freeflyer_paper_fig*.png
