#!/usr/bin/env bash
# tests/sh/dryrun_centrifuge.sh: dry-runs of the shipped centrifuge programs (programs/centrifuge_*.irl), checked
# from their trace.csv independently of runtime/exec/checks.c (awk): |Gx|, |Gy| < 1e-6 throughout; the felt G is aligned
# (Gz = Gfelt) and equals the command plus the tangential part, Gfelt^2 = G^2 + (a1 w'/g)^2 (ERRATA: equal to the
# command in steady state); steady-state w = sqrt(g sqrt(G^2 - 1) / a1) during holds; the limits of
# models/centrifuge.irm never exceeded; the energy balance int tau.qd dt = dE between two steady states; byte-identical
# trace.csv and report.json across two runs (not with IRL_SANITIZED=1: the second run takes the same code, and
# repeatability is the release pass's to show). Needs $IRL.
set -u
cd "$(dirname "$0")/../../programs"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
A1=8; G0=9.81   # models/centrifuge.irm: arm_length, |gravity| (the G unit)

runs="a b"; [ "${IRL_SANITIZED:-0}" = 1 ] && runs=a
for p in gradual rapid acm profile glimit; do
    for run in $runs; do
        "$IRL" run --trace csv --no-plots --out "$tmp/$p.$run" "centrifuge_$p.irl" >"$tmp/$p.$run.out" 2>"$tmp/$p.$run.err" \
            || note "$p: exit $? ($(head -3 "$tmp/$p.$run.err"))"
    done
    tr="$tmp/$p.a/trace.csv"
    [ -s "$tr" ] || { note "$p: no trace"; continue; }
    if [ "$runs" != a ]; then
        cmp -s "$tr" "$tmp/$p.b/trace.csv" || note "$p: trace.csv differs between two runs"
        cmp -s "$tmp/$p.a/report.json" "$tmp/$p.b/report.json" || note "$p: report.json differs between two runs"
    fi
    # glimit included: its infeasible GMOVE is refused before it moves, so what is flown stays within the limits
    msg=$(awk -F, -v a1=$A1 -v g=$G0 '
        function abs(x) { return x < 0 ? -x : x }
        function bad(s) { print s " at t=" $1; err = 1; exit 1 }
        NR == 1 { for (i = 1; i <= NF; i++) { c[$i] = i; h = $i; if (sub(/\.[^.]*$/, "", h) && h ~ /[0-9]$/) c[h] = i }; next }
        { G = $(c["hc.G"]); Gf = $(c["hc.Gfelt"]); w = $(c["hc.omega"]); wd = $(c["hc.omegadot"])
          if (abs($(c["hc.Gx"])) >= 1e-6 || abs($(c["hc.Gy"])) >= 1e-6) bad("Gx/Gy " $(c["hc.Gx"]) " " $(c["hc.Gy"]))
          if (abs($(c["hc.Gz"]) - Gf) > 1e-9 * Gf) bad("Gz " $(c["hc.Gz"]) " != Gfelt " Gf)
          want = sqrt(G * G + (a1 * wd / g) ^ 2)
          if (abs(Gf - want) > 1e-8 * want) bad("Gfelt " Gf " != sqrt(G^2 + (a1 w'"'"'/g)^2) = " want)
          if (w != $(c["hc.qd1.planetary"]) || wd != $(c["hc.qdd1.planetary"])) bad("omega/omegadot are not qd1/qdd1")
          if ($(c["hc.Gdot"]) == 0 && wd == 0 && G > 1 + 1e-9) {   # a hold: steady state
              nhold++
              if (abs(Gf - G) > 1e-9 * G) bad("steady Gfelt " Gf " != G " G)
              ws = sqrt(g * sqrt(G * G - 1) / a1)
              if (abs(w - ws) > 1e-8 * ws) bad("steady omega " w " != " ws) }
          split("3.6 1.5 3.5", V, " "); split("3 8 35", A, " "); split("1.2e6 8e4 8e4", T, " ")
          for (k = 1; k <= 3; k++) {
              if (abs($(c["hc.qd" k])) > V[k] * (1 + 1e-9)) bad("speed axis " k)
              if (abs($(c["hc.qdd" k])) > A[k] * (1 + 1e-9)) bad("acceleration axis " k)
              if (abs($(c["hc.tau" k])) > T[k]) bad("torque axis " k) }
          if ($(c["hc.q2.pitch"]) < -0.35 || $(c["hc.q2.pitch"]) > 1.536 || abs($(c["hc.q3.roll"])) > 1.4) bad("gondola angle")
          if (Gf > 9 || abs($(c["hc.Gdot"])) > 6) bad("G or onset limit") }
        END { if (!err && nhold < 1000) { print "only " nhold " steady-state rows"; exit 1 } }' "$tr") \
        || note "$p: $msg"
