#!/usr/bin/env bash
# tests/sh/closed_loop_run.sh: `irl run --closed-loop` end to end (runtime/exec/exec_offline.c + closed_loop.h), checked
# from the outputs: the trace's closed-loop columns and e = q - qa; the computed-torque tracking error within the
# bound its bandwidth gives (below); --controller pid; gains from the machine file and the command line; bad gains
# exit 64; byte-identical outputs across two runs (not with IRL_SANITIZED=1: the same code again, and repeatability
# is the release pass's to show); the PUMA 560 with DC motors (models/puma560_motors.irm) shows
# voltages and currents, and with a deliberately low voltage limit reports the saturation. Needs $IRL.
#
# Bound. Under computed torque with the model's own dynamics each axis's error obeys e'' + 2w e' + w^2 e = d,
# where d is what the zero-order hold gets wrong. The shipped cell is jerk-limited: the setpoint's acceleration
# changes by at most D within a cycle h (D = jerk h, measured from the trace), so the held feed-forward misses by
# at most D at any time (a sawtooth of mean D/2 while the jerk lasts), and the critically damped response to a
# disturbance bounded by D is bounded by D / w^2 (the integral of the impulse response t exp(-w t)). The test
# allows that: |e| <= D / w^2 (w = 20 rad/s, the default bandwidth), twice the D / (2 w^2) of a long ramp.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root/programs"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
run() { # $1 out dir, rest: options and program; sets rc
    local out=$1; shift
    "$IRL" run --trace csv --no-plots --no-progress --out "$tmp/$out" "$@" >"$tmp/$out.stdout" 2>"$tmp/$out.stderr"; rc=$?
}

# 1. demo, computed torque: runs, columns, e = q - qa, tracking bound
run ct --closed-loop demo.irl
[ $rc = 0 ] || note "demo --closed-loop: exit $rc ($(head -3 "$tmp/ct.stderr"))"
hdr=$(head -1 "$tmp/ct/trace.csv" 2>/dev/null)
for c in qa1 qa6 e1 e6; do case ",$hdr," in *",arm.$c."*) ;; *) note "trace lacks arm.$c";; esac; done
case ",$hdr," in *",arm.u1."*) note "rigid PUMA: trace has motor voltages";; esac
msg=$(awk -F, -v h=0.001 -v w=20 '
    NR == 1 { for (i = 1; i <= NF; i++) { c[$i] = i; h = $i; if (sub(/\.[^.]*$/, "", h) && h ~ /[0-9]$/) c[h] = i }; next }
    { for (k = 1; k <= 6; k++) {
        a = $(c["arm.qdd" k]); if (NR > 2) { d = a - p[k]; if (d < 0) d = -d; if (d > D) D = d } p[k] = a
        e = $(c["arm.e" k]); r = $(c["arm.q" k]) - $(c["arm.qa" k]) - e; if (r < 0) r = -r
        if (r > 5e-8) { print "e" k " != q - qa at t=" $1 " (" r ")"; bad = 1; exit }
        if (e < 0) e = -e; if (e > E) { E = e; T = $1; K = k } } }
    END { if (bad) exit 1; B = D / (w * w)
          if (!(E > 0) || E > B) { print "peak |e| " E " (axis " K ", t=" T ") vs bound " B " (D=" D ")"; exit 1 } }' \
    "$tmp/ct/trace.csv") || note "demo ct: $msg"
grep -q "closed loop (computed-torque PD)" "$tmp/ct/report.txt" || note "report.txt lacks the closed-loop summary"
grep -q "controller's torque demands" "$tmp/ct/report.txt" || note "report.txt does not say what the torques are"
# every number with its unit: the gains (SI), each axis's peak tracking error (degrees: the PUMA's axes are revolute)
grep -Eq '^arm: gains kp [0-9.,e+]+ 1/s\^2 kd [0-9.,e+]+ 1/s \(bandwidth 20 rad/s\)$' "$tmp/ct/report.txt" ||
    note "ct: gains without their units: $(grep gains "$tmp/ct/report.txt")"
[ "$(grep -Ec '^  axis [1-6] \(j[1-6]\): peak tracking error [0-9.e-]+ deg at t = ' "$tmp/ct/report.txt")" = 6 ] ||
    note "ct: the peak tracking errors not in deg with the joint names: $(grep 'tracking error' "$tmp/ct/report.txt" | head -2)"
grep -q '"closed_loop": {"torques": "controller demand"' "$tmp/ct/report.json" || note "report.json lacks closed_loop"

# 2. determinism
if [ "${IRL_SANITIZED:-0}" != 1 ]; then
    run ct2 --closed-loop demo.irl
    cmp -s "$tmp/ct/trace.csv" "$tmp/ct2/trace.csv" || note "closed-loop trace.csv differs between two runs"
    cmp -s "$tmp/ct/report.json" "$tmp/ct2/report.json" || note "closed-loop report.json differs between two runs"
fi

# 3. PID (no model in the controller: a looser loop; 0.05 rad is far above what it does, about 0.014 rad)
run pid --closed-loop --controller pid lin_circ.irl
[ $rc = 0 ] || note "lin_circ --controller pid: exit $rc ($(head -3 "$tmp/pid.stderr"))"
grep -q "closed loop (PID)" "$tmp/pid/report.txt" || note "pid: report.txt lacks the PID summary"
grep -Eq '^arm: gains kp [0-9.,e+]+ Nm/rad kd [0-9.,e+]+ Nm s/rad ki [0-9.,e+]+ Nm/\(rad s\) \(bandwidth' "$tmp/pid/report.txt" ||
    note "pid: gains without their units: $(grep gains "$tmp/pid/report.txt")"
msg=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^arm\.e[0-9]+\./) ec[++n] = i; next }
    { for (k = 1; k <= n; k++) { e = $(ec[k]); if (e < 0) e = -e; if (e > E) E = e } }
    END { if (n != 6 || !(E > 0) || E > 0.05) { print "n=" n " peak |e| " E; exit 1 } }' "$tmp/pid/trace.csv") \
    || note "pid: $msg"

