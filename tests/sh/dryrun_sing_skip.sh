#!/usr/bin/env bash
# tests/sh/dryrun_sing_skip.sh: the dry-run's certified singularity skip changes nothing. The shipped PUMA programs,
# the dry-run benchmark and a program that crosses the PUMA's wrist singularity (violations below the threshold,
# new extremes on LIN, CIRC and PTP moves) run twice from two copies of the tree: as shipped (the chain skips the
# measure where it proves it inside the checks' band), and with every CHAIN machine file given
# `PARAM singularity_skip = 0;` (every measure computed). report.json, report.txt and trace.csv must be identical
# byte for byte. A third copy with `PARAM singularity_defer = 0;` (every new extreme computed at once, no pending
# one settled later) must give the same report but for the last digits of the singularity measure's values (the
# deferral changes which cycles warm-start the decompositions): report.txt and every time, line and count in
# report.json the same, the values within 1e-12 relative. Needs $IRL.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }

for tree in skip exact nodefer; do
    mkdir -p "$tmp/$tree/bench"
    cp -r "$root/programs" "$root/models" "$tmp/$tree/"
    cp -r "$root/bench/dryrun" "$tmp/$tree/bench/"
    cat >"$tmp/$tree/programs/wrist_cross.irl" <<'IRL'
{ Crosses the PUMA's wrist singularity (q5 = 0) twice by PTP, with LIN and CIRC moves near it. }
PROGRAM wrist_cross;
  DEVICE arm : CHAIN "../models/puma560_cell.irm";
BEGIN
  $SPEED := 0.3 m/s;  $ACC := 1.5 m/s^2;
  MOVE PTP JOINT(0, 45 deg, -180 deg, 0, -30 deg, 0);
  MOVE PTP JOINT(10 deg, 40 deg, -170 deg, 20 deg, 8 deg, 0);
  MOVE LIN POS(0.50 m, -0.10 m, 0.10 m);
  MOVE CIRC POS(0.55 m, -0.05 m, 0.10 m), POS(0.60 m, -0.10 m, 0.10 m);
  MOVE PTP JOINT(0, 45 deg, -180 deg, 0, 45 deg, 0);
ENDPROGRAM
IRL
done
for f in "$tmp"/exact/models/*.irm; do
    grep -q ': *CHAIN' "$f" || continue
    sed -i 's/^ENDMACHINE/  PARAM singularity_skip = 0;\nENDMACHINE/' "$f"
    grep -q 'singularity_skip' "$f" || note "$f: no ENDMACHINE line to add the parameter before"
done
for f in "$tmp"/nodefer/models/*.irm; do
    grep -q ': *CHAIN' "$f" || continue
    sed -i 's/^ENDMACHINE/  PARAM singularity_defer = 0;\nENDMACHINE/' "$f"
done

# report.json a and b: the same but for numbers within 1e-12 relative; an extreme's time is compared too, exactly (a
# deferred extreme settled with the wrong time or line must fail here)
json_close() {
    python3 - "$1" "$2" <<'PY'
import json, sys
def walk(a, b, path):
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        if "t" in a and "value" in a and a["t"] != b["t"]:
            print(path + ".t", a["t"], b["t"]); return False
        return all(walk(a[k], b[k], path + "." + k) for k in a)
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return all(walk(x, y, path) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and abs(a - b) <= 1e-12 * max(abs(a), abs(b)): return True
    if a == b or path.endswith(".trace"): return True
    print(path, a, b); return False
sys.exit(0 if walk(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), "") else 1)
PY
}

run() { # dir program options...
    local dir=$1 p=$2; shift 2
    for tree in skip exact nodefer; do
        (cd "$tmp/$tree/$dir" && "$IRL" run --no-plots --out "o.$p" "$@" "$p.irl" >"$tmp/$p.$tree.out" 2>&1)
        echo $? >"$tmp/$p.$tree.rc"
    done
    cmp -s "$tmp/$p.skip.rc" "$tmp/$p.exact.rc" || note "$p: exit status differs"
    local a="$tmp/skip/$dir/o.$p" b="$tmp/exact/$dir/o.$p"
    [ -s "$a/report.json" ] || { note "$p: no report ($(head -3 "$tmp/$p.skip.out"))"; return; }
    for f in report.json report.txt trace.csv; do
        cmp -s "$a/$f" "$b/$f" || note "$p: $f differs: $(diff "$a/$f" "$b/$f" | head -4)"
    done
    # singularity proximity is checked on LIN/CIRC motion only (a PTP-only program has no such channel)
    grep -Eq 'MOVE.*(LIN|CIRC)' "$tmp/skip/$dir/$p.irl" && ! grep -q '"quantity": "singularity"' "$a/report.json" &&
        note "$p: no singularity channel"
    local c="$tmp/nodefer/$dir/o.$p"
    cmp -s "$tmp/$p.skip.rc" "$tmp/$p.nodefer.rc" || note "$p: exit status differs without the deferral"
    cmp -s "$a/report.txt" "$c/report.txt" ||
        note "$p: report.txt differs without the deferral: $(diff "$a/report.txt" "$c/report.txt" | head -4)"
    json_close "$a/report.json" "$c/report.json" >"$tmp/$p.jc" ||
        note "$p: report.json differs without the deferral: $(head -3 "$tmp/$p.jc")"
    [ "${VERBOSE:-0}" = 1 ] && echo "$p: same ($(cat "$tmp/$p.skip.rc"))"
}
run programs demo
run programs lin_circ
run programs pick_place --input part_ready=1@0.5
run programs torque_violation
run programs wrist_cross
run bench/dryrun lin_circ_60s
# the crossing must have violated the threshold (else the test would not cover violation runs)
grep -q 'measure .* below the threshold' "$tmp/skip/programs/o.wrist_cross/report.txt" || note "wrist_cross: no singularity violation"
exit $fail