done

# Energy balance on centrifuge_gradual: from the 1.4 G hold (t = 8 s) to the 4 G hold (t = 44 s), the work of the
# inverse-dynamics torques, integral of tau.qd dt (trapezoid, 1 ms), equals the change of kinetic plus potential
# energy. Both ends are steady (qd = (w, 0, 0), q3 = 0): E_kin = M11(q2) w^2 / 2 from `irl model mass`; the potential
# difference is the integral over q2 of the gravity torque tau_g2(q2) (`irl model id` at rest), Simpson, 16 steps.
# Tolerance 1e-8 of dE (measured: 2.6e-10): the trapezoid's error is O(T dt^2 max|P''| / 12), about 1e-8 of dE for
# P ~ 1e5 W varying over seconds (P is continuous: tau and qd are); the trace's 9 digits add ~1e-9 relative per
# sample, averaging out; Simpson with 16 steps on the smooth (trigonometric) gravity torque is below 1e-9.
tr="$tmp/gradual.a/trace.csv"
if [ -s "$tr" ]; then
    read -r W qa wa qb wb <<<"$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { c[$i] = i; h = $i; if (sub(/\.[^.]*$/, "", h) && h ~ /[0-9]$/) c[h] = i }; next }
        { t = $1; P = $(c["hc.tau1.planetary"]) * $(c["hc.qd1.planetary"]) + $(c["hc.tau2.pitch"]) * $(c["hc.qd2.pitch"]) + $(c["hc.tau3.roll"]) * $(c["hc.qd3.roll"]) }
        t >= 8 && t <= 44 { if (started) W += (t - t0) * (P + P0) / 2; started = 1 }
        t == 8 { qa = $(c["hc.q2.pitch"]); wa = $(c["hc.omega"]) } t == 44 { qb = $(c["hc.q2.pitch"]); wb = $(c["hc.omega"]) }
        { t0 = t; P0 = P } END { printf "%.17g %.17g %.17g %.17g %.17g\n", W, qa, wa, qb, wb }' "$tr")"
    m11() { "$IRL" model ../models/centrifuge.irm mass --q "0,$1,0" | sed 's/^{"M": \[\[\([^,]*\),.*/\1/'; }
    tg2() { "$IRL" model ../models/centrifuge.irm id --q "0,$1,0" --qd 0,0,0 --qdd 0,0,0 | awk -F'[][,]' '{ print $3 }'; }
    Ma=$(m11 "$qa"); Mb=$(m11 "$qb")
    vals=""
    for k in $(seq 0 16); do vals="$vals $(tg2 "$(awk -v a="$qa" -v b="$qb" -v k=$k 'BEGIN { printf "%.17g", a + (b - a) * k / 16 }')")"; done
    msg=$(awk -v W="$W" -v qa="$qa" -v qb="$qb" -v wa="$wa" -v wb="$wb" -v Ma="$Ma" -v Mb="$Mb" -v vals="$vals" 'BEGIN {
        n = split(vals, f, " "); h = (qb - qa) / 16; dV = 0
        for (k = 1; k <= n; k++) dV += f[k] * (k == 1 || k == n ? 1 : (k % 2 == 0 ? 4 : 2))
        dV *= h / 3; dE = Mb * wb * wb / 2 - Ma * wa * wa / 2 + dV
        r = (W - dE) / dE; if (r < 0) r = -r
        printf "work %.9g J, dE %.9g J (kinetic %.9g, potential %.9g), relative difference %.3g", W, dE, dE - dV, dV, r
        exit !(r < 1e-8 && dE > 1e5) }') || note "gradual energy balance: $msg"
    [ "${VERBOSE:-0}" = 1 ] && echo "$msg"
