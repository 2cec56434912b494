#!/usr/bin/env bash
# tests/sh/report_html.sh: report.html (runtime/output/report_html.c) opened in headless Chromium, offline.
#   For programs/torque_violation.irl (a failing run), programs/demo.irl (a passing one) and
#   programs/stewart_stroke_violation.irl (model outputs, another back-end): the page has no <link>/<script src>
#   (self-contained), loads without an error or console.error, draws every channel group (each uPlot canvas holds
#   pixels of its first series' colour) and the 3-D view (non-background WebGL pixels, software WebGL); for the
#   failing runs a click on the first violation and one on a marked program line move the shared time cursor (read
#   back from uPlot's own cursor) to that violation's time, and the links drawn in the 3-D view move to the model's
#   FK at that time (the chain run must have them). The page sizes are printed.
# Skips (exit 0, saying why) only when chromium is absent and cannot be installed. Needs $IRL.
# Not under sanitizers: what runs here is Chromium on a page irl wrote; irl's page writer runs under ASan + UBSan in
# every language test of programs/*.irl (--out-temp writes report.html), for every back-end.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
IRL=${IRL:-$root/build/release/irl}

if ! command -v chromium >/dev/null; then
    [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium \
        >/dev/null 2>&1
    command -v chromium >/dev/null || { echo "SKIP: chromium is not installed and could not be installed"; exit 0; }
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Recorded first in the page: every error and console.error, into window.irlErrors.
probe_head='<script>window.irlErrors=[];window.addEventListener("error",function(e){irlErrors.push("error: "+e.message)});
(function(){var ce=console.error;console.error=function(){irlErrors.push("console.error: "+Array.prototype.join.call(arguments," "));ce.apply(console,arguments)}})();</script>'
# Run last: what the page drew, then the clicks; the results as JSON in <pre id="irl-test">.
probe_tail='<script>window.addEventListener("load",function(){setTimeout(function(){var o={};try{
var R=window.irlReport;o.plots=R.plots.length;o.blank=[];
R.plots.forEach(function(u){var c=u.ctx.canvas,d=u.ctx.getImageData(0,0,c.width,c.height).data,n=0;
for(var i=0;i<d.length;i+=4)if(d[i+3]>200&&Math.max(d[i],d[i+1],d[i+2])-Math.min(d[i],d[i+1],d[i+2])>60)n++;
var finite=u.data.slice(1).some(function(s){return s.some(function(x){return x!=null&&isFinite(x)})});
if(n<20||!finite)o.blank.push(u.irlGroup)});
o.ink3d=R.view?R.view.inkPixels():-1;o.t0=+document.body.dataset.cursorT;
var v=document.querySelector("#violations li.violation");o.violation_t=v?+v.dataset.t:null;
var arm=function(){return R.view&&R.view.arms.length?Array.from(R.view.arms[0].pos):null};o.arm_t0=arm();
if(v){v.click();o.cursor_after_violation=+document.body.dataset.cursorT;o.arm_tv=arm();
o.cursor_idx_t=R.plots[0].data[0][R.plots[0].cursor.idx];R.select(0);}
var b=document.querySelector("#source .bad");o.marked_lines=document.querySelectorAll("#source .bad").length;
if(b){b.click();o.cursor_after_line=+document.body.dataset.cursorT;}
var u=R.plots[0];o.span=u?u.scales.x.max-u.scales.x.min:0;o.width=u?u.bbox.width/devicePixelRatio:0;
}catch(e){irlErrors.push("probe: "+e)}o.errors=irlErrors;var p=document.createElement("pre");p.id="irl-test";
p.textContent=JSON.stringify(o);document.body.appendChild(p)},200)});</script>'

