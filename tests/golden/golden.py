#!/usr/bin/env python3
"""golden.py — golden traces (tests/golden/README.md): runs one stored case's program with `irl run` and compares
its trace (trace.h5, printed as CSV by `irl trace --csv`) and report.json with the stored ones within the
tolerances of tests/golden/tolerances; --update rewrites the stored files from this run instead.

    IRL=build/release/irl python3 tests/golden/golden.py [--update] tests/golden/demo

Exit 0 when every value is within its tolerance, 1 with one line per difference (the first 25) otherwise."""
import csv
import fnmatch
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)\b")


def read_case(folder):
    """The case's `run` file: program, options, stride (key: value lines, # comments)."""
    case = {"options": "", "stride": "1"}
    with open(os.path.join(folder, "run")) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                key, _, value = line.partition(":")
                case[key.strip()] = value.strip()
    return case


def read_tolerances():
    """(kind, glob, rel, abs) rows of tests/golden/tolerances, first match wins."""
    rows = []
    with open(os.path.join(HERE, "tolerances")) as f:
        for line in f:
            fields = line.split("#", 1)[0].split()
            if fields:
                kind, glob, rel, ab = fields
                rows.append((kind, glob, float(rel), float(ab)))
    return rows


def tolerance(tols, kind, name):
    for k, glob, rel, ab in tols:
        if k == kind and fnmatch.fnmatchcase(name, glob):
            return rel, ab
    raise SystemExit(f"tests/golden/tolerances: no {kind} row matches {name!r}")


def close(a, b, rel, ab):
    """|a - b| <= abs + rel * max(|a|, |b|); nan only equals nan, an infinity only itself."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= ab + rel * max(abs(a), abs(b))


def run_irl(case, out):
    program = os.path.join(ROOT, case["program"])
    cmd = [os.environ["IRL"], "run", "--no-plots", "--no-progress", "--out", out]
    cmd += shlex.split(case["options"]) + [os.path.basename(program)]
    p = subprocess.run(cmd, cwd=os.path.dirname(program), capture_output=True, text=True, timeout=600)
    want = int(case.get("exit", "0"))
    if p.returncode != want:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}, expected {want}\n{p.stderr[-2000:]}")
    # the default trace is trace.h5; `irl trace --csv` prints it as the CSV trace, byte for byte
    with open(os.path.join(out, "trace.csv"), "w") as f:
        x = subprocess.run([os.environ["IRL"], "trace", os.path.join(out, "trace.h5"), "--csv"], stdout=f,
                           stderr=subprocess.PIPE, text=True, timeout=600)
    if x.returncode != 0:
        raise SystemExit(f"irl trace {out}/trace.h5 --csv: exit {x.returncode}\n{x.stderr[-2000:]}")


def read_trace(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], [[float(x) for x in r] for r in rows[1:]]


def summary(header, rows):
    """Per column over every row: min, max, mean, root mean square (a change between stored rows moves these)."""
    out = []
    for j, name in enumerate(header):
        col = [r[j] for r in rows]
        fin = [x for x in col if math.isfinite(x)]
        if not fin:
            out.append((name, col[0], col[0], col[0], col[0]))
            continue
        out.append((name, min(fin), max(fin), math.fsum(fin) / len(fin),
                    math.sqrt(math.fsum(x * x for x in fin) / len(fin))))
    return out


def fmt(x):
    return repr(float(x)) if math.isfinite(x) else str(x)


def update(folder, case, out):
    header, rows = read_trace(os.path.join(out, "trace.csv"))
    stride = int(case["stride"])
    keep = list(range(0, len(rows), stride))
    if keep[-1] != len(rows) - 1:
        keep.append(len(rows) - 1)
    with open(os.path.join(out, "trace.csv")) as f:
        lines = f.read().splitlines()
    with open(os.path.join(folder, "trace.csv"), "w") as f:
        f.write(lines[0] + "\n")
        for i in keep:
            f.write(lines[i + 1] + "\n")
    with open(os.path.join(folder, "summary.csv"), "w") as f:
        f.write(f"# over every row of the {len(rows)}-row trace: column;min;max;mean;rms\n")
        for name, *v in summary(header, rows):
            f.write(name + "," + ",".join(fmt(x) for x in v) + "\n")
    with open(os.path.join(out, "report.json")) as f:
        report = f.read()
    with open(os.path.join(folder, "report.json"), "w") as f:
        f.write(report)
    print(f"{folder}: {len(keep)} of {len(rows)} trace rows stored, summary.csv, report.json")


def compare_strings(a, b, rel, ab):
    """Equal text between the numbers, numbers within the tolerance (messages quote values)."""
    if NUMBER.sub("#", a) != NUMBER.sub("#", b):
        return False
    return all(close(float(x), float(y), rel, ab) for x, y in zip(NUMBER.findall(a), NUMBER.findall(b)))


def compare_json(tols, want, got, path, quantity, diffs):
    """Same structure; numbers and strings within the tolerance of their key (report rows of tolerances), keyed
    by the enclosing channel's quantity where there is one (report:position.value)."""
    key = path.rsplit(".", 1)[-1].split("[")[0]
    if isinstance(want, dict):
        if not isinstance(got, dict):
            diffs.append(f"report.json {path}: an object when stored, now {got!r}")
            return
        if set(want) != set(got):
            diffs.append(f"report.json {path or '(top)'}: keys added {sorted(set(got) - set(want))}, "
                         f"removed {sorted(set(want) - set(got))}")
        q = want.get("quantity", quantity) if isinstance(want.get("quantity"), str) else quantity
        for k in (k for k in want if k in got):
            if key in ("peak", "min", "max") and k in ("t", "file", "line", "col"):
                continue  # where an extreme was: a plateau's first cycle moves with the last bits (README)
            compare_json(tols, want[k], got[k], f"{path}.{k}", q, diffs)
    elif isinstance(want, list):
        if not isinstance(got, list) or len(want) != len(got):
            diffs.append(f"report.json {path}: {len(want)} items, now {len(got) if isinstance(got, list) else got}")
            return
        for i, (w, g) in enumerate(zip(want, got)):
            compare_json(tols, w, g, f"{path}[{i}]", quantity, diffs)
    elif isinstance(want, bool) or want is None:
        if want != got:
            diffs.append(f"report.json {path}: {want} != {got}")
    elif isinstance(want, (int, float)):
        rel, ab = tolerance(tols, "report", f"{quantity}.{key}")
        if isinstance(got, bool) or not isinstance(got, (int, float)) or not close(float(want), float(got), rel, ab):
            diffs.append(f"report.json {path}: {want!r} != {got!r} (tolerance rel {rel:g}, abs {ab:g})")
    else:
        rel, ab = tolerance(tols, "report", f"{quantity}.{key}")
        if not isinstance(got, str) or not compare_strings(want, got, rel, ab):
            diffs.append(f"report.json {path}: {want!r} != {got!r}")