else
    note "gradual: no trace for the energy balance"
fi

# glimit: the refused GMOVE is reported in G/s with the largest feasible onset from 2 G (5.937 G/s by the planner's bisection)
grep -q '^centrifuge_glimit.irl:9:3: note: hc GMOVE TO 8 G refused: onset 12 G/s cannot be flown from 2 G; the largest feasible onset rate is 5\.9[34] G/s$' \
    "$tmp/glimit.a/report.txt" \
    || note "glimit: report.txt does not name the refused GMOVE and the largest feasible onset in G/s"

# Spin-up notes (issue 5 item 4): the report says what governed each spin from/to rest. centrifuge_gradual's
# 0.1 G/s spin-up is slow enough for the onset rate to govern; the hand-over G is where the G ramp takes over.
grep -q '^centrifuge_gradual.irl:8:3: note: hc spin-up from rest: [0-9.]* s to 1\.[0-9]* G, governed by the onset rate$' \
    "$tmp/gradual.a/report.txt" || note "gradual: no spin-up note governed by the onset rate in report.txt"
grep -q '^centrifuge_gradual.irl:11:3: note: hc spin-down to rest: [0-9.]* s from 1\.[0-9]* G, governed by' \
    "$tmp/gradual.a/report.txt" || note "gradual: no spin-down note in report.txt"
grep -q '"text": "hc spin-up from rest: .*governed by the onset rate", "t": 0, "count": 1, "file": "centrifuge_gradual.irl", "line": 8' \
    "$tmp/gradual.a/report.json" || note "gradual: no spin-up note in report.json"
# A fast onset from rest (3 G/s, as tests/unit/test_gmove.c's axis-governed case) cannot be held while the arm
# spins up: an axis limit governs, and the note names it rather than the onset.
cat >"$tmp/fastspin.irl" <<EOF
PROGRAM fastspin;
  DEVICE hc : CENTRIFUGE "$PWD/../models/centrifuge.irm";
BEGIN
  GMOVE hc TO 3 G WITH ONSET := 3 G/s;
  GMOVE hc TO 1 G WITH ONSET := 3 G/s;
ENDPROGRAM
EOF
"$IRL" run --trace csv --no-plots --no-trace --out "$tmp/fastspin" "$tmp/fastspin.irl" >/dev/null 2>&1 || note "fastspin: exit $?"
grep -q 'fastspin.irl:4:3: note: hc spin-up from rest: [0-9.]* s to [0-9.]* G, governed by the [a-z]* [a-z]* limit$' \
    "$tmp/fastspin/report.txt" \
    || note "fastspin: the spin-up note does not name the axis limit that governed: $(grep spin-up "$tmp/fastspin/report.txt")"

# an axis limit a GMOVE cannot keep: the error gives the planetary speed in the units of --display (degrees by
# default, rad with --display si): 8 G on the 8 m arm needs sqrt(9.81 sqrt(63) / 8) = 3.12 rad/s = 178.8 deg/s,
# against a speed limit lowered to 2 rad/s = 114.6 deg/s
sed 's|speed = 3.6 rad/s;|speed = 2 rad/s;|' ../models/centrifuge.irm >"$tmp/slow.irm"
printf 'PROGRAM slow;\n  DEVICE hc : CENTRIFUGE "%s";\nBEGIN\n  GMOVE hc TO 8 G WITH ONSET := 1 G/s;\nENDPROGRAM\n' \
    "$tmp/slow.irm" >"$tmp/slow.irl"
for disp in deg si; do
    "$IRL" run --display $disp --no-plots --no-html --out-temp "$tmp/slow.irl" >/dev/null 2>"$tmp/slow.$disp.err"
    [ $? = 1 ] || note "slow ($disp): not refused"
done
grep -q "cannot be flown: planetary speed 178.8 deg/s outside \[-114.6, 114.6\] deg/s at" "$tmp/slow.deg.err" \
    || note "slow: $(cat "$tmp/slow.deg.err")"
grep -q "cannot be flown: planetary speed 3.12 rad/s outside \[-2, 2\] rad/s at" "$tmp/slow.si.err" \
    || note "slow --display si: $(cat "$tmp/slow.si.err")"

exit $fail
