#!/usr/bin/env bash
# actual_start_speed.sh — --actual-start NAME=q…;qd…: the simulated machine starts at those joint values and
# speeds. programs/freeflyer_paper.irl with the arm started at q = 0 moving at (0.3, -0.2) rad/s and at rest: over
# the first 1 ms cycle the joints' actual angles (ff.qa2, ff.qa3) move by the speeds times 1 ms more in the first
# run, to 5e-6 rad (the PD's Kv = 10 1/s on the speed difference changes the acceleration by 3 rad/s^2: 1.5e-6 rad).
# A count that does not match the device's axes is refused (exit 64). Needs $IRL.
set -u
cd "$(dirname "$0")/../../programs"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
opts=(--trace csv --no-plots --no-html --closed-loop --controller-rate continuous --start ff=0,0,0.5)
first_ms() { # trace: the actual angles' change over the first cycle, "d2 d3"
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        NR == 2 { a = $(c["ff.qa2.shoulder"]); b = $(c["ff.qa3.elbow"]); next }
        NR == 3 { printf "%.9g %.9g\n", $(c["ff.qa2.shoulder"]) - a, $(c["ff.qa3.elbow"]) - b; exit }' "$1"
}
"$IRL" run "${opts[@]}" --actual-start 'ff=0,0,0;0,0.3,-0.2' --out "$tmp/v" freeflyer_paper.irl >/dev/null 2>"$tmp/v.err" ||
    note "with speeds: exit $? ($(head -3 "$tmp/v.err"))"
"$IRL" run "${opts[@]}" --actual-start 'ff=0,0,0' --out "$tmp/r" freeflyer_paper.irl >/dev/null 2>"$tmp/r.err" ||
    note "at rest: exit $? ($(head -3 "$tmp/r.err"))"
read -r v2 v3 < <(first_ms "$tmp/v/trace.csv")
read -r r2 r3 < <(first_ms "$tmp/r/trace.csv")
awk -v a="$v2" -v b="$v3" -v c="$r2" -v e="$r3" 'BEGIN { d = a - c - 0.0003; f = b - e + 0.0002
    exit !(d * d < 25e-12 && f * f < 25e-12) }' ||
    note "the first 1 ms: $v2, $v3 rad with speeds (0.3, -0.2) rad/s, $r2, $r3 rad at rest"
"$IRL" run "${opts[@]}" --actual-start 'ff=0,0,0;0,0.3' --out-temp freeflyer_paper.irl >/dev/null 2>"$tmp/c.err"
[ $? = 64 ] || note "2 speeds for 3 axes: not refused with exit 64"
exit $fail