check_page() { # $1 program, $2 1 = it has violations
    local prog=$1 viol=$2 name out page
    name=$(basename "$prog" .irl)
    out="$tmp/$name"
    (cd "$root" && "$IRL" run "$prog" --out "$out" --no-plots >"$tmp/$name.log" 2>&1)
    page="$out/report.html"
    [ -s "$page" ] || { fail "$name: no report.html"; return; }
    echo "$name: report.html $(stat -c %s "$page") bytes"
    grep -Eq '<script[^>]* src=|<link[^>]* href=' "$page" && fail "$name: the page loads a file (not self-contained)"
    { sed -n '1,/<head>/p' "$page" | sed '$d'; echo '<head>'; echo "$probe_head";
      sed '1,/<head>/d' "$page" | sed 's|</body>|'"$(printf '%s' "$probe_tail" | tr '\n' ' ' | sed 's/[&|]/\\&/g')"'</body>|'; } \
        >"$tmp/$name.html"
    timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
        --enable-unsafe-swiftshader --use-angle=swiftshader --host-resolver-rules="MAP * ~NOTFOUND" \
        --window-size=1400,1200 --virtual-time-budget=20000 --dump-dom "file://$tmp/$name.html" \
        >"$tmp/$name.dom" 2>"$tmp/$name.chrome.log"
    local json
    json=$(sed -n 's|.*<pre id="irl-test">\(.*\)</pre>.*|\1|p' "$tmp/$name.dom" | sed 's/&quot;/"/g; s/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g')
    [ -n "$json" ] || { fail "$name: the probe did not run (chromium log: $(tail -3 "$tmp/$name.chrome.log"))"; return; }
    echo "$name: $json"
    python3 - "$name" "$viol" "$json" "$page" <<'EOF' || fails=$((fails + 1))
import json, re, sys
name, viol, o = sys.argv[1], sys.argv[2] == "1", json.loads(sys.argv[3])
data = json.loads(re.search(r'<script type="application/json" id="irl-data">\n(.*?)</script>',
                            open(sys.argv[4], encoding="utf-8").read(), re.S).group(1))
groups = {(c["device"], c["quantity"], c["unit"]) for c in data["series"]["channels"]}
bad = []
if o["errors"]: bad.append("errors: %s" % o["errors"])
if o["plots"] != len(groups) or not groups: bad.append("%d plots for %d channel groups" % (o["plots"], len(groups)))
if o["blank"]: bad.append("plots without their series drawn: %s" % o["blank"])
if data["series"]["paths"] and not o["ink3d"] > 500: bad.append("3-D view blank (%s pixels)" % o["ink3d"])
if not data["series"]["paths"]: bad.append("no tool path in the data")
tol = 2 * o.get("span", 0) / max(o.get("width", 0), 1)  # a cursor is placed to the pixel
if viol:
    t = o["violation_t"]
    if t is None or not t > 0: bad.append("no violation listed")
    elif o["t0"] is None or abs(o["t0"]) > tol: bad.append("cursor not at 0 before the click: %s" % o["t0"])
    else:
        if abs(o.get("cursor_idx_t", -1) - t) > tol:
            bad.append("violation click: uPlot's cursor on the sample at %s s, expected %s" % (o.get("cursor_idx_t"), t))
        if abs(o.get("cursor_after_violation", -1) - t) > tol:
            bad.append("violation click: cursor %s, expected %s (+- %g s)" % (o.get("cursor_after_violation"), t, tol))
        if not o["marked_lines"]: bad.append("no program line marked")
        elif abs(o.get("cursor_after_line", -1) - t) > tol:
            bad.append("marked-line click: cursor %s, expected %s" % (o.get("cursor_after_line"), t))
        links = data["series"]["links"]
        if links and o.get("arm_tv"):  # the drawn links are the model's FK at the last kept pose before t
            l = links[0]
            i = max(j for j, k in enumerate(l["k"]) if k * data["series"]["cycle"] <= t + 1e-12)
            n = 3 * l["frames"]
            want = [l["lo"][j % 3] + l["xyz"][i * n + j] * l["step"] for j in range(n)]
            if max(abs(a - b) for a, b in zip(want, o["arm_tv"])) > 1e-4 or o["arm_tv"] == o["arm_t0"]:
                bad.append("links at the violation: drawn %s, FK %s" % (o["arm_tv"], want))
    if name == "torque_violation" and not data["series"]["links"]: bad.append("no links for the chain")
    pts = [len(c["v"]) for c in data["series"]["channels"]]
    if max(pts) > 4000 or len(data["series"]["k"]) != pts[0]: bad.append("series lengths %s" % sorted(set(pts)))
for b in bad: print("FAIL: %s: %s" % (name, b))
sys.exit(1 if bad else 0)
EOF
}

check_page programs/torque_violation.irl 1
check_page programs/demo.irl 0
check_page programs/stewart_stroke_violation.irl 1
[ $fails = 0 ] && echo "report_html: all checks passed"
exit $((fails > 0))
