// pagewarden visibility snapshot, part: judging (reasons for elements and text nodes).
// Concatenated after setup.js; see there.
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

