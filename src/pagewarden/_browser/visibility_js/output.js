// pagewarden visibility snapshot, part: output (the serialized copy, escaping, reason counts).
// Concatenated after setup.js; see there.
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

