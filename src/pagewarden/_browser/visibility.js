// pagewarden visibility snapshot.
//
// Evaluated by visibility.py with CDP Runtime.evaluate inside an isolated
// world (Page.createIsolatedWorld). The isolated world shares the DOM and the
// layout with the page but has its own globals and prototypes, so a page that
// replaces getComputedStyle, getBoundingClientRect, Node.prototype getters or
// Array/JSON builtins in its main world changes nothing here.
//
// The expression is `(<this function>)(options)`. It walks the document once
// (explicit stack: a deep DOM cannot overflow the JS stack), judges every text
// node, and builds a serialized copy of the DOM as a string. The live DOM is
// never modified. Elements judged hidden carry data-pagewarden-hidden="<reason>";
// hidden text inside an element that also shows visible content is wrapped in
// <span data-pagewarden-hidden="<reason>">. Open shadow roots are inlined in
// their host inside <div data-pagewarden-shadow-root="open"> (a <span> when the
// host is a <p> or heading, so an HTML parser does not close the host early).
//
// Thresholds (documented in visibility.py, keep both in sync):
//   cumulative opacity (element opacity x filter:opacity(), ancestors multiply) < 0.1
//   cumulative transform scale (ancestors multiply) <= 0.01
//   effective font size (font-size x cumulative scale) < 4 CSS px
//   text fill alpha < 0.1 (unless a visible stroke or a contrasting text-shadow shows it)
//   WCAG contrast ratio between text colour and effective background < 1.5
//   boxes <= 1 px with overflow other than visible; clip/clip-path leaving <= 1 px
//   off-screen: entirely at negative document coordinates, beyond the scrollable
//     area, or starting more than 3000 px beyond the viewport's far edge
//   text-indent <= -999 px with the text off-screen
(function pagewardenSnapshot(options) {
  "use strict";

  const OPACITY_MIN = 0.1;
  const SCALE_MIN = 0.01;
  const FONT_MIN_PX = 4;
  const ALPHA_MIN = 0.1;
  const CONTRAST_MIN = 1.5;
  const SIZE_MIN_PX = 1;
  const FAR_PX = 3000;
  const INDENT_PX = -999;
  const TIME_CHECK_EVERY = 256;

  const maxNodes = options.maxNodes;
  const maxChars = options.maxChars;
  const maxDepth = options.maxDepth;
  const deadline = performance.now() + options.timeoutMs;

  const VOID = new Set([
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param",
    "source", "track", "wbr",
  ]);
  // Never rendered as page text, and read by the guard as their own kind of
  // location (metadata, template, script/style): serialized as they are,
  // never judged, never marked. Everything else is judged, so fallback
  // content that is not rendered (canvas, iframe, video...) gets no box and
  // is marked zero_size rather than passing for visible text.
  const NOT_RENDERED = new Set([
    "head", "script", "style", "noscript", "template", "title", "meta", "link", "base",
  ]);
  const JS_TYPES = new Set([
    "", "module", "text/javascript", "application/javascript", "text/ecmascript", "application/ecmascript",
    "application/x-javascript", "application/x-ecmascript", "text/x-javascript", "text/x-ecmascript",
    "text/jscript", "text/livescript", "text/javascript1.0", "text/javascript1.1", "text/javascript1.2",
    "text/javascript1.3", "text/javascript1.4", "text/javascript1.5",
  ]);
  const PHRASING_HOSTS = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "span"]);
  const NAME_OK = /^[A-Za-z][^\s\/>"'=<\u0000-\u001f]*$/;
  const ATTR_OK = /^[^\s\/>"'=<\u0000-\u001f]+$/;
  const MARK = "data-pagewarden-";
  const SVG_NS = "http://www.w3.org/2000/svg";
  const WHITE = { r: 255, g: 255, b: 255, a: 1 };

  const win = window;
  const doc = document;
  const root = doc.documentElement;
  if (!root) {
    return { hasDocument: false, html: "", nodeCount: 0, hiddenCount: 0, visibleTextChars: 0, textChars: 0,
             stopped: null, reasons: {} };
  }

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

  // ---- output -----------------------------------------------------------------
  const parts = [];
  let outLen = 0;
  let stopped = null;
  let nodeCount = 0;
  let hiddenCount = 0;
  let visibleTextChars = 0;
  let textChars = 0;
  const reasons = Object.create(null);

  function emit(s) {
    parts.push(s);
    outLen += s.length;
    if (outLen > maxChars && stopped === null) stopped = "chars";
    return parts.length - 1;
  }
  function countReason(r) {
    hiddenCount += 1;
    reasons[r] = (reasons[r] || 0) + 1;
  }
  function escText(s) {
    return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }
  function escAttr(s) {
    return s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }
  // Raw text (style, data scripts): an end tag inside it would let page text
  // escape into the serialized markup as if it were visible content.
  function escRaw(s) {
    return s.replace(/<\//g, "<\\/");
  }
  // A comment's data may contain "-->" (DOM APIs allow it); neutralise every
  // way of ending a comment early.
  function escComment(s) {
    let t = s.replace(/--!?>/g, (m) => m.slice(0, -1) + " >");
    if (t.startsWith(">") || t.startsWith("->")) t = " " + t;
    if (t.endsWith("-")) t = t + " ";
    return t;
  }
  function openTag(el, name, extra) {
    let s = "<" + name;
    const attrs = el.attributes;
    for (let i = 0; i < attrs.length; i++) {
      const a = attrs[i];
      const n = a.name;
      // Markers are ours alone: a page cannot forge or pre-set them.
      if (!ATTR_OK.test(n) || n.toLowerCase().startsWith(MARK)) continue;
      s += " " + n + '="' + escAttr(a.value) + '"';
    }
    if (extra) s += ' ' + MARK + 'hidden="' + extra + '"';
    return s + ">";
  }

  // ---- colours ---------------------------------------------------------------------
  const colourCache = new Map();
  let canvasCtx = null;
  function parseColour(str) {
    const cached = colourCache.get(str);
    if (cached !== undefined) return cached;
    let c = null;
    const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,\/]\s*([\d.]+)(%?))?\s*\)$/.exec(str);
    if (m) {
      let a = m[4] === undefined ? 1 : parseFloat(m[4]);
      if (m[5] === "%") a /= 100;
      c = { r: +m[1], g: +m[2], b: +m[3], a: a };
    } else if (str === "transparent") {
      c = { r: 0, g: 0, b: 0, a: 0 };
    } else {
      // Colour spaces other than legacy rgb (oklch(), color(), ...): let the
      // canvas convert one pixel to sRGB.
      try {
        if (canvasCtx === null) {
          canvasCtx = new OffscreenCanvas(1, 1).getContext("2d", { willReadFrequently: true });
        }
        canvasCtx.clearRect(0, 0, 1, 1);
        canvasCtx.fillStyle = "rgba(0, 0, 0, 0)";
        canvasCtx.fillStyle = str;
        canvasCtx.fillRect(0, 0, 1, 1);
        const d = canvasCtx.getImageData(0, 0, 1, 1).data;
        c = { r: d[0], g: d[1], b: d[2], a: d[3] / 255 };
      } catch (e) {
        c = null;
      }
    }
    colourCache.set(str, c);
    return c;
  }
  function over(top, bottom) {
    const a = top.a + bottom.a * (1 - top.a);
    if (a <= 0) return { r: 0, g: 0, b: 0, a: 0 };
    return {
      r: (top.r * top.a + bottom.r * bottom.a * (1 - top.a)) / a,
      g: (top.g * top.a + bottom.g * bottom.a * (1 - top.a)) / a,
      b: (top.b * top.a + bottom.b * bottom.a * (1 - top.a)) / a,
      a: a,
    };
  }
  function channel(v) {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
  }
  function luminance(c) {
    return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  }
  function contrast(x, y) {
    const lx = luminance(x);
    const ly = luminance(y);
    return (Math.max(lx, ly) + 0.05) / (Math.min(lx, ly) + 0.05);
  }

  // ---- geometry --------------------------------------------------------------------
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

  // ---- judging ----------------------------------------------------------------------
  // Reasons that hold for a whole subtree: a descendant cannot undo them.
  function elementReason(el, cs, frame, parent) {
    if (el.hasAttribute("hidden")) return "hidden_attribute";
    const aria = el.getAttribute("aria-hidden");
    if (aria !== null && aria.trim().toLowerCase() === "true") return "aria_hidden";
    if (el.hasAttribute("inert")) return "inert";
    const display = cs.display;
    if (display === "none") return "display_none";
    if (cs.contentVisibility === "hidden") return "content_visibility";
    const own = parseFloat(cs.opacity);
    const fo = filterOpacity(cs.filter);
    frame.opacity = parent.opacity * (isNaN(own) ? 1 : own) * fo;
    if (frame.opacity < OPACITY_MIN) {
      return parent.opacity * (isNaN(own) ? 1 : own) < OPACITY_MIN ? "opacity" : "filter_opacity";
    }
    frame.scale = parent.scale * transformScale(cs);
    if (frame.scale <= SCALE_MIN) return "transform_zero";
    if (display === "contents") return null;
    let rect = null;
    const rectOf = () => (rect === null ? (rect = el.getBoundingClientRect()) : rect);
    if (clippedAway(cs, rectOf)) return "clipped";
    const inline = display === "inline";
    if (!inline && ((cs.overflowX !== "visible" && rectOf().width <= SIZE_MIN_PX) ||
                    (cs.overflowY !== "visible" && rectOf().height <= SIZE_MIN_PX))) {
      return "zero_size";
    }
    return null;
  }

  const range = doc.createRange();
  // Reasons for one non-blank text node whose element is not hidden as a whole.
  function textReason(node, frame) {
    // The style part depends on the element only: judge it once per element.
    if (frame.textStyle === undefined) frame.textStyle = textStyleReason(frame);
    if (frame.textStyle !== null) return frame.textStyle;
    return textBoxReason(node, frame);
  }
  function textStyleReason(frame) {
    const cs = frame.cs;
    if (cs.visibility === "hidden" || cs.visibility === "collapse") return "visibility_hidden";
    const fontPx = parseFloat(cs.fontSize);
    if (!isNaN(fontPx) && fontPx * frame.scale < FONT_MIN_PX) return "tiny_font";
    let fill;
    let svgText = false;
    if (frame.svg) {
      svgText = true;
      fill = cs.fill && cs.fill !== "none" ? parseColour(cs.fill) : { r: 0, g: 0, b: 0, a: 0 };
      if (fill !== null) {
        const fo = parseFloat(cs.fillOpacity);
        fill = { r: fill.r, g: fill.g, b: fill.b, a: fill.a * (isNaN(fo) ? 1 : fo) };
      }
    } else {
      fill = parseColour(cs.webkitTextFillColor || cs.color);
    }
    if (fill !== null && fill.a < ALPHA_MIN && frame.clipText !== null && !svgText) {
      // "Gradient text": transparent glyphs painted by an ancestor's background
      // (background-clip: text). An image or gradient cannot be judged and
      // counts as visible; a plain colour is compared with what is behind it.
      const paint = frame.clipText.paint;
      const against = frame.clipText.against;
      if (paint === null || against === null) return null;
      return contrast(over(paint, against), against) < CONTRAST_MIN ? "same_colour" : null;
    }
    const shown = strokeOrShadowShows(cs, frame.bg, svgText);
    if (fill !== null && fill.a < ALPHA_MIN && !shown) return "transparent_text";
    if (fill !== null && !svgText && frame.bg !== null && !shown &&
        contrast(over(fill, frame.bg), frame.bg) < CONTRAST_MIN) {
      return "same_colour";
    }
    return null;
  }
  function textBoxReason(node, frame) {
    range.selectNodeContents(node);
    const rects = range.getClientRects();
    let usable = 0, onscreen = 0, unclipped = 0;
    for (let i = 0; i < rects.length; i++) {
      const r = rects[i];
      if (r.width < 1 || r.height < 1) continue;
      usable += 1;
      if (offscreen(r)) continue;
      onscreen += 1;
      let inside = true;
      for (const c of frame.clips) {
        if (!intersects(r, c)) { inside = false; break; }
      }
      if (inside) unclipped += 1;
    }
    if (usable === 0) return "zero_size";
    if (onscreen === 0) return parseFloat(frame.cs.textIndent) <= INDENT_PX ? "text_indent" : "offscreen";
    if (unclipped === 0) return "overflow_clipped";
    return null;
  }
  function strokeOrShadowShows(cs, bg, svgText) {
    if (svgText) {
      if (cs.stroke && cs.stroke !== "none") {
        const s = parseColour(cs.stroke);
        const so = parseFloat(cs.strokeOpacity);
        if (s !== null && s.a * (isNaN(so) ? 1 : so) >= ALPHA_MIN && parseFloat(cs.strokeWidth) > 0) return true;
      }
      return false;
    }
    if (parseFloat(cs.webkitTextStrokeWidth) > 0) {
      const s = parseColour(cs.webkitTextStrokeColor);
      if (s !== null && s.a >= ALPHA_MIN && (bg === null || contrast(over(s, bg), bg) >= CONTRAST_MIN)) return true;
    }
    const ts = cs.textShadow;
    if (ts && ts !== "none") {
      const found = ts.match(/rgba?\([^)]*\)/g) || [];
      for (const str of found) {
        const s = parseColour(str);
        if (s !== null && s.a >= ALPHA_MIN && (bg === null || contrast(over(s, bg), bg) >= CONTRAST_MIN)) return true;
      }
    }
    return false;
  }
  // The effective background behind an element's text: its own background
  // colour composited over its parent's; null when an image or gradient is in
  // the way (the contrast then cannot be judged).
  function backgroundOf(cs, parentBg) {
    if (cs.backgroundImage && cs.backgroundImage !== "none") return null;
    const own = parseColour(cs.backgroundColor);
    if (own === null) return null;
    if (own.a >= 0.999) return own;
    if (parentBg === null) return null;
    return own.a <= 0 ? parentBg : over(own, parentBg);
  }
  function clipsFor(cs, parent) {
    const pos = cs.position;
    if (pos === "fixed") return parent.fixedClips;
    if (pos === "absolute") return parent.absClips;
    return parent.clips;
  }

  // The canvas behind everything: the root's or the body's background when
  // opaque, else the UA canvas colour (dark only under a dark-only color-scheme).
  function canvasColour(rootCs) {
    const fromRoot = parseColour(rootCs.backgroundColor);
    if (fromRoot !== null && fromRoot.a >= 0.999) return fromRoot;
    if (body) {
      const fromBody = parseColour(win.getComputedStyle(body).backgroundColor);
      if (fromBody !== null && fromBody.a >= 0.999) return fromBody;
    }
    const scheme = rootCs.colorScheme || "";
    if (/\bdark\b/.test(scheme) && !/\blight\b/.test(scheme)) return { r: 18, g: 18, b: 18, a: 1 };
    return WHITE;
  }

  // ---- the walk ----------------------------------------------------------------------
  // A frame per open element (or shadow root). `hidden` is an inherited
  // subtree-wide reason; `skip` marks content that is never rendered.
  function makeFrame(node, parent, openIdx, closeTag) {
    return {
      node: node, parent: parent, openIdx: openIdx, closeTag: closeTag, depth: parent ? parent.depth + 1 : 0,
      cs: parent ? parent.cs : null, svg: parent ? parent.svg : false,
      hidden: parent ? parent.hidden : null, skip: parent ? parent.skip : false,
      opacity: parent ? parent.opacity : 1, scale: parent ? parent.scale : 1, bg: parent ? parent.bg : WHITE,
      clips: parent ? parent.clips : [], absClips: parent ? parent.absClips : [],
      fixedClips: parent ? parent.fixedClips : [],
      closedDetails: false, summarySeen: false, clipText: parent ? parent.clipText : null,
      pending: [], directVisible: 0, directHidden: 0, firstReason: null, subtreeVisible: false,
      shadow: null, cursor: null, rawText: null, textStyle: undefined,
    };
  }

  function openElement(el, parent, forced) {
    const name0 = (el.localName || "span").toLowerCase();
    const name = NAME_OK.test(name0) ? name0 : "span";
    const frame = makeFrame(el, parent, -1, VOID.has(name) ? "" : "</" + name + ">");
    // SVG text is painted with fill/stroke, not color (foreignObject content is HTML again).
    frame.svg = el.namespaceURI === SVG_NS;
    let reason = null;
    if (parent.hidden === null && !parent.skip) {
      if (NOT_RENDERED.has(name)) {
        frame.skip = true;
      } else if (forced !== null) {
        reason = forced;
      } else if (!VOID.has(name)) {
        const cs = win.getComputedStyle(el);
        frame.cs = cs;
        reason = elementReason(el, cs, frame, parent);
        if (reason === null) {
          frame.bg = backgroundOf(cs, parent.bg);
          if (cs.backgroundClip === "text" || cs.webkitBackgroundClip === "text") {
            // The background paints the text itself, not the box behind it.
            const image = cs.backgroundImage && cs.backgroundImage !== "none";
            const colour = parseColour(cs.backgroundColor);
            if (image) frame.clipText = { paint: null, against: parent.bg };
            else if (colour !== null && colour.a >= ALPHA_MIN) frame.clipText = { paint: colour, against: parent.bg };
            frame.bg = parent.bg;
          }
          const inherited = clipsFor(cs, parent);
          let own = inherited;
          const ox = cs.overflowX, oy = cs.overflowY;
          const hideX = ox === "hidden" || ox === "clip";
          const hideY = oy === "hidden" || oy === "clip";
          // A scroll container clips too, but a reader can scroll to what it
          // clips: its content is judged against its hidden axes only, and
          // the clips above it are dropped (an approximation: content is
          // reachable wherever the scroller itself is visible).
          const scrolls = ox === "auto" || ox === "scroll" || oy === "auto" || oy === "scroll";
          if (scrolls) own = [];
          if ((hideX || hideY) && cs.display !== "contents" && cs.display !== "inline") {
            const r = el.getBoundingClientRect();
            const big = 1e9;
            const box = {
              left: hideX ? r.left : -big, right: hideX ? r.right : big,
              top: hideY ? r.top : -big, bottom: hideY ? r.bottom : big,
            };
            own = own.concat([box]);
          }
          frame.clips = own;
          const positioned = cs.position !== "static";
          const transformed = cs.transform !== "none";
          frame.absClips = positioned || transformed ? own : parent.absClips;
          frame.fixedClips = transformed ? own : parent.fixedClips;
          if (name === "details" && !el.open) frame.closedDetails = true;
        }
      }
    }
    if (reason !== null) {
      frame.hidden = reason;
      countReason(reason);
    }
    frame.openIdx = emit(openTag(el, name, reason));
    if (name === "script") {
      const type = (el.getAttribute("type") || "").trim().toLowerCase();
      // Executable script bodies are dropped: they already ran, the guard
      // ignores script text, and they are often most of a page's bytes.
      frame.rawText = JS_TYPES.has(type) ? "" : escRaw(el.textContent || "");
    } else if (name === "style") {
      frame.rawText = escRaw(el.textContent || "");
    }
    if (frame.rawText === null && !VOID.has(name)) {
      frame.shadow = el.shadowRoot || null;
      frame.cursor = name === "template" && el.content ? el.content.firstChild : el.firstChild;
    }
    frame.hostName = name;
    return frame;
  }

  function openShadow(host, parent) {
    const tag = PHRASING_HOSTS.has(parent.hostName) ? "span" : "div";
    const frame = makeFrame(host.shadowRoot, parent, -1, "</" + tag + ">");
    frame.hostName = tag;
    frame.openIdx = emit("<" + tag + " " + MARK + 'shadow-root="open">');
    frame.cursor = frame.node.firstChild;
    return frame;
  }

  function closeFrame(frame) {
    const parent = frame.parent;
    if (frame.rawText !== null) emit(frame.rawText);
    if (frame.hidden === null && !frame.skip && frame.directHidden > 0 && frame.directVisible === 0 &&
        !frame.subtreeVisible) {
      // Every piece of text this element shows is hidden: mark the element itself.
      const open = parts[frame.openIdx];
      parts[frame.openIdx] = open.slice(0, -1) + " " + MARK + 'hidden="' + frame.firstReason + '">';
      countReason(frame.firstReason);
    } else {
      for (const [idx, reason] of frame.pending) {
        parts[idx] = "<span " + MARK + 'hidden="' + reason + '">' + parts[idx] + "</span>";
        countReason(reason);
      }
    }
    if (frame.closeTag) emit(frame.closeTag);
    if (parent) parent.subtreeVisible = parent.subtreeVisible || frame.subtreeVisible || frame.directVisible > 0;
  }

  function visitText(node, frame, forced) {
    const text = node.nodeValue || "";
    const idx = emit(escText(text));
    if (frame.skip || frame.hidden !== null) {
      if (!frame.skip) textChars += text.trim().length;
      return;
    }
    const trimmed = text.trim();
    if (trimmed === "") return;
    textChars += trimmed.length;
    const reason = forced !== null ? forced : textReason(node, frame);
    if (reason === null) {
      frame.directVisible += 1;
      visibleTextChars += trimmed.replace(/\s+/g, " ").length;
    } else {
      frame.directHidden += 1;
      if (frame.firstReason === null) frame.firstReason = reason;
      frame.pending.push([idx, reason]);
    }
  }

  // ---- run ---------------------------------------------------------------------------
  const dt = doc.doctype;
  if (dt) emit("<!DOCTYPE " + (/^[A-Za-z0-9_-]+$/.test(dt.name) ? dt.name : "html") + ">");

  const top = makeFrame(null, null, -1, "");
  top.cs = win.getComputedStyle(root);
  top.hostName = "#document";
  top.bg = canvasColour(top.cs);
  const stack = [];
  stack.push(openElement(root, top, null));
  nodeCount = 1;

  while (stack.length > 0 && stopped === null) {
    const frame = stack[stack.length - 1];
    let node;
    if (frame.shadow !== null) {
      node = frame.shadow;
      frame.shadow = null;
      if (stack.length >= maxDepth) { stopped = "depth"; break; }
      nodeCount += 1;
      stack.push(openShadow(frame.node, frame));
      continue;
    }
    node = frame.cursor;
    if (node === null) {
      closeFrame(frame);
      stack.pop();
      continue;
    }
    frame.cursor = node.nextSibling;
    nodeCount += 1;
    if (nodeCount > maxNodes) { stopped = "nodes"; break; }
    if (nodeCount % TIME_CHECK_EVERY === 0 && performance.now() > deadline) { stopped = "time"; break; }

    // Closed <details>: everything but its first <summary> is hidden.
    let forced = null;
    if (frame.closedDetails && frame.hidden === null) {
      if (node.nodeType === 1 && node.localName === "summary" && !frame.summarySeen) {
        frame.summarySeen = true;
      } else {
        forced = "closed_details";
      }
    }
    const type = node.nodeType;
    if (type === 1) {
      if (stack.length >= maxDepth) { stopped = "depth"; break; }
      stack.push(openElement(node, frame, forced));
    } else if (type === 3) {
      visitText(node, frame, forced);
    } else if (type === 8) {
      emit("<!--" + escComment(node.nodeValue || "") + "-->");
    } else if (type === 4) {
      visitText(node, frame, forced);
    }
  }
  // Close what is still open so a truncated copy still parses as a tree.
  if (stopped !== null) {
    for (let i = stack.length - 1; i >= 0; i--) {
      if (stack[i].closeTag) parts.push(stack[i].closeTag);
    }
  }

  // Lone surrogates (a DOM string may hold them) would make a UTF-8 parser
  // drop the rest of the text node; replace them with U+FFFD.
  const html = parts.join("");
  return {
    hasDocument: true,
    html: typeof html.toWellFormed === "function" ? html.toWellFormed() : html,
    nodeCount: nodeCount,
    hiddenCount: hiddenCount,
    visibleTextChars: visibleTextChars,
    textChars: textChars,
    stopped: stopped,
    reasons: reasons,
  };
})
