#!/usr/bin/env bash
# tests/sh/closed_loop_ferror.sh: the following-error limit `ferror` (machine file, docs/RUNNING.md "Closed loop")
# checked on every cycle of `irl run --closed-loop`. tests/sh/ferror/arm2.irm limits both joints to 0.01 deg.
# ferror_fast.irl must fail (exit 1) with violations blamed on its MOVE at line 8; each violation run is
# recomputed here from trace.csv's tracking-error columns (arm.e1, arm.e2: first and last cycle of every run of
# |e| > limit, and the peak |e| of the run) and compared with report.json. ferror_slow.irl must pass, and so must
# the fast program open loop (no closed loop, no following error). Bad ferror values are machine-file errors.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root/tests/sh/ferror"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
run() { # $1 out dir, rest: options and program; sets rc
    local out=$1; shift
    "$IRL" run --no-plots --no-progress --out "$tmp/$out" "$@" >"$tmp/$out.stdout" 2>"$tmp/$out.stderr"; rc=$?
}
limit=$(awk 'BEGIN { printf "%.17g", 0.01 * atan2(0, -1) / 180 }')

# 1. the fast program fails, the report names line 8 on stderr and in report.txt
run fast --closed-loop ferror_fast.irl
[ $rc = 1 ] || note "ferror_fast: exit $rc, want 1 ($(head -3 "$tmp/fast.stderr"))"
grep -Eq '^ferror_fast\.irl:8:3: error: arm axis [12] \((shoulder|elbow)\) following error [0-9.e-]+ deg exceeds its limit 0\.01 deg at t = ' \
    "$tmp/fast.stderr" || note "ferror_fast: no following-error violation at line 8 on stderr"
grep -Eq '^ferror_fast\.irl:8:3: error: arm axis [12] \((shoulder|elbow)\) following error' "$tmp/fast/report.txt" \
    || note "ferror_fast: report.txt lacks the violation"
grep -v 'following error' "$tmp/fast.stderr" | grep -q 'error:' && note "ferror_fast: other violations: $(head -3 "$tmp/fast.stderr")"

# 2. every violation run recomputed from the trace (e = setpoint - actual, at each cycle's start) = report.json's
want=$(awk -F, -v L="$limit" '
    NR == 1 { for (i = 1; i <= NF; i++) { c[$i] = i; h = $i; if (sub(/\.[^.]*$/, "", h) && h ~ /[0-9]$/) c[h] = i }; next }
    { for (k = 1; k <= 2; k++) { e = $(c["arm.e" k]); if (e < 0) e = -e
        if (e > L) { if (!open[k]) { n++; ax[n] = k; t0[n] = $1; pk[n] = 0; ln[n] = $(c["line"]); cur[k] = n; open[k] = 1 }
                     m = cur[k]; t1[m] = $1; cyc[m]++; if (e > pk[m]) pk[m] = e }
        else open[k] = 0 } }
    END { for (i = 1; i <= n; i++) printf "%d %.6f %.6f %d %.6e %d\n", ax[i], t0[i], t1[i], cyc[i], pk[i], ln[i] }' \
    "$tmp/fast/trace.csv" | sort)
got=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for v in r["violations"]:
    if v["quantity"] == "following error":
        print("%d %.6f %.6f %d %.6e %d" % (v["axis"], v["t_start"], v["t_end"], v["cycles"], v["value"], v["line"]))
' "$tmp/fast/report.json" | sort)
[ -n "$want" ] || note "ferror_fast: the trace shows no |e| above the limit"
[ "$want" = "$got" ] || note "ferror_fast: violations differ from the trace's:"$'\n'"trace:"$'\n'"$want"$'\n'"report.json:"$'\n'"$got"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "fail", r["verdict"]
ch = [c for d in r["devices"] for c in d["channels"] if c["quantity"] == "following error"]
assert [c["axis"] for c in ch] == [1, 2] and all(c["unit"] == "rad" for c in ch), ch
assert all(abs(c["limit_max"] - float(sys.argv[2])) < 1e-18 for c in ch), ch
' "$tmp/fast/report.json" "$limit" || note "ferror_fast: report.json channels or verdict wrong"

# 3. the same path at 10 % acceleration passes, its peak |e| below the limit in the trace too
run slow --closed-loop ferror_slow.irl
[ $rc = 0 ] || note "ferror_slow: exit $rc, want 0 ($(head -3 "$tmp/slow.stderr"))"
grep -Eq '^. following err +2 ' "$tmp/slow/report.txt" || note "ferror_slow: no following-error row in report.txt"
msg=$(awk -F, -v L="$limit" 'NR == 1 { for (i = 1; i <= NF; i++) { c[$i] = i; h = $i; if (sub(/\.[^.]*$/, "", h) && h ~ /[0-9]$/) c[h] = i }; next }
    { for (k = 1; k <= 2; k++) { e = $(c["arm.e" k]); if (e < 0) e = -e; if (e > E) E = e } }
    END { if (!(E > 0) || E > L) { print "peak |e| " E " vs limit " L; exit 1 } }' "$tmp/slow/trace.csv") \
    || note "ferror_slow: $msg"

# 4. open loop: no following error is checked (there is no actual position)
run open ferror_fast.irl
[ $rc = 0 ] || note "ferror_fast open loop: exit $rc, want 0"
grep -q 'following' "$tmp/open/report.txt" "$tmp/open/report.json" && note "open loop: a following-error channel"

# 5. bad limits are machine-file errors at their column (exit 65: bad data)
sed 's/ferror = 0.01 deg;/ferror = 0 deg;/' arm2.irm >"$tmp/zero.irm"
sed 's/ferror = 0.01 deg;/ferror = 2 m;/' arm2.irm >"$tmp/unit.irm"
for bad in zero unit; do
    run "b$bad" --closed-loop --device "arm=$tmp/$bad.irm" ferror_slow.irl
    [ $rc = 65 ] || note "ferror $bad: exit $rc, want 65"
    grep -Eq "$bad\.irm:10:[0-9]+: error: ferror" "$tmp/b$bad.stderr" || note "ferror $bad: $(head -2 "$tmp/b$bad.stderr")"
done

[ $fail = 0 ] && echo "closed_loop_ferror: ok"
exit $fail
