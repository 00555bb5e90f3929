// pagewarden visibility snapshot: setup (options, constants, the document).
//
// The snapshot is one function written in several files, one per concern, that visibility.py
// concatenates in this order (visibility.py's _PARTS): setup.js (opens the function), animations.js,
// geometry.js, output.js, colour.js, judge.js, walk.js (runs the walk and closes the function). They
// share the function's scope; only setup.js and walk.js are incomplete on their own.
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
// never modified (animations.js only finishes animations about to end). Elements judged hidden carry data-pagewarden-hidden="<reason>";
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
  // Running animations and transitions ending within this many milliseconds are judged by their end state.
  const FINISH_WITHIN_MS = options.finishWithinMs;

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

