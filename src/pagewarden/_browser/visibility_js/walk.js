// pagewarden visibility snapshot, part: the walk (frames per element, marks, the result); closes the function.
// Concatenated after setup.js; see there.
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
    finishEndingAnimations(host.shadowRoot);
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
    animationsFinished: animationsFinished,
    animationsLeft: animationsLeft,
  };
})
