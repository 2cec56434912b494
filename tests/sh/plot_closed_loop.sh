#!/usr/bin/env bash
# plot_closed_loop.sh — under --closed-loop the plots gain, per device, a tracking-error figure and (when the
# machine has motors) motor voltage and current figures. Checked: the files exist as PNG and SVG; each panel
# plots the trace column whose header is <dev>.e<axis> / .u<axis> / .i<axis>; the voltage panels draw the
# motor's ±vmax from the machine file; an open-loop run has none of these figures.
# With IRL_SANITIZED=1 gnuplot is not run (IRL_GNUPLOT names none): the figures are gnuplot's work, the same in
# either build; what irl writes, plots.gp, is checked there all the same.
set -u
command -v gnuplot >/dev/null || { echo "note: gnuplot absent: skipped (pass)"; exit 0; }
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "$*"; exit 1; }
cd "$root/programs"
draw=1; [ "${IRL_SANITIZED:-0}" = 1 ] && { draw=0; export IRL_GNUPLOT=/nonexistent/gnuplot; }
# $1 figure, $2 run folder: drawn as PNG and SVG, or (not drawn) named by plots.gp
figure() {
    if [ $draw = 0 ]; then grep -q "^set output '.*/$1.png'" "$2/plots.gp"; return; fi
    [ -s "$2/$1.png" ] && [ -s "$2/$1.svg" ] && [ "$(head -c 8 "$2/$1.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]
}
"$IRL" run --trace csv --closed-loop --device arm=../models/puma560_motors.irm --out "$tmp/cl" demo.irl >/dev/null 2>"$tmp/err" \
    || fail "closed-loop run failed: $(head -3 "$tmp/err")"
for fig in arm_tracking arm_motor_voltages arm_motor_currents; do
    figure $fig "$tmp/cl" || fail "missing $fig.png/.svg, or not a PNG"
done
# which trace column each closed-loop figure plots, in panel order, against the trace header
header=$(head -1 "$tmp/cl/trace.csv" | tr ',' '\n')
col() { echo "$header" | grep -nx "$1" | cut -d: -f1; }
for g in e:tracking u:motor_voltages i:motor_currents; do
    grp=${g%%:*} fig=${g#*:}
    want=$(for a in 1 2 3 4 5 6; do col "arm.$grp$a.j$a"; done | tr '\n' ' ')
    got=$(awk -v f="arm_$fig.png" 'index($0, "set output") && index($0, f) { on = 1; next }
                                   index($0, "set output") { on = 0 }
                                   on && /^plot / { match($0, /using 1:(\(\$)?[0-9]+/); c = substr($0, RSTART + 8, RLENGTH - 8)
                                                   sub(/^\(\$/, "", c); printf "%s ", c }' "$tmp/cl/plots.gp")
    [ -n "$got" ] && [ "$got" = "$want" ] || fail "$fig plots columns '$got', the trace has arm.${grp}1..6 at '$want'"
done
# each axis's voltage limit (motor_voltage, volts, in joint order in puma560_motors.irm), on its voltage panel
vlist=$(grep -o 'motor_voltage = [0-9.]*' "$root/models/puma560_motors.irm" | awk '{ print $3 }' | tr '\n' ' ')
[ "$(echo $vlist | wc -w)" = 6 ] || fail "cannot read 6 motor_voltage values from puma560_motors.irm: '$vlist'"
n=$(awk -v f="arm_motor_voltages.png" -v vl="$vlist" 'BEGIN { split(vl, v, " ") }
        index($0, "set output") && index($0, f) { on = 1; next }
        index($0, "set output") { on = 0 }
        on && /^plot / { k++; if (index($0, ", " v[k] " with lines") && index($0, ", -" v[k] " with lines")) n++ }
        END { print n + 0 }' "$tmp/cl/plots.gp")
[ "$n" = 6 ] || fail "voltage panels with their ±motor_voltage limit lines: $n of 6 ($vlist)"
# open loop: no closed-loop figures
"$IRL" run --trace csv --out "$tmp/ol" demo.irl >/dev/null 2>&1
figure arm_positions "$tmp/ol" || fail "open-loop run made no plots"
[ ! -e "$tmp/ol/arm_tracking.png" ] && ! grep -q arm_tracking "$tmp/ol/plots.gp" || fail "open-loop run has a tracking figure"
echo "closed-loop figures: tracking, motor voltages and currents, columns and limits as the trace and machine say"