# 4. gains: machine file PARAMs, command line on top, bad gains
sed 's/^MACHINE puma560_cell : CHAIN;/&\n  PARAM ct_kp = 100;  PARAM ct_kd = LIST(21, 22, 23, 24, 25, 26);/' \
    "$root/models/puma560_cell.irm" >"$tmp/gains.irm"
run g1 --closed-loop --device "arm=$tmp/gains.irm" demo.irl
grep -q '"kp": \[100, 100, 100, 100, 100, 100\], "kd": \[21, 22, 23, 24, 25, 26\]' "$tmp/g1/report.json" \
    || note "machine-file gains not used ($(grep '"kp"' "$tmp/g1/report.json"))"
run g2 --closed-loop --device "arm=$tmp/gains.irm" --kd 30 --kp 1,2,3,4,5,6 demo.irl
grep -q '"kp": \[1, 2, 3, 4, 5, 6\], "kd": \[30, 30, 30, 30, 30, 30\]' "$tmp/g2/report.json" \
    || note "command-line gains do not override the machine file ($(grep '"kp"' "$tmp/g2/report.json"))"
sed 's/^MACHINE puma560_cell : CHAIN;/&\n  PARAM ct_kp = LIST(1, 2);/' "$root/models/puma560_cell.irm" >"$tmp/bad.irm"
run g3 --closed-loop --device "arm=$tmp/bad.irm" demo.irl
[ $rc = 65 ] || note "PARAM ct_kp with 2 values for 6 axes: exit $rc, want 65"
for bad in "--kp 1,2" "--kd 1,2,3,4,5,6,7" "--kp -1" "--kp x" "--ki 3" "--controller lqr" "--bandwidth 0"; do
    # shellcheck disable=SC2086
    run b --closed-loop $bad demo.irl
    [ $rc = 64 ] || note "$bad: exit $rc, want 64"
    [ -s "$tmp/b.stderr" ] || note "$bad: no message"
done
grep -q "give one value or 6" <(run b --closed-loop --kp 1,2 demo.irl; cat "$tmp/b.stderr") \
    || note "--kp 1,2: message does not say how many values"

# 5. DC motors: voltages and currents in the trace, within the 40 V limit, no saturation
run m --closed-loop --device "arm=$root/models/puma560_motors.irm" demo.irl
[ $rc = 0 ] || note "puma560_motors: exit $rc ($(head -3 "$tmp/m.stderr"))"
msg=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { c[$i] = i; h = $i; if (sub(/\.[^.]*$/, "", h) && h ~ /[0-9]$/) c[h] = i }; if (!c["arm.u6"] || !c["arm.i6"]) { print "no u/i"; exit 1 } next }
    { for (k = 1; k <= 6; k++) { u = $(c["arm.u" k]); i = $(c["arm.i" k])
        if (u == "nan" || i == "nan" || u > 40 || -u > 40) { print "u" k "=" u " i" k "=" i " at t=" $1; exit 1 }
        if (u < 0) u = -u; if (u > U) U = u } }
    END { if (!(U > 1)) { print "voltages all below 1 V"; exit 1 } }' "$tmp/m/trace.csv") || note "motors: $msg"
grep -q "warning:.*saturated" "$tmp/m/report.txt" && note "motors at 40 V: saturation reported"

# 6. a deliberately low voltage limit: saturation events in report.txt (with the statement) and report.json,
#    the voltage held within the limit; the voltage check on the setpoint stream fails the run (exit 1)
sed 's/motor_voltage = 40;/motor_voltage = 8;/' "$root/models/puma560_motors.irm" >"$tmp/lowv.irm"
run lv --closed-loop --device "arm=$tmp/lowv.irm" demo.irl
[ $rc = 1 ] || note "vmax 8 V: exit $rc, want 1"
grep -Eq '^demo\.irl:[0-9]+:[0-9]+: warning: arm axis [0-9] motor voltage saturated at its limit 8 V' "$tmp/lv/report.txt" \
    || note "vmax 8 V: no saturation warning in report.txt"
grep -q "warning: arm axis .* saturated" "$tmp/lv.stderr" || note "vmax 8 V: saturation not on stderr"
grep -q '"kind": "voltage", "limit": 8,' "$tmp/lv/report.json" || note "vmax 8 V: no saturation event in report.json"
msg=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { c[$i] = i; h = $i; if (sub(/\.[^.]*$/, "", h) && h ~ /[0-9]$/) c[h] = i }; next }
    { for (k = 1; k <= 6; k++) { u = $(c["arm.u" k]); if (u > 8 || -u > 8) { print "u" k "=" u " at t=" $1; exit 1 } } }' \
    "$tmp/lv/trace.csv") || note "vmax 8 V: $msg"

# 7. open loop is untouched: no closed-loop columns or report section
run ol demo.irl
grep -q "arm.qa1\|arm.e1" <(head -1 "$tmp/ol/trace.csv") && note "open loop: closed-loop columns in the trace"
grep -q '"closed_loop"' "$tmp/ol/report.json" && note "open loop: closed_loop in report.json"

[ $fail = 0 ] && echo "closed_loop_run: ok"
exit $fail