def compare(folder, case, out):
    tols = read_tolerances()
    diffs = []
    want_header, want_rows = read_trace(os.path.join(folder, "trace.csv"))
    header, rows = read_trace(os.path.join(out, "trace.csv"))
    stride = int(case["stride"])
    with open(os.path.join(folder, "summary.csv")) as f:
        stored = [line.rstrip("\n").split(",") for line in f]
    stored_rows = int(re.search(r"(\d+)-row", stored[0][0]).group(1))
    stored = stored[1:]
    if header != want_header:
        diffs.append(f"trace.csv header differs:\n  stored {','.join(want_header)}\n  now    {','.join(header)}")
    elif len(rows) != stored_rows:
        diffs.append(f"trace.csv: {len(rows)} rows now, {stored_rows} when stored")
    else:
        col_tol = [tolerance(tols, "trace", name) for name in header]
        for i, want in enumerate(want_rows):
            n = min(i * stride, len(rows) - 1)
            for j, name in enumerate(header):
                if not close(want[j], rows[n][j], *col_tol[j]):
                    rel, ab = col_tol[j]
                    diffs.append(f"trace.csv row {n + 1} (t {rows[n][0]:g} s) {name}: stored {want[j]!r}, now "
                                 f"{rows[n][j]!r} (tolerance rel {rel:g}, abs {ab:g})")
        for (name, *w), (_, *g) in zip(stored, summary(header, rows)):
            rel, ab = tolerance(tols, "trace", name)
            for what, a, b in zip(("min", "max", "mean", "rms"), (float(x) for x in w), g):
                if not close(a, b, rel, ab):
                    diffs.append(f"trace.csv {name} {what} over all rows: stored {a!r}, now {b!r} "
                                 f"(tolerance rel {rel:g}, abs {ab:g})")
    with open(os.path.join(folder, "report.json")) as f:
        want = json.load(f)
    with open(os.path.join(out, "report.json")) as f:
        got = json.load(f)
    compare_json(tols, want, got, "", "", diffs)
    for d in diffs[:25]:
        print(d)
    if len(diffs) > 25:
        print(f"... and {len(diffs) - 25} more")
    return not diffs


def main():
    args = sys.argv[1:]
    do_update = "--update" in args
    args = [a for a in args if a != "--update"]
    if len(args) != 1 or "IRL" not in os.environ:
        raise SystemExit(__doc__)
    folder = os.path.abspath(args[0])
    case = read_case(folder)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        run_irl(case, out)
        if do_update:
            update(folder, case, out)
            return 0
        ok = compare(folder, case, out)
    print(f"{os.path.basename(folder)}: {'matches' if ok else 'differs from'} the stored trace and report")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
