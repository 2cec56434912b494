#!/usr/bin/env bash
# tests/sh/online_print.sh: PRINT in time with the motion, online (runtime/online/online_print.h): the program
# prints before, between and after two moves; online each line appears on stdout when the axes reach that point
# of the program (measured on the wall clock from the first line, against the program time it is stamped with),
# and the stamps are the dry-run trace's times of those points; a run stopped by SIGINT during the second move
# never prints the line after it. Needs $IRL.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root/tests/online"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }

"$IRL" run --trace csv --no-plots --no-progress --out "$tmp/dry" print_time.irl >"$tmp/dry.out" 2>/dev/null || note "dry-run failed"
python3 - "$IRL" "$tmp" <<'PY' || fail=1
import csv, os, signal, subprocess, sys, time
irl, tmp = sys.argv[1:]
rows = list(csv.DictReader(open(tmp + '/dry/trace.csv')))
t_end = float(rows[-1]['t'])
# the end of the first move (the second one follows at once): the row where axis 1 passes 60 degrees slowest
t_mid = float(min(rows[1:], key=lambda r: abs(float(next(v for k, v in r.items() if k.split('.')[:2] == ['arm', 'qd1']))) + (1 if not 0.1 < float(r['t']) < t_end - 0.1 else 0))['t'])
bad = []

def run(stop_after=None):
    p = subprocess.Popen([irl, 'run', '--trace', 'csv', '--online', '--max-missed', '1000000', '--driver', 'sim', '--no-plots', '--out', tmp + '/on', 'print_time.irl'],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    seen = []
    for line in p.stdout:
        seen.append((time.monotonic(), line.rstrip('\n')))
        if stop_after and line.rstrip('\n').endswith(stop_after):
            time.sleep(0.3)
            p.send_signal(signal.SIGINT)
    return p.wait(), seen

rc, seen = run()
want = ['[0.000 s] start', '[%.3f s] middle' % t_mid, '[%.3f s] end' % t_end]
if rc != 0 or [l for _, l in seen] != want:
    bad.append('complete run: exit %d, stdout %s, expected %s' % (rc, [l for _, l in seen], want))
else:
    for (w, l), t in zip(seen[1:], (t_mid, t_end)):
        late = (w - seen[0][0]) - t  # on the wall clock after the first line, against its program time
        if not -0.05 <= late <= 0.5:
            bad.append('%r appeared %.3f s off its program time' % (l, late))
rc, seen = run(stop_after='middle')
lines = [l for _, l in seen]
if rc != 1 or lines != want[:2]:
    bad.append('stopped run: exit %d, stdout %s (the line after the stop must not appear)' % (rc, lines))
for b in bad:
    print('FAIL', b)
sys.exit(1 if bad else 0)
PY
exit $fail
