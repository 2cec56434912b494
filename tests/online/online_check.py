#!/usr/bin/env python3
"""online_check.py — checks of online runs' outputs for tests/sh/online_*.sh: prints what is wrong, exits 1.
Several checks in one call (Python starts once), separated by '+':  online_check.py same A B + json C 'expr'

  same    TRACE ONLINE_CSV [--complete]  every 'run' row of online.csv carries the trace row of its cycle: its
                                         positions (written with 17 digits: the doubles themselves), as the
                                         trace records them (trace_text), are the trace's text;
                                         cycles in order without gaps (from 0; to the trace's end if --complete);
                                         every other row holds the last position at zero speed, or is a stop row,
                                         or an approach row (cycle -1) before the first run row
  approach DIR VMAX AMAX JMAX            the approach to the start (online.json "approach"): its rows come first
                                         (after prime rows), as many as it says, from where the axes stood to the
                                         start exactly, at rest there; speeds, accelerations and jerks (differences
                                         of the written positions over online.json's cycle_s) within 10 % of VMAX,
                                         AMAX, JMAX (lists per axis)
  stream  ONLINE_CSV STREAM_OUT [deg]    the stream has one line per online.csv row with the same positions
                                         exactly (the halstreamer text read back as numbers; deg: in degrees)
  ramp    ONLINE_CSV VMAX AMAX           the log's positions never move faster than VMAX nor accelerate beyond
                                         AMAX (comma lists per axis, SI), and the log ends at rest with 'stop'
                                         rows after the last 'run' (or 'approach') row, some of them moving (a ramp)
  stopped DIR CAUSE TEXT [VMAX AMAX]     a run stopped online: online.json "complete": false and the cause,
                                         report.json verdict "error" with TEXT and "report and trace incomplete",
                                         online.csv has every row written, its run rows are the trace's (same);
                                         with VMAX AMAX also ramp
  lag     ONLINE_CSV TAU                 the actual positions lag the written ones as a first-order lag TAU read
                                         one cycle later can: |qa - q| <= max|qd| (TAU + dt), and not zero
  micro   ONLINE_CSV                     the actual positions are whole micro-units (the Modbus registers)
  speeds  ONLINE_CSV AMAX                no written speed changed by more than AMAX x cycle (1 % slack) from one
                                         row to the next: what the limit re-check lets through
  drive   ONLINE_CSV DRIVE_LOG SCALE     what the CiA 402 drive (tests/tools/cia402_drive.py) logged as received:
                                         after the enable's (the start), one target line per online.csv row, each
                                         the row's positions as whole counts of SCALE rad (rounded to nearest)
  moved   DRIVE_LOG SCALE FROM TO VMAX AMAX DT
                                         what the CiA 402 drive logged as received moves it from FROM (its counts:
                                         the enable's target line) to TO (the program's start) and only then on:
                                         the target lines' speeds and accelerations (differences over DT s) within
                                         10 % of VMAX, AMAX, give or take the rounding to counts (1 count for a
                                         speed, 2 for an acceleration)
  states  DRIVE_LOG AXES FIRST LAST      each of the drive's axes AXES (1-based, comma-separated) passed through
                                         state FIRST, and its last state is LAST (names as the drive logs them)
  json    FILE EXPR                      the Python expression EXPR holds, with j = the JSON file's content
"""
import csv
import json
import math
import struct
import sys

DT = 0.001
DIGITS = 9  # the trace's significant digits by default (runtime/output/trace.h TRACE_DEFAULT_DIGITS)


