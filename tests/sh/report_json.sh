#!/usr/bin/env bash
# report_json.sh — report.json written by runtime/output/report.c parses with python3's json module (when present),
# and its verdict and escaped program name read back as written. $BUILD is the build directory.
set -eu
bin="$BUILD/tests/test_report"
[ -x "$bin" ] || { echo "missing $bin"; exit 1; }
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
"$bin" --write "$dir"
[ -s "$dir/report.json" ] && [ -s "$dir/report.txt" ]
if ! command -v python3 >/dev/null; then
    echo "note: python3 absent, JSON checked only by test_report's own parser"; exit 0
fi
python3 - "$dir/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "error", r["verdict"]
assert r["program"] == 'dir\\we"ird\tname\x01.irl', r["program"]
assert r["violation_count"] == 1 and r["violations"][0]["quantity"] == "torque"
v = r["violations"][0]
assert v["line"] == 20 and v["limit"] == 50 and abs(v["value"] - 70) < 1e-9
assert abs(r["torque_time_scale"]["k"] - 1.5 ** 0.5) < 1e-9
PY
