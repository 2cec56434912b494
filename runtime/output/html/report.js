/* report.js — the glue of irl's report page: reads the run's data (the #irl-data JSON that report_html.c writes),
 * fills the verdict, the violations and the program text, draws the channel groups with uPlot and the tool paths
 * with three.js, and keeps one time cursor shared by all of them (window.irlReport exposes the plots, the 3-D
 * view and select(t) for the console). */
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('irl-data').textContent);
  var R = D.report || {}, S = D.series;
  /* report_html.c writes times as cycle numbers and values as levels of each channel's range (lo + k * step) */
  var T = S.k.map(function (k) { return k * S.cycle; });
  /* angles and their rates in degrees unless irl ran with --display si; report.json's numbers are SI */
  var DEG = { 'rad': 'deg', 'rad/s': 'deg/s', 'rad/s^2': 'deg/s^2', 'rad/s^3': 'deg/s^3' };
  function shown(u) { return D.display !== 'si' && DEG[u] ? { unit: DEG[u], k: 180 / Math.PI } : { unit: u, k: 1 }; }
  S.channels.forEach(function (c) {
    var s = shown(c.unit);
    c.k = s.k;
    c.unit = s.unit;
    c.v = c.v.map(function (k) { return k == null ? null : (c.lo + k * c.step) * s.k; });
  });
  S.paths.concat(S.links).forEach(function (p) {
    p.xyz = p.xyz.map(function (k, i) { return k == null ? null : p.lo[i % 3] + k * p.step; });
  });
  S.links.forEach(function (l) { l.t = l.k.map(function (k) { return k * S.cycle; }); });
  var COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22',
                '#17becf'];
  var state = { t: 0, plots: [], view: null, select: select };
  window.irlReport = state;
  var tEnd = T.length ? T[T.length - 1] : 0;

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function num(x) { return x == null ? '–' : String(Number((+x).toPrecision(6))); }
  function withUnit(x, u) { return num(x) + (u ? ' ' + u : ''); }
  function sameFile(f) {
    return f && (f === D.source.file || f.split('/').pop() === String(D.source.file).split('/').pop());
  }

  /* Header: verdict and the run's facts. */
  var verdict = R.verdict || 'unknown';
  $('verdict').textContent = verdict.toUpperCase();
  $('verdict').className = verdict;
  $('title').textContent = 'irl report: ' + (R.program || D.source.file);
  $('facts').textContent = 'duration ' + withUnit(R.duration, 's') + ', cycle ' + withUnit(R.cycle, 's') + ', ' +
    (R.cycles || 0) + ' cycles, ' + (R.violation_count || 0) + ' violation(s); plotted: ≤ ' + T.length +
    ' points per channel (min/max of ' + S.bucket_cycles + ' cycle(s) each)';

  /* Violations, each with its source line; a click moves the time cursor to its peak. */
  var viol = R.violations || [];
  var list = $('violations');
  if (R.error) list.appendChild(el('li', 'error', R.error));
  viol.forEach(function (v, i) {
    var s = shown(v.unit);
    var li = el('li', 'violation', v.file + ':' + v.line + ':' + v.col + ': ' + v.device +
      (v.axis ? ' axis ' + v.axis + (v.joint ? ' (' + v.joint + ')' : '') : '') + ' ' + v.name + ' ' +
      withUnit(v.value * s.k, s.unit) + (v.value > v.limit ? ' exceeds' : ' is below') + ' its limit ' +
      withUnit(v.limit * s.k, s.unit) + ' at t = ' +
      num(v.t_peak) + ' s (during ' + num(v.t_start) + ' .. ' + num(v.t_end) + ' s, ' + v.cycles + ' cycles)');
    li.dataset.t = v.t_peak;
    li.id = 'violation-' + i;
    li.addEventListener('click', function () { select(v.t_peak); });
    list.appendChild(li);
  });
  if (!viol.length && !R.error) list.appendChild(el('li', 'muted', 'none'));
  if (R.violations_not_listed) list.appendChild(el('li', 'muted', R.violations_not_listed + ' more not listed'));

  /* The timeline's segments: [t0, t1, line]. */
  var segs = S.timeline.segments.map(function (s, i, a) {
    return { t0: s[0], t1: i + 1 < a.length ? a[i + 1][0] : tEnd, line: s[1], file: s[2] };
  });

  /* The program text; violated lines marked; a click on a line goes to its violation, else to when it ran. */
  $('srcname').textContent = D.source.file;
  var badLines = {};
  viol.forEach(function (v) {
    if (sameFile(v.file) && !(v.line in badLines)) badLines[v.line] = v;
  });
  var srcLines = [];
  (D.source.text == null ? '(the program text could not be read)' : D.source.text).replace(/\n$/, '')
    .split('\n').forEach(function (text, i) {
      var line = i + 1, span = el('span', 'ln', text);
      if (badLines[line]) span.classList.add('bad'), span.title = 'violation at t = ' + num(badLines[line].t_peak) + ' s';
      span.addEventListener('click', function () {
        if (badLines[line]) return select(badLines[line].t_peak);
        for (var k = 0; k < segs.length; k++) if (segs[k].line === line && sameFile(segs[k].file)) return select(segs[k].t0);
      });
      srcLines.push(span);
      $('source').appendChild(span);
    });

  /* The per-statement timeline as a bar. */
  var tl = $('timeline'), tlCursor = el('div', 'tcur');
  segs.forEach(function (s) {
    if (!(tEnd > 0) || s.t1 <= s.t0) return;
    var d = el('div', null, s.line ? 'L' + s.line : '');
    d.style.left = (100 * s.t0 / tEnd) + '%';
    d.style.width = (100 * (s.t1 - s.t0) / tEnd) + '%';
    d.style.background = s.line ? COLORS[s.line % COLORS.length] : '#bbb';
    d.title = (s.line ? (s.file || '') + ':' + s.line : 'no statement') + ', ' + num(s.t0) + ' .. ' + num(s.t1) + ' s';
    d.addEventListener('click', function () { select(s.t0); });
    tl.appendChild(d);
  });
  if (S.timeline.not_listed) $('timeline').title = S.timeline.not_listed + ' later statements not shown';
  tl.appendChild(tlCursor);

  /* Channel groups: one plot per device, quantity and unit. */
  var groups = [], byKey = {};
  S.channels.forEach(function (c) {
    var key = c.device + '\u0000' + c.quantity + '\u0000' + c.unit;
    if (!byKey[key]) groups.push(byKey[key] = { device: c.device, quantity: c.quantity, unit: c.unit, ch: [] });
    byKey[key].ch.push(c);
  });
  function reportChannel(c) {
    var dev = (R.devices || []).filter(function (d) { return d.name === c.device; })[0];
    return dev && (dev.channels || []).filter(function (r) {
      return c.quantity === 'output' ? r.quantity === 'output' && r.name === c.name
        : (r.quantity === c.quantity || r.name === c.quantity) && (r.axis || 0) === (c.axis || 0);
    })[0];
  }
  var syncing = false;
  function drawMarks(g) {
    return function (u) {
      var ctx = u.ctx, b = u.bbox, x0 = u.scales.x.min, x1 = u.scales.x.max, y0 = u.scales.y.min, y1 = u.scales.y.max;
      ctx.save();
      ctx.beginPath(); ctx.rect(b.left, b.top, b.width, b.height); ctx.clip();
      g.viol.forEach(function (v) {
        if (v.t_end < x0 || v.t_start > x1) return;
        var a = u.valToPos(v.t_start, 'x', true), e = u.valToPos(v.t_end, 'x', true);
        ctx.fillStyle = 'rgba(220,0,0,0.18)';
        ctx.fillRect(a - 1, b.top, Math.max(e - a, 0) + 2, b.height);
      });
      ctx.setLineDash([6, 4]);
      g.ch.forEach(function (c, i) {
        [c.lim && c.lim.limit_min, c.lim && c.lim.limit_max].forEach(function (l) {
          if (l != null) l *= c.k;
          if (l == null || !(l >= y0 && l <= y1)) return;
          var y = u.valToPos(l, 'y', true);
          ctx.strokeStyle = COLORS[i % COLORS.length];
          ctx.beginPath(); ctx.moveTo(b.left, y); ctx.lineTo(b.left + b.width, y); ctx.stroke();
        });
      });
      ctx.setLineDash([]);
      if (state.t >= x0 && state.t <= x1) {
        var x = u.valToPos(state.t, 'x', true);
        ctx.strokeStyle = '#c00'; ctx.lineWidth = 2;
        ctx.beginPath(); ctx.moveTo(x, b.top); ctx.lineTo(x, b.top + b.height); ctx.stroke();
      }
      ctx.restore();
    };
  }
  function syncX(u, key) {
    if (key !== 'x' || syncing) return;
    syncing = true;
    state.plots.forEach(function (p) {
      if (p !== u) p.setScale('x', { min: u.scales.x.min, max: u.scales.x.max });
    });
    syncing = false;
  }
  var plotsDiv = $('plots');
  var width = Math.max(400, plotsDiv.clientWidth || 800);
  groups.forEach(function (g) {
    g.ch.forEach(function (c) { c.lim = reportChannel(c); });
    g.viol = viol.filter(function (v) {
      return v.device === g.device && (v.quantity === g.quantity || v.name === g.quantity) &&
        g.ch.some(function (c) {
          return (c.axis || 0) === (v.axis || 0) && (c.quantity !== 'output' || c.name === v.name);
        });
    });
    var box = el('div', 'plot'), title = el('div');
    title.appendChild(el('span', 'ptitle', g.device + ' ' + g.quantity + (g.unit ? ' (' + g.unit + ')' : '')));
    var lims = g.ch.filter(function (c) { return c.lim && (c.lim.limit_min != null || c.lim.limit_max != null); })
      .map(function (c) {
        return c.name + ' ' + num(c.lim.limit_min == null ? null : c.k * c.lim.limit_min) + ' .. ' +
          num(c.lim.limit_max == null ? null : c.k * c.lim.limit_max);
      });
    if (lims.length) title.appendChild(el('span', 'plimits', 'limits: ' + lims.join(', ') + ' ' + g.unit));
    box.appendChild(title);
    plotsDiv.appendChild(box);
    var opts = {
      width: width, height: 170,
      scales: { x: { time: false } },
      series: [{ label: 't (s)' }].concat(g.ch.map(function (c, i) {
        return { label: c.name, stroke: COLORS[i % COLORS.length], width: 1, spanGaps: false };
      })),
      axes: [{ label: 't (s)' }, { label: g.unit || '', size: 60 }],
      cursor: { sync: { key: 'irl' }, drag: { x: true, y: false } },
      hooks: { draw: [drawMarks(g)], setScale: [syncX] }
    };
    var u = new uPlot(opts, [T].concat(g.ch.map(function (c) { return c.v; })), box);
    u.irlGroup = g.device + ' ' + g.quantity;
    state.plots.push(u);
  });
  window.addEventListener('resize', function () {
    var w = Math.max(400, plotsDiv.clientWidth || 800);
    state.plots.forEach(function (u) { u.setSize({ width: w, height: 170 }); });
  });

  /* The 3-D view: each device's tool path, its violations' places, and the cursor's place. */
  var pathTimes = S.bucket_cycles > 1 ? T.filter(function (_, i) { return i % 2 === 0; }) : T;
  function poseAt(p, t) {
    var n = pathTimes.length, lo = 0, hi = n - 1;
    if (!n) return null;
    if (t <= pathTimes[0]) hi = 0;
    else if (t >= pathTimes[n - 1]) lo = hi = n - 1;
    while (hi - lo > 1) { var m = (lo + hi) >> 1; if (pathTimes[m] <= t) lo = m; else hi = m; }
    var f = hi > lo ? (t - pathTimes[lo]) / (pathTimes[hi] - pathTimes[lo]) : 0, r = [];
    for (var k = 0; k < 3; k++) r.push((1 - f) * p.xyz[3 * lo + k] + f * p.xyz[3 * hi + k]);
    return r;
  }
  function view3d() {
    var box = $('view3d');
    if (!S.paths.length) { box.appendChild(el('p', 'muted', 'No device has a tool pose.')); return null; }
    var renderer;
    try {
      renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    } catch (e) {
      box.appendChild(el('p', 'muted', 'No WebGL in this browser: ' + e.message));
      return null;
    }
    var w = box.clientWidth || 600, h = box.clientHeight || 360;
    renderer.setSize(w, h);
    renderer.setClearColor(0xffffff);
    box.appendChild(renderer.domElement);
    var scene = new THREE.Scene(), bb = new THREE.Box3(), markers = [];
    S.paths.forEach(function (p, i) {
      var pts = [];
      for (var k = 0; k + 2 < p.xyz.length; k += 3)
        if (p.xyz[k] != null && p.xyz[k + 1] != null && p.xyz[k + 2] != null)
          pts.push(new THREE.Vector3(p.xyz[k], p.xyz[k + 1], p.xyz[k + 2]));
      pts.forEach(function (v) { bb.expandByPoint(v); });
      var geo = new THREE.BufferGeometry().setFromPoints(pts);
      scene.add(new THREE.Line(geo, new THREE.LineBasicMaterial({ color: COLORS[i % COLORS.length] })));
      p.color = COLORS[i % COLORS.length];
    });
    /* the links, from the model's FK at the poses report_html.c kept: base, each link's frame, tool */
    var arms = S.links.map(function (l) {
      var pos = new Float32Array(l.frames * 3), geo = new THREE.BufferGeometry();
      geo.setAttribute('position', new THREE.BufferAttribute(pos, 3));
      for (var k = 0; k < l.xyz.length; k += 3)
        if (l.xyz[k] != null) bb.expandByPoint(new THREE.Vector3(l.xyz[k], l.xyz[k + 1], l.xyz[k + 2]));
      scene.add(new THREE.Line(geo, new THREE.LineBasicMaterial({ color: 0x444444 })));
      scene.add(new THREE.Points(geo, new THREE.PointsMaterial({ color: 0x444444, size: 6, sizeAttenuation: false })));
      return { links: l, pos: pos, geo: geo };
    });
    if (bb.isEmpty()) bb.expandByPoint(new THREE.Vector3());
    var size = bb.getSize(new THREE.Vector3()).length() || 1;
    var center = bb.getCenter(new THREE.Vector3());
    var ball = function (color, r) {
      return new THREE.Mesh(new THREE.SphereBufferGeometry(r, 16, 12), new THREE.MeshBasicMaterial({ color: color }));
    };
    viol.forEach(function (v) {
      S.paths.forEach(function (p) {
        var at = p.device === v.device && poseAt(p, v.t_peak);
        if (!at) return;
        var m = ball(0xdd0000, size * 0.012);
        m.position.set(at[0], at[1], at[2]);
        scene.add(m);
      });
    });
    S.paths.forEach(function (p) {
      var m = ball(0x000000, size * 0.018);
      scene.add(m);
      markers.push({ path: p, mesh: m });
    });
    var axes = new THREE.AxesHelper(size * 0.15);
    scene.add(axes);
    var grid = new THREE.GridHelper(size * 2, 20, 0xcccccc, 0xe8e8e8);
    grid.rotation.x = Math.PI / 2;
    grid.position.set(center.x, center.y, bb.min.z);
    scene.add(grid);
    var camera = new THREE.PerspectiveCamera(45, w / h, size * 1e-3, size * 100);
    camera.up.set(0, 0, 1);
    camera.position.set(center.x + size, center.y - 1.5 * size, center.z + size);
    var controls = new THREE.OrbitControls(camera, renderer.domElement);
    controls.target.copy(center);
    controls.update();
    var render = function () { renderer.render(scene, camera); };
    controls.addEventListener('change', render);
    return {
      renderer: renderer, scene: scene, camera: camera, render: render, arms: arms,
      moveTo: function (t) {
        markers.forEach(function (m) {
          var at = poseAt(m.path, t);
          if (at) m.mesh.position.set(at[0], at[1], at[2]);
        });
        arms.forEach(function (a) {
          var lt = a.links.t, i = 0;
          while (i + 1 < lt.length && lt[i + 1] <= t) i++;
          for (var k = 0; k < a.pos.length; k++) a.pos[k] = a.links.xyz[i * a.pos.length + k] || 0;
          a.geo.attributes.position.needsUpdate = true;
          a.geo.computeBoundingSphere();
        });
        render();
      },
      /* pixels that are not the background (for a check that the view drew) */
      inkPixels: function () {
        render();
        var gl = renderer.getContext(), W = gl.drawingBufferWidth, H = gl.drawingBufferHeight;
        var px = new Uint8Array(W * H * 4), n = 0;
        gl.readPixels(0, 0, W, H, gl.RGBA, gl.UNSIGNED_BYTE, px);
        for (var i = 0; i < px.length; i += 4) if (px[i] < 250 || px[i + 1] < 250 || px[i + 2] < 250) n++;
        return n;
      }
    };
  }
  state.view = view3d();

  /* The shared time cursor. */
  var scrub = $('scrub');
  scrub.max = tEnd || 1;
  scrub.addEventListener('input', function () { select(+scrub.value); });
  function select(t) {
    state.t = t;
    scrub.value = t;
    $('cursor-t').textContent = num(t) + ' s';
    state.plots.forEach(function (u) {
      var x0 = u.scales.x.min, x1 = u.scales.x.max;
      if (!(t >= x0 && t <= x1)) {
        var half = (x1 - x0) / 2;
        syncing = true;
        u.setScale('x', { min: t - half, max: t + half });
        syncing = false;
      }
      u.setCursor({ left: u.valToPos(t, 'x'), top: u.bbox.height / (2 * devicePixelRatio) });
      u.redraw(false);
    });
    if (tEnd > 0) tlCursor.style.left = (100 * t / tEnd) + '%';
    var line = 0;
    segs.forEach(function (s) { if (s.t0 <= t && sameFile(s.file)) line = s.line; });
    srcLines.forEach(function (s, i) { s.classList.toggle('cur', i + 1 === line); });
    if (state.view) state.view.moveTo(t);
    var u0 = state.plots[0];
    document.body.dataset.cursorT = u0 ? u0.posToVal(u0.cursor.left, 'x') : t;
  }
  window.addEventListener('load', function () { select(0); });
})();
