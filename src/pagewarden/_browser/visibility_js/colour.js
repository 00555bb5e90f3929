// pagewarden visibility snapshot, part: colours (parsing, compositing, WCAG contrast).
// Concatenated after setup.js; see there.
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

