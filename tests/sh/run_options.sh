#!/usr/bin/env bash
# tests/sh/run_options.sh: options of `irl run` (runtime/exec/run_options.c) seen from their outputs: --time-scale K
# plays a PTP move as q(t0 + (t - t0)/K) (the move starts at t0 = the first cycle after the statement; speeds
# divided by K, accelerations by K^2); --cycle 2ms samples the same motion every 2 ms; the executor is
# deterministic (two runs of every variant byte-identical); malformed values exit 64 with a message. Needs $IRL.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
cat >"$tmp/ptp.irl" <<IRL
PROGRAM scaled;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
BEGIN
  MOVE PTP JOINT(30 deg, 60 deg, -150 deg, 20 deg, 30 deg, 10 deg);
ENDPROGRAM
IRL
run() { local out=$1; shift; "$IRL" run --trace csv --no-plots --no-progress --out "$tmp/$out" "$@" >"$tmp/$out.log" 2>&1; rc=$?; }
for v in k1 k2 c2; do
    case $v in k1) o=();; k2) o=(--time-scale 2);; c2) o=(--cycle 2ms);; esac
    for r in a b; do
        run "$v.$r" "${o[@]}" "$tmp/ptp.irl"
        [ $rc = 0 ] || note "$v: exit $rc ($(head -2 "$tmp/$v.$r.log"))"
    done
    cmp -s "$tmp/$v.a/trace.csv" "$tmp/$v.b/trace.csv" || note "$v: trace.csv differs between two runs"
    cmp -s "$tmp/$v.a/report.json" "$tmp/$v.b/report.json" || note "$v: report.json differs between two runs"
done
# row j >= 1 of the other run against row (A j + B) / C of the plain one (when that is a whole row number):
# K = 2 at 1 ms: t0 = 1 ms, r = (j + 1) / 2;  --cycle 2ms: t0 = 2 ms for it and 1 ms for the plain run, r = 2 j - 1
cmp_rows() { # $1 plain trace, $2 other, $3 A, $4 B, $5 C, $6 speed factor
    awk -F, -v A="$3" -v B="$4" -v C="$5" -v f="$6" '
        FNR == 1 { next }
        NR == FNR { a[FNR - 2] = $0; na++; next }
        FNR > 2 && (A * (FNR - 2) + B) % C == 0 { i = (A * (FNR - 2) + B) / C; if (!(i in a)) next; split(a[i], x, ","); nb++
            for (k = 2; k <= 7; k++) {
                d = x[k] - $k; if (d < 0) d = -d; if (d > 2e-8) { print "q" (k - 1) " row " i ": " x[k] " vs " $k; exit 1 }
                d = x[k + 6] / f - $(k + 6); if (d < 0) d = -d; if (d > 2e-8) { print "qd" (k - 1) " row " i; exit 1 }
                d = x[k + 12] / (f * f) - $(k + 12); if (d < 0) d = -d; if (d > 2e-7) { print "qdd" (k - 1) " row " i; exit 1 } } }
        END { if (nb < 100 || nb < na / 2 - 2) { print "rows compared " nb " of " na; exit 1 } }' "$1" "$2"
}
msg=$(cmp_rows "$tmp/k1.a/trace.csv" "$tmp/k2.a/trace.csv" 1 1 2 2) || note "--time-scale 2 is not q(t/2): $msg"
msg=$(cmp_rows "$tmp/k1.a/trace.csv" "$tmp/c2.a/trace.csv" 2 -1 1 1) || note "--cycle 2ms samples differ: $msg"
d1=$(grep -o '"duration": [0-9.e+-]*' "$tmp/k1.a/report.json" | cut -d' ' -f2)
d2=$(grep -o '"duration": [0-9.e+-]*' "$tmp/k2.a/report.json" | cut -d' ' -f2)
awk -v a="$d1" -v b="$d2" 'BEGIN { d = (b - 0.001) - 2 * (a - 0.001); exit !(a > 0.5 && d < 1.5e-3 && d > -1.5e-3) }' \
    || note "--time-scale 2: duration $d2, want 0.001 + 2 x ($d1 - 0.001)"
for bad in "--cycle 0" "--cycle 2h" "--cycle 2" "--time-scale 0" "--time-scale x" "--start arm=" "--start arm=1,x" \
           "--input =1" "--device =f" "--controller" "--bandwidth -3"; do
    # shellcheck disable=SC2086
    run bad $bad "$tmp/ptp.irl"
    [ $rc = 64 ] || note "$bad: exit $rc, want 64"
    grep -q "irl: \|usage:" "$tmp/bad.log" || note "$bad: no message"
done
# the closed loop's options without --closed-loop: refused (exit 64) naming the option, never silently ignored
for only in "--actual-start arm=0,0,0,0,0,0" "--controller-rate continuous" "--controller pid" "--bandwidth 5" \
            "--kp 100" "--kd 20" "--ki 1"; do
    # shellcheck disable=SC2086
    run only $only "$tmp/ptp.irl"
    [ $rc = 64 ] || note "$only without --closed-loop: exit $rc, want 64"
    grep -q "irl: ${only%% *} needs --closed-loop" "$tmp/only.log" || note "$only without --closed-loop: $(head -1 "$tmp/only.log")"
done
run only --online --driver sim --kp 100 "$tmp/ptp.irl"
[ $rc = 64 ] && grep -q "irl: --kp is a dry-run --closed-loop option" "$tmp/only.log" \
    || note "--kp online: exit $rc, $(head -1 "$tmp/only.log")"
# --no-html: no report.html; without it the page is written (beside report.txt)
run html "$tmp/ptp.irl"
[ -s "$tmp/html/report.html" ] || note "no report.html without --no-html"
run nohtml --no-html "$tmp/ptp.irl"
[ -s "$tmp/nohtml/report.txt" ] && [ ! -e "$tmp/nohtml/report.html" ] || note "--no-html: $(ls "$tmp/nohtml")"
[ $fail = 0 ] && echo "run_options: ok"
exit $fail
