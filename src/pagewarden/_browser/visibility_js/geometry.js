// pagewarden visibility snapshot, part: geometry (the document's extent, boxes, transforms, clips).
// Concatenated after setup.js; see there.
  // ---- geometry --------------------------------------------------------------------
  // Geometry of the document, in document coordinates.
  const vw = win.innerWidth;
  const vh = win.innerHeight;
  const sx = win.scrollX;
  const sy = win.scrollY;
  const body = doc.body;
  const docW = Math.max(root.scrollWidth, body ? body.scrollWidth : 0, vw);
  const docH = Math.max(root.scrollHeight, body ? body.scrollHeight : 0, vh);
  const rtl = win.getComputedStyle(root).direction === "rtl";
  // In right-to-left documents the horizontal scroll range extends to the left.
  const minX = rtl ? vw - docW : 0;
  const maxX = rtl ? vw : docW;

  function offscreen(r) {
    return r.right + sx <= minX || r.left + sx >= maxX || r.bottom + sy <= 0 || r.top + sy >= docH ||
      (rtl ? r.right + sx <= -FAR_PX : r.left + sx >= vw + FAR_PX);
  }
  function intersects(r, c) {
    return r.left < c.right && r.right > c.left && r.top < c.bottom && r.bottom > c.top;
  }
  function lengthPx(v, basis) {
    v = v.trim();
    if (v.endsWith("%")) return (parseFloat(v) / 100) * basis;
    const n = parseFloat(v);
    return isNaN(n) ? 0 : n;
  }
  function filterOpacity(filter) {
    if (!filter || filter === "none") return 1;
    let f = 1;
    const re = /opacity\(\s*([\d.]+)(%?)\s*\)/g;
    let m;
    while ((m = re.exec(filter)) !== null) {
      f *= m[2] === "%" ? parseFloat(m[1]) / 100 : parseFloat(m[1]);
    }
    return f;
  }
  function transformScale(cs) {
    let s = 1;
    const t = cs.transform;
    if (t && t !== "none") {
      const nums = t.slice(t.indexOf("(") + 1, -1).split(",").map(parseFloat);
      // The projected x and y axes: a 90 degree rotateX() collapses y to zero too.
      if (t.startsWith("matrix3d") && nums.length === 16) {
        s *= Math.min(Math.hypot(nums[0], nums[1]), Math.hypot(nums[4], nums[5]));
      } else if (nums.length === 6) {
        s *= Math.min(Math.hypot(nums[0], nums[1]), Math.hypot(nums[2], nums[3]));
      }
    }
    const sc = cs.scale;
    if (sc && sc !== "none") {
      const v = sc.split(/\s+/).map(parseFloat);
      s *= Math.min(Math.abs(v[0]), v.length > 1 ? Math.abs(v[1]) : Math.abs(v[0]));
    }
    return isNaN(s) ? 1 : s;
  }
  // Whether clip / clip-path leave at most SIZE_MIN_PX of the box.
  function clippedAway(cs, rectOf) {
    const pos = cs.position;
    if ((pos === "absolute" || pos === "fixed") && cs.clip && cs.clip.startsWith("rect(")) {
      const v = cs.clip.slice(5, -1).split(/[\s,]+/);
      if (v.length === 4) {
        const r = rectOf();
        const top = v[0] === "auto" ? 0 : parseFloat(v[0]);
        const right = v[1] === "auto" ? r.width : parseFloat(v[1]);
        const bottom = v[2] === "auto" ? r.height : parseFloat(v[2]);
        const left = v[3] === "auto" ? 0 : parseFloat(v[3]);
        if (right - left <= SIZE_MIN_PX || bottom - top <= SIZE_MIN_PX) return true;
      }
    }
    const cp = cs.clipPath;
    if (!cp || cp === "none") return false;
    const m = /^(inset|circle|ellipse|polygon|xywh|rect)\((.*)\)/.exec(cp);
    if (!m) return false;
    const kind = m[1];
    const args = m[2].split(/\s+at\s+|\s+round\s+/)[0];
    const r = rectOf();
    if (kind === "inset") {
      const v = args.trim().split(/\s+/);
      const t = v[0];
      const rt = v.length > 1 ? v[1] : t;
      const b = v.length > 2 ? v[2] : t;
      const l = v.length > 3 ? v[3] : rt;
      return r.width - lengthPx(l, r.width) - lengthPx(rt, r.width) <= SIZE_MIN_PX ||
        r.height - lengthPx(t, r.height) - lengthPx(b, r.height) <= SIZE_MIN_PX;
    }
    if (kind === "circle") {
      const v = args.trim();
      if (v === "" || /^(closest|farthest)/.test(v)) return false;
      return lengthPx(v, Math.hypot(r.width, r.height) / Math.SQRT2) <= SIZE_MIN_PX / 2;
    }
    if (kind === "ellipse") {
      const v = args.trim().split(/\s+/);
      if (v[0] === "" || /^(closest|farthest)/.test(v[0])) return false;
      return lengthPx(v[0], r.width) <= SIZE_MIN_PX / 2 ||
        (v.length > 1 && !/^(closest|farthest)/.test(v[1]) && lengthPx(v[1], r.height) <= SIZE_MIN_PX / 2);
    }
    if (kind === "xywh") {
      const v = args.trim().split(/\s+/);
      return v.length >= 4 && (lengthPx(v[2], r.width) <= SIZE_MIN_PX || lengthPx(v[3], r.height) <= SIZE_MIN_PX);
    }
    if (kind === "rect") {
      const v = args.trim().split(/\s+/);
      if (v.length < 4) return false;
      const top = v[0] === "auto" ? 0 : lengthPx(v[0], r.height);
      const right = v[1] === "auto" ? r.width : lengthPx(v[1], r.width);
      const bottom = v[2] === "auto" ? r.height : lengthPx(v[2], r.height);
      const left = v[3] === "auto" ? 0 : lengthPx(v[3], r.width);
      return right - left <= SIZE_MIN_PX || bottom - top <= SIZE_MIN_PX;
    }
    // polygon: the bounding box of its points.
    const pts = args.replace(/^\s*(nonzero|evenodd)\s*,/, "").split(",");
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const p of pts) {
      const xy = p.trim().split(/\s+/);
      if (xy.length < 2) return false;
      const x = lengthPx(xy[0], r.width);
      const y = lengthPx(xy[1], r.height);
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
    }
    return x1 - x0 <= SIZE_MIN_PX || y1 - y0 <= SIZE_MIN_PX;
  }

