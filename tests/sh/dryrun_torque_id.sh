#!/usr/bin/env bash
# tests/sh/dryrun_torque_id.sh: the torques in trace.csv are the model's inverse dynamics at the sampled state. For
# programs/lin_circ.irl (PUMA 560, chain back-end) and programs/centrifuge_rapid.irl (centrifuge back-end), 20 rows
# spread over the run are recomputed with `irl model MACHINE id --q --qd --qdd` from the trace's own q, qd, qdd.
# The runs ask for 12 significant digits (--digits 12: from the default 9 digits' q, qd, qdd the centrifuge's
# recomputed torque moves by 4e-8 relative); the tolerance is 1e-8 relative (of max(|tau_k|, max_j |tau_j|)).
# Needs $IRL.
set -u
cd "$(dirname "$0")/../../programs"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }

check() { # program machine device
    local p=$1 mach=$2 dev=$3
    "$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/$p" "$p.irl" >/dev/null 2>"$tmp/$p.err" || note "$p: exit $? ($(head -3 "$tmp/$p.err"))"
    local tr="$tmp/$p/trace.csv"
    [ -s "$tr" ] || { note "$p: no trace"; return; }
    local rows n=0
    rows=$(awk -F, -v d="$dev" 'NR == 1 { for (i = 1; i <= NF; i++) { c[$i] = i; h = $i; if (sub(/\.[^.]*$/, "", h) && h ~ /[0-9]$/) c[h] = i }; while (("" d ".q" (n + 1)) in c) n++; next }
        { r[NR] = $0 } END { for (k = 1; k <= 20; k++) { split(r[int(2 + (NR - 2) * k / 21)], f, ",")
            q = qd = qdd = tau = ""
            for (a = 1; a <= n; a++) { s = a > 1 ? "," : ""
                q = q s f[c[d ".q" a]]; qd = qd s f[c[d ".qd" a]]; qdd = qdd s f[c[d ".qdd" a]]; tau = tau s f[c[d ".tau" a]] }
            print f[1], q, qd, qdd, tau } }' "$tr")
    while read -r t q qd qdd tau; do
        n=$((n + 1))
        got=$("$IRL" model "$mach" id --q "$q" --qd "$qd" --qdd "$qdd") || { note "$p t=$t: irl model id failed"; continue; }
        msg=$(awk -v t="$t" -v tau="$tau" -v got="$got" 'BEGIN {
            gsub(/[^-0-9.eE+,]/, "", got); na = split(tau, a, ","); split(got, b, ",")
            for (k = 1; k <= na; k++) { m = (b[k] < 0 ? -b[k] : b[k]); if (m > big) big = m }
            for (k = 1; k <= na; k++) { d = a[k] - b[k]; if (d < 0) d = -d; m = (b[k] < 0 ? -b[k] : b[k])
                if (d > 1e-8 * (m > big ? m : big) + 1e-12) { printf "t=%s axis %d: trace %s, model %s", t, k, a[k], b[k]; exit 1 } } }') \
            || note "$p: $msg"
    done <<<"$rows"
    [ $n -eq 20 ] || note "$p: $n rows compared, 20 expected"
    [ "${VERBOSE:-0}" = 1 ] && echo "$p: $n rows compared"
}
check lin_circ ../models/puma560_cell.irm arm
check centrifuge_rapid ../models/centrifuge.irm hc
exit $fail