def trace_text(x, digits=DIGITS):
    """x as the trace records it (runtime/output/trace.h): rounded to the nearest double with the mantissa bits
    its digits keep (the digits and a guard digit, whole bytes; ties to even), printed with those digits."""
    need = math.ceil((digits + 1) * math.log2(10))
    bits = 52 if need >= 52 else 52 - 8 * ((52 - need) // 8)
    u = struct.unpack('<Q', struct.pack('<d', x))[0]
    if bits < 52 and (u >> 52) & 0x7ff < 0x7fe:
        drop = 52 - bits
        low = (1 << drop) - 1
        u = (u + (low >> 1) + ((u >> drop) & 1)) & ~low
    return '%.*g' % (digits, struct.unpack('<d', struct.pack('<Q', u))[0])


def rows_of(path):
    with open(path) as f:
        r = list(csv.reader(f))
    return r[0], r[1:]


def key(h):
    """A column's device and quantity with its axis index: trace.csv's 'arm.q1.shoulder' and online.csv's 'arm.q1'
    are both 'arm.q1' (the trace also names each axis's joint)."""
    return '.'.join(h.split('.')[:2])


def cols(header, prefix):
    return [i for i, h in enumerate(header) if key(h).split('.')[-1].startswith(prefix)
            and key(h).split('.')[-1][len(prefix):].isdigit()]


def same(trace, online, complete=None):
    th, tr = rows_of(trace)
    oh, on = rows_of(online)
    tq, oq, oqd = cols(th, 'q'), cols(oh, 'q'), cols(oh, 'qd')
    if [key(th[i]) for i in tq] != [key(oh[i]) for i in oq]:
        return 'position columns differ: %s vs %s' % ([th[i] for i in tq], [oh[i] for i in oq])
    want, last, approached = 0, None, 0
    for n, r in enumerate(on, 2):
        state, cyc = r[3], int(r[1])
        q = [float(r[i]) for i in oq]
        if state == 'run':
            if cyc != want:
                return 'online.csv line %d: cycle %d, expected %d' % (n, cyc, want)
            got = [trace_text(x) for x in q]
            exp = [tr[cyc][i] for i in tq]
            if got != exp:
                return 'cycle %d: wrote %s, the trace has %s' % (cyc, got, exp)
            want += 1
        elif state == 'approach':
            if want != 0 or cyc != -1:
                return 'online.csv line %d: an approach row with cycle %d after %d run rows' % (n, cyc, want)
            approached = 1
        elif state in ('prime', 'hold', 'settle'):
            if last is not None and q != last:
                return 'online.csv line %d: a %s row moved' % (n, state)
            if any(float(r[i]) != 0 for i in oqd):
                return 'online.csv line %d: a %s row has a speed' % (n, state)
        elif state != 'stop':
            return 'online.csv line %d: state %s' % (n, state)
        last = q
    if want == 0 and not approached:
        return 'no run rows'
    if complete == '--complete' and want != len(tr):
        return '%d cycles written, the trace has %d' % (want, len(tr))
    return None


def stream(online, out, unit=None):
    oh, on = rows_of(online)
    oq = cols(oh, 'q')
    with open(out) as f:
        lines = [l.split() for l in f if l.strip()]
    if len(lines) != len(on):
        return '%d stream lines, %d online.csv rows' % (len(lines), len(on))
    for n, (l, r) in enumerate(zip(lines, on), 1):
        want = [float(r[i]) for i in oq]
        got = [float(x) for x in l]
        if unit == 'deg':
            import math
            ok = all(abs(g - math.degrees(w)) <= 1e-9 for g, w in zip(got, want))
        else:
            ok = got == want
        if not ok:
            return 'stream line %d: %s, online.csv %s' % (n, l, [r[i] for i in oq])
    return None


def ramp(online, vmax, amax):
    oh, on = rows_of(online)
    oq, oqd = cols(oh, 'q'), cols(oh, 'qd')
    vmax = [float(x) for x in vmax.split(',')]
    amax = [float(x) for x in amax.split(',')]
    states = [r[3] for r in on]
    if 'stop' not in states:
        return 'no stop rows'
    last_run = max(i for i, s in enumerate(states) if s in ('run', 'approach'))
    if not all(s == 'stop' for s in states[last_run + 1:]) or last_run == len(on) - 1:
        return 'the log does not end with stop rows after the last run row: %s' % states[last_run:last_run + 5]
    q = [[float(r[i]) for i in oq] for r in on]
    v_prev = None
    for k in range(1, len(q)):
        v = [(q[k][a] - q[k - 1][a]) / DT for a in range(len(oq))]
        for a in range(len(oq)):
            if abs(v[a]) > vmax[a] * (1 + 1e-6):
                return 'row %d axis %d: speed %.6g beyond %g' % (k, a + 1, v[a], vmax[a])
            if v_prev is not None and abs(v[a] - v_prev[a]) / DT > amax[a] * (1 + 1e-3):
                return 'row %d (%s) axis %d: acceleration %.6g beyond %g (a jump)' % (
                    k, states[k], a + 1, (v[a] - v_prev[a]) / DT, amax[a])
        v_prev = v
    if any(float(on[-1][i]) != 0 for i in oqd) or q[-1] != q[-2]:
        return 'the last row is not at rest'
    moving = sum(1 for k in range(1, len(q)) if states[k] == 'stop' and q[k] != q[k - 1])
    return None if moving > 0 else 'the stop rows never moved (no ramp: was the arm at rest?)'


def stopped(d, cause, text, vmax=None, amax=None):
    j = json.load(open(d + '/online.json'))
    r = json.load(open(d + '/report.json'))
    rows = list(csv.DictReader(open(d + '/online.csv')))
    if j['complete'] is not False or not j['stop'] or j['stop']['cause'] != cause:
        return 'online.json stop: %s' % j['stop']
    err = r['error'] or ''
    if r['verdict'] != 'error' or text not in err or 'report and trace incomplete' not in err:
        return 'report.json: verdict %s, error %r' % (r['verdict'], err)
    if len(rows) != j['written'] or j['log_dropped']:
        return 'online.csv has %d rows, %d were written' % (len(rows), j['written'])
    if j['last_cycle_written'] != max(int(x['cycle']) for x in rows):
        return 'last cycle written %d' % j['last_cycle_written']
    msg = same(d + '/trace.csv', d + '/online.csv')
    if msg is None and vmax:
        msg = ramp(d + '/online.csv', vmax, amax)
    return msg


def approach(d, vmax, amax, jmax):
    j = json.load(open(d + '/online.json'))
    a = j['approach']
    oh, on = rows_of(d + '/online.csv')
    oq, oqd = cols(oh, 'q'), cols(oh, 'qd')
    states = [r[3] for r in on]
    if not a or 'approach' not in states:
        return 'no approach: online.json %s, states %s' % (a, sorted(set(states)))
    first = states.index('approach')
    rows = [r for r in on if r[3] == 'approach']
    if states[:first] != ['prime'] * first or states[first:first + len(rows)] != ['approach'] * len(rows):
        return 'the approach rows are not the first after the prime rows'
    if len(rows) != a['setpoints'] or a['written'] != a['setpoints'] or not a['complete']:
        return '%d approach rows; online.json %s' % (len(rows), a)
    frm = [x['from'] for x in a['axes']]
    to = [x['to'] for x in a['axes']]
    if any([float(r[i]) for i in oq] != frm for r in on[:first]):
        return 'the prime rows do not hold where the axes stood, %s' % frm
    start = frm
    last = [float(rows[-1][i]) for i in oq]
    if last != to or any(float(rows[-1][i]) != 0 for i in oqd):
        return 'the approach ends at %s, not at rest at the start %s' % (last, to)
    dist = [x['distance'] for x in a['axes']]
    if any(abs(t - f - dd) > 1e-12 for t, f, dd in zip(to, frm, dist)) or any(x['unit'] != 'rad' for x in a['axes']):
        return 'online.json distances %s' % dist
    lim = [[float(x) * 0.1 for x in s.split(',')] for s in (vmax, amax, jmax)]
    q = [start] + [[float(r[i]) for i in oq] for r in rows]
    dt = j['cycle_s']
    for order in range(1, 4):
        q = [[(b[k] - p[k]) / dt for k in range(len(b))] for p, b in zip(q, q[1:])]
        for n, v in enumerate(q):
            for k, x in enumerate(v):
                if abs(x) > lim[order - 1][k] * (1 + 1e-3) + 1e-9:
                    return 'approach row %d axis %d: %s %.6g beyond 10 %% of the limit, %.6g' % (
                        n + order, k + 1, ('speed', 'acceleration', 'jerk')[order - 1], x, lim[order - 1][k])
    return None


def lag(online, tau):
    rows = list(csv.DictReader(open(online)))
    n = sum(1 for k in rows[0] if k.startswith('arm.qa'))
    for i in range(1, n + 1):
        vmax = max(abs(float(r['arm.qd%d' % i])) for r in rows)
        worst = max(abs(float(r['arm.qa%d' % i]) - float(r['arm.q%d' % i])) for r in rows)
        if worst > vmax * (float(tau) + DT) * 1.01 + 1e-12 or (vmax > 0 and worst == 0):
            return 'axis %d lags %g (max speed %g)' % (i, worst, vmax)
    return None


def micro(online):
    for r in csv.DictReader(open(online)):
        for k, v in r.items():
            if '.qa' in k and abs(float(v) * 1e6 - round(float(v) * 1e6)) > 1e-6:
                return '%s = %s is not in micro-units' % (k, v)
    return None


def speeds(online, amax):
    oh, on = rows_of(online)
    oqd = cols(oh, 'qd')
    amax = [float(x) for x in amax.split(',')]
    for k in range(1, len(on)):
        for a, i in enumerate(oqd):
            dv = abs(float(on[k][i]) - float(on[k - 1][i]))
            if dv > amax[a] * DT * 1.01 + 1e-12:
                return 'row %d axis %d: speed changed by %g in a cycle' % (k, a + 1, dv)
    return None


def drive(online, log, scale):
    oh, on = rows_of(online)
    oq = cols(oh, 'q')
    scale = float(scale)
    sp = [[int(x) for x in l.strip().split(',')[1:]] for l in open(log) if l.startswith('sp,')]
    if len(sp) != len(on) + 1:
        return '%d target lines received after the enable, online.csv has %d rows' % (len(sp) - 1, len(on))
    counts = lambda r: [round(float(r[i]) / scale) for i in oq]
    if sp[0] != counts(on[0]):
        return 'the enable wrote %s, the start is %s' % (sp[0], counts(on[0]))
    for n, (got, r) in enumerate(zip(sp[1:], on), 2):
        if got != counts(r):
            return 'online.csv line %d (cycle %s, %s): the drive received %s, the row is %s' % (
                n, r[1], r[3], got, counts(r))
    return None


def moved(log, scale, frm, to, vmax, amax, dt):
    sp = [[int(x) for x in l.strip().split(',')[1:]] for l in open(log) if l.startswith('sp,')]
    frm, to = [int(x) for x in frm.split(',')], [int(x) for x in to.split(',')]
    scale, dt = float(scale), float(dt)
    if not sp or sp[0] != frm:
        return 'the enable wrote %s, the drive stood at %s' % (sp[0] if sp else None, frm)
    if to not in sp:
        return 'the drive never received the program\'s start %s (last %s)' % (to, sp[-1])
    end = sp.index(to)
    if end == 0:
        return 'the drive did not move before the program\'s start'
    lim = [[float(x) * 0.1 * dt ** order / scale for x in s.split(',')] for order, s in ((1, vmax), (2, amax))]
    d = sp[:end + 1]
    for order in (1, 2):
        d = [[b[k] - p[k] for k in range(len(b))] for p, b in zip(d, d[1:])]
        for n, v in enumerate(d):
            for k, x in enumerate(v):
                if abs(x) > lim[order - 1][k] + order:
                    return 'target line %d axis %d: %s %d counts per cycle%s beyond 10 %% of the limit, %.3g (+%d)' % (
                        n + order + 1, k + 1, ('speed', 'acceleration')[order - 1], x, '' if order == 1 else '^2',
                        lim[order - 1][k], order)
    return None


def states(log, axes, first, last):
    seen, final = {}, {}
    for l in open(log):
        f = l.strip().split(',')
        if f[0] == 'state':
            seen.setdefault(f[1], set()).add(f[2])
            final[f[1]] = f[2]
    for a in axes.split(','):
        if first not in seen.get(a, ()) or final.get(a) != last:
            return 'axis %s: passed through %s, ended in %s (expected %s ... %s)' % (
                a, sorted(seen.get(a, ())), final.get(a), first, last)
    return None


def json_expr(path, expr):
    j = json.load(open(path))
    return None if eval(expr, {'j': j, 'abs': abs}) else '%s: %s is false' % (path, expr)


COMMANDS = {'same': same, 'stream': stream, 'ramp': ramp, 'stopped': stopped, 'lag': lag, 'micro': micro,
            'json': json_expr, 'speeds': speeds, 'approach': approach, 'drive': drive, 'states': states, 'moved': moved}


def main(argv):
    groups, cur = [], []
    for a in argv:
        if a == '+':
            groups.append(cur)
            cur = []
        else:
            cur.append(a)
    groups.append(cur)
    bad = 0
    for g in groups:
        if not g or g[0] not in COMMANDS:
            print(__doc__)
            return 2
        try:
            msg = COMMANDS[g[0]](*g[1:])
        except Exception as e:  # a missing file or column is a failure too
            msg = '%s: %r' % (type(e).__name__, e)
        if msg:
            print('%s: %s' % (' '.join(g[:2]), msg))
            bad = 1
    return bad


sys.exit(main(sys.argv[1:]))
