#!/usr/bin/env bash
# tests/sh/dryrun_sing_skip.sh: the dry-run's certified singularity skip changes nothing. The shipped PUMA programs,
# the dry-run benchmark and a program that crosses the PUMA's wrist singularity (violations below the threshold,
# new extremes on LIN, CIRC and PTP moves) run twice from two copies of the tree: as shipped (the chain skips the
# measure where it proves it inside the checks' band), and with every CHAIN machine file given
# `PARAM singularity_skip = 0;` (every measure computed). report.json, report.txt and trace.csv must be identical
# byte for byte. Needs $IRL.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }

for tree in skip exact; do
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

run() { # dir program options...
    local dir=$1 p=$2; shift 2
    for tree in skip exact; do
        (cd "$tmp/$tree/$dir" && "$IRL" run --no-plots --out "o.$p" "$@" "$p.irl" >"$tmp/$p.$tree.out" 2>&1)
        echo $? >"$tmp/$p.$tree.rc"
    done
    cmp -s "$tmp/$p.skip.rc" "$tmp/$p.exact.rc" || note "$p: exit status differs"
    local a="$tmp/skip/$dir/o.$p" b="$tmp/exact/$dir/o.$p"
    [ -s "$a/report.json" ] || { note "$p: no report ($(head -3 "$tmp/$p.skip.out"))"; return; }
    for f in report.json report.txt trace.csv; do
        cmp -s "$a/$f" "$b/$f" || note "$p: $f differs: $(diff "$a/$f" "$b/$f" | head -4)"
    done
    grep -q '"quantity": "singularity"' "$a/report.json" || note "$p: no singularity channel"
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
