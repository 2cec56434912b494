"""trace_h5_check.py H5 CSV PROGRAM VERSION: the HDF5 trace read by h5py and pandas equals the CSV trace of the same
run column for column (every value, printed as the CSV prints it: the trace's significant digits, t with at
least 12, equal to the CSV's field; NaN where the CSV has nan), and carries the attributes docs/RUNNING.md lists;
its value columns are rounded as `mantissa_bits` says (the trace's digits and a guard digit, whole bytes: the low
52 - mantissa_bits bits of every finite value zero), t and line are not. Prints one summary line; exits 1 with
the reason on the first difference. Expected units come from the devices' joint types."""
import math
import sys

import h5py
import numpy as np
import pandas as pd

h5, csv, program, version = sys.argv[1:5]


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


f = h5py.File(h5, "r")
ds = f["trace"]
cols = [str(c) for c in ds.attrs["columns"]]
units = [str(u) for u in ds.attrs["units"]]
joints = [str(j) for j in ds.attrs["joints"]]
df = pd.DataFrame(ds[:], columns=cols)  # the documented way to read it
text = pd.read_csv(csv, dtype=str, keep_default_na=False)
if list(text.columns) != cols:
    fail("columns attribute %s differs from the CSV header %s" % (cols, list(text.columns)))
if len(text) != len(df) or int(f.attrs["rows"]) != len(df):
    fail("rows: h5 %d (attribute %d), CSV %d" % (len(df), int(f.attrs["rows"]), len(text)))
if len(units) != len(cols) or len(joints) != len(cols):
    fail("units/joints attributes have %d/%d entries for %d columns" % (len(units), len(joints), len(cols)))
digits = int(f.attrs["digits"])
for c in cols:
    h = df[c].to_numpy()
    if c == "line":
        got = ["%d" % v for v in h]
    else:
        got = ["nan" if np.isnan(v) else "%.*g" % (max(digits, 12) if c == "t" else digits, v) for v in h]
    want = text[c].tolist()
    if got != want:
        i = next(k for k in range(len(got)) if got[k] != want[k])
        fail("column %s row %d: h5 %r (%s), CSV %s" % (c, i, h[i], got[i], want[i]))
# the precision: the digits and a guard digit in whole mantissa bytes; the dropped bits of every value column zero
need = math.ceil((digits + 1) * math.log2(10))
mbits = int(ds.attrs["mantissa_bits"])
if mbits != (52 if need >= 52 else 52 - 8 * ((52 - need) // 8)):
    fail("mantissa_bits %d for %d digits" % (mbits, digits))
raw = ds[:].view(np.uint64)
finite = (raw & np.uint64(0x7ff << 52)) < np.uint64(0x7fe << 52)
low = raw & np.uint64((1 << (52 - mbits)) - 1)
dirty = [cols[k] for k in range(1, len(cols) - 1) if (low[:, k][finite[:, k]] != 0).any()]
if dirty:
    fail("columns with dropped bits set (mantissa_bits %d): %s" % (mbits, dirty))
if mbits < 52 and not (low[:, 0] != 0).any():
    fail("t looks rounded: it must keep every bit")
# units: time in s, axis columns by joint type, pose m and dimensionless, G-profile outputs in G and G/s
unit = dict(zip(cols, units))
# axis columns carry their joint's name (arm.q2.shoulder): look them up by their index alone too (arm.q2)
short = {".".join(c.split(".")[:2]): k for k, c in enumerate(cols) if c.count(".") == 2}
for s_, k in short.items():
    unit.setdefault(s_, units[k])
if unit["t"] != "s" or unit["line"] != "":
    fail("units of t / line: %r / %r" % (unit["t"], unit["line"]))
for name, dev in f["devices"].items():
    a = dev.attrs
    if not str(a["backend"]) or not str(a["machine_file"]):
        fail("device %s lacks backend / machine_file: %s" % (name, dict(a)))
    n = int(a["axes"])
    dj = [str(j) for j in a["joints"]]
    if len(dj) != n:
        fail("device %s: %d joint names for %d axes" % (name, len(dj), n))
    for i in range(1, n + 1):
        q = unit["%s.q%d" % (name, i)]
        if q not in ("rad", "m"):
            fail("%s.q%d unit %r" % (name, i, q))
        for k, tail in (("qd", "/s"), ("qdd", "/s^2")):
            if unit["%s.%s%d" % (name, k, i)] != q + tail:
                fail("%s.%s%d unit %r with q in %s" % (name, k, i, unit["%s.%s%d" % (name, k, i)], q))
        if unit["%s.tau%d" % (name, i)] != ("Nm" if q == "rad" else "N"):
            fail("%s.tau%d unit %r" % (name, i, unit["%s.tau%d" % (name, i)]))
        if joints[short["%s.q%d" % (name, i)]] != dj[i - 1]:
            fail("%s.q%d joint %r, device says %r" % (name, i, joints[short["%s.q%d" % (name, i)]], dj[i - 1]))
    if "%s.x" % name in unit and (unit["%s.x" % name] != "m" or unit["%s.qw" % name] != ""):
        fail("pose units of %s: %r %r" % (name, unit["%s.x" % name], unit["%s.qw" % name]))
    if "%s.G" % name in unit and (unit["%s.G" % name] != "G" or unit["%s.Gdot" % name] != "G/s"):
        fail("G units of %s: %r %r" % (name, unit["%s.G" % name], unit["%s.Gdot" % name]))
a = f.attrs
if str(a["irl_version"]) != version or str(a["program"]) != program or float(a["cycle_time"]) != 0.001:
    fail("root attributes: %s" % dict(a))
if int(a["complete"]) != 1 or "incomplete" in a or str(a["format"]) != "irl-trace 1":
    fail("complete / format: %s" % dict(a))
src = [s.decode() if isinstance(s, bytes) else s for s in f["source"][:]]
if src != open(program).read().rstrip("\n").split("\n"):
    fail("/source differs from the program's lines")
lines = set(int(x) for x in df["line"]) - {0}
if not lines or max(lines) > len(src) or not all(src[n - 1].strip() for n in lines):
    fail("line column %s does not point at source lines" % sorted(lines))
comp = ds.compression, ds.shuffle, ds.chunks
if comp[0] != "gzip" or not comp[1] or comp[2][1] != 1:
    fail("filters/chunks: %s" % (comp,))
print("%d rows x %d columns equal to the CSV at its %d digits, values kept to %d mantissa bits; units, joints, "
      "devices, source, version present" % (len(df), len(cols), digits, mbits))
