// pagewarden init script: runs in every document of a rendering context before any page script.
//
// It removes the page APIs that send data out through channels plain GET routing does not police
// (WebSocket, EventSource, WebRTC, sendBeacon) and window.open. It is hygiene, not the boundary: the
// routing policy and the DNS-pinning egress proxy still apply to whatever slips past (for example a
// worker's WebSocket, which this script does not reach). The placeholder below is replaced with a JSON
// object of booleans built from the request policy's [refuse] table.
//
// It also counts the work the page has scheduled (timeouts up to the settle time, animation frames, idle
// callbacks, fetch and XMLHttpRequest requests) and exposes the count through a function under a per-context random name, which the settle
// step reads (see settle.py). That count lives in the page's own world, so a page can fake it: that only makes its own
// settle shorter or longer, never changes what is inspected. Likewise it counts the page's lazy-loading hooks
// (IntersectionObserver targets, scroll and wheel listeners) under the same name plus "Lazy": the render scrolls
// only pages that have some (see trackLazyContent below).
(() => {
  "use strict";
  const refuse = __PAGEWARDEN_REFUSE__;
  const pendingName = __PAGEWARDEN_PENDING_NAME__;
  const timerLimitMs = __PAGEWARDEN_TIMER_LIMIT_MS__;
  const requestLimit = __PAGEWARDEN_REQUEST_LIMIT__;
  const frameLimit = __PAGEWARDEN_FRAME_LIMIT__;
  const lock = (owner, name, value) => {
    // Non-writable and non-configurable, so the page cannot put the original back.
    try {
      Object.defineProperty(owner, name, { value, writable: false, configurable: false, enumerable: false });
    } catch (error) {
      // A property that is already locked (a second run in the same realm) stays as it is.
    }
  };
  const refusedConstructor = (name) => {
    const refused = function () {
      throw new DOMException(name + " is disabled by pagewarden", "SecurityError");
    };
    Object.defineProperty(refused, "name", { value: name });
    return refused;
  };
  if (refuse.websocket) {
    lock(globalThis, "WebSocket", refusedConstructor("WebSocket"));
    lock(globalThis, "WebSocketStream", refusedConstructor("WebSocketStream"));
    lock(globalThis, "WebTransport", refusedConstructor("WebTransport"));
  }
  if (refuse.event_source) {
    lock(globalThis, "EventSource", refusedConstructor("EventSource"));
  }
  if (refuse.webrtc) {
    for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "RTCIceTransport"]) {
      lock(globalThis, name, refusedConstructor(name));
    }
  }
  if (refuse.send_beacon && typeof Navigator !== "undefined") {
    lock(Navigator.prototype, "sendBeacon", function sendBeacon() { return false; });
  }
  if (refuse.window_open) {
    lock(globalThis, "open", function open() { return null; });
  }
  trackPendingWork(pendingName, timerLimitMs, requestLimit, lock);
  trackLazyContent(pendingName + "Lazy", lock);
  capFrames(frameLimit, pendingName + "Frames", lock);
})();

// Frames past the frame bound: inserting into the page a frame element, or a subtree or markup holding frames
// (through innerHTML, outerHTML, insertAdjacentHTML or document.write), throws when it would take this window
// past frameLimit + 1 frames (one past the bound, so that the observer and the browser's count see the bound
// passed and the read is marked truncated). A script loop or timer batches making frames thus stop at the
// bound in the page itself, at once, rather than when the browser's count of attached frames reaches
// pagewarden (which lags by seconds while the browser is busy making frames; see render.py), and one
// assignment or subtree of a thousand frames, which no script termination could interrupt, makes none. The
// cost on an ordinary page: a frame-tag check of each node inserted into the page (a selector query for a
// subtree), one regular-expression scan of markup, and window.length (in a subframe, a walk of the page's
// frames, so nested frames count) only when frames come. Refusals are counted under the pending name plus
// "Frames" (the read marks itself truncated). Pristine realms get past this; the browser-side bound still
// stops them.
function capFrames(limit, countName, lock) {
  let refused = 0;
  // In a subframe, the frames of the whole page count (a flood of nested frames never puts many in one window):
  // walked from the top window (length and indexed frames are readable across origins), up to the bound.
  const inSubframe = globalThis.top !== globalThis;
  const pageFrames = () => {
    let total = 0;
    try {
      const stack = [globalThis.top];
      while (stack.length > 0 && total <= limit) {
        const frame = stack.pop();
        const count = frame.length;
        total += count;
        for (let i = 0; i < count && total <= limit; i++) stack.push(frame[i]);
      }
    } catch (error) {
      return globalThis.length;
    }
    return total;
  };
  const framesNow = () => (inSubframe ? pageFrames() : globalThis.length);
  const refuse = () => {
    refused += 1;
    throw new DOMException("too many frames (refused by pagewarden)", "NotSupportedError");
  };
  lock(globalThis, countName, () => refused);
  const FRAME_TAGS = "iframe,frame";
  // Frames a node would bring: itself, or those of its subtree (a fragment or an element built off the page).
  const framesIn = (node) => {
    if (node === null || typeof node !== "object") return 0;
    const name = node.nodeName;
    if (name === "IFRAME" || name === "FRAME") return 1;
    if (!node.firstElementChild || typeof node.querySelectorAll !== "function") return 0;
    return node.querySelectorAll(FRAME_TAGS).length;
  };
  const FRAME_MARKUP = /<\s*i?frame[\s>/]/i;
  const FRAME_MARKUP_ALL = /<\s*i?frame[\s>/]/gi;
  // Markup: its frame tags are counted only when it holds one at all.
  const tooManyIn = (value) => {
    const text = String(value);
    if (!FRAME_MARKUP.test(text)) return false;
    return framesNow() + (text.match(FRAME_MARKUP_ALL) || []).length > limit + 1;
  };
  // nodeArgs: the index of the inserted node among the arguments, or null when every argument is one.
  const wrapInsert = (owner, name, nodeArgs) => {
    const original = owner && owner[name];
    if (typeof original !== "function") return;
    owner[name] = {
      [name](...args) {
        let incoming = 0;
        if (nodeArgs === null) {
          for (const arg of args) incoming += framesIn(arg);
        } else {
          incoming = framesIn(args[nodeArgs]);
        }
        // Only an insertion into the page makes frames: a tree built off the page is counted when it joins it.
        if (incoming > 0 && this !== null && typeof this === "object" && this.isConnected) {
          if (framesNow() + incoming > limit + 1) refuse();
        }
        return original.apply(this, args);
      },
    }[name];
  };
  const nodeProto = globalThis.Node && globalThis.Node.prototype;
  wrapInsert(nodeProto, "appendChild", 0);
  wrapInsert(nodeProto, "insertBefore", 0);
  wrapInsert(nodeProto, "replaceChild", 0);
  for (const kind of ["Element", "Document", "DocumentFragment", "CharacterData"]) {
    const proto = globalThis[kind] && globalThis[kind].prototype;
    for (const name of ["append", "prepend", "before", "after", "replaceWith", "replaceChildren"]) {
      if (proto && Object.prototype.hasOwnProperty.call(proto, name)) wrapInsert(proto, name, null);
    }
  }
  const elementProto = globalThis.Element && globalThis.Element.prototype;
  wrapInsert(elementProto, "insertAdjacentElement", 1);
  const wrapMarkup = (owner, name, index) => {
    const original = owner && owner[name];
    if (typeof original !== "function") return;
    owner[name] = {
      [name](...args) {
        if (tooManyIn(args[index])) refuse();
        return original.apply(this, args);
      },
    }[name];
  };
  wrapMarkup(elementProto, "insertAdjacentHTML", 1);
  const documentProto = globalThis.Document && globalThis.Document.prototype;
  wrapMarkup(documentProto, "write", 0);
  wrapMarkup(documentProto, "writeln", 0);
  for (const [kind, property] of [["Element", "innerHTML"], ["Element", "outerHTML"], ["ShadowRoot", "innerHTML"]]) {
    const proto = globalThis[kind] && globalThis[kind].prototype;
    const descriptor = proto && Object.getOwnPropertyDescriptor(proto, property);
    if (!descriptor || typeof descriptor.set !== "function") continue;
    const set = descriptor.set;
    Object.defineProperty(proto, property, {
      get: descriptor.get,
      set: {
        [property](value) {
          if (tooManyIn(value)) refuse();
          set.call(this, value);
        },
      }[property],
      enumerable: descriptor.enumerable,
      configurable: descriptor.configurable,
    });
  }
}

// Whether the page loads content as it is scrolled: elements it watches with IntersectionObserver and
// scroll or wheel listeners on the window or the document. Exposed as a count under the pending name
// plus "Lazy"; the render scrolls the page (within the policy's bounds) only when it is above 0. The
// page's word again: faking it only makes the render scroll its own page, or not.
function trackLazyContent(name, lock) {
  let signals = 0;
  const io = globalThis.IntersectionObserver && globalThis.IntersectionObserver.prototype;
  const observe = io && io.observe;
  if (typeof observe === "function") {
    io.observe = {
      observe(...args) {
        signals += 1;
        return observe.apply(this, args);
      },
    }.observe;
  }
  // On EventTarget.prototype, like the original, so libraries that wrap it later (zone.js) still wrap it and
  // every call still goes through whatever is installed there.
  const target = globalThis.EventTarget && globalThis.EventTarget.prototype;
  const add = target && target.addEventListener;
  if (typeof add === "function") {
    target.addEventListener = {
      addEventListener(type, ...rest) {
        if ((type === "scroll" || type === "wheel") && (this === globalThis || this === globalThis.document)) {
          signals += 1;
        }
        return add.call(this, type, ...rest);
      },
    }.addEventListener;
  }
  lock(globalThis, name, () => signals);
}

// Timeouts (up to timerLimitMs), animation frames and idle callbacks scheduled and not yet run or
// cancelled. The wrappers stay writable like the originals: frameworks (zone.js, test shims) legitimately
// wrap timers again.
//
// fetch and XMLHttpRequest calls past requestLimit (the policy's request budget) in one document fail at
// once, as a network error would, without reaching the browser's network stack: a page firing thousands
// of requests costs its own read (the budget still ends it), not the browser's event pipe that other reads
// share. Script and stylesheet elements given a URL by script count too (capElementLoads). Workers and
// pristine realms can bypass this; the routing budget still counts what they send.
function trackPendingWork(pendingName, timerLimitMs, requestLimit, lock) {
  // One set per scheduler: timeout, frame and idle-callback ids are separate number spaces.
  const pendingSets = [];
  const wrapScheduler = (owner, name, cancelName, counts) => {
    const schedule = owner[name];
    const cancel = owner[cancelName];
    if (typeof schedule !== "function" || typeof cancel !== "function") {
      return;
    }
    const pending = new Set();
    pendingSets.push(pending);
    owner[name] = {
      [name](callback, ...rest) {
        if (typeof callback !== "function" || !counts(rest)) {
          return schedule.call(this, callback, ...rest);
        }
        let id = 0;
        const run = function (...args) {
          pending.delete(id);
          return callback.apply(this, args);
        };
        id = schedule.call(this, run, ...rest);
        pending.add(id);
        return id;
      },
    }[name];
    owner[cancelName] = {
      [cancelName](id) {
        pending.delete(id);
        return cancel.call(this, id);
      },
    }[cancelName];
  };
  wrapScheduler(globalThis, "setTimeout", "clearTimeout", (rest) => {
    const delay = Number(rest[0]) || 0;
    return delay <= timerLimitMs;
  });
  wrapScheduler(globalThis, "requestAnimationFrame", "cancelAnimationFrame", () => true);
  // Idle callbacks run once the page has nothing else to do, so they are about to run whenever settle looks.
  wrapScheduler(globalThis, "requestIdleCallback", "cancelIdleCallback", () => true);
  // Requests the page's script started (fetch until its promise settles, XMLHttpRequest until loadend).
  // Counted here, in the thread that answers the settle probe, because the browser's own request event
  // reaches pagewarden a moment after the call: a probe in between would otherwise see a quiet network.
  let requests = 0;
  let started = 0;
  const finished = () => {
    requests -= 1;
  };
  const overBudget = () => {
    started += 1;
    return started > requestLimit;
  };
  const originalFetch = globalThis.fetch;
  if (typeof originalFetch === "function") {
    globalThis.fetch = {
      fetch(...args) {
        if (overBudget()) {
          return Promise.reject(new TypeError("Failed to fetch"));
        }
        const promise = originalFetch.apply(this, args);
        requests += 1;
        // (A handler on a rejected fetch also means the page gets no "unhandledrejection" for it.)
        promise.then(finished, finished);
        return promise;
      },
    }.fetch;
  }
  const xhr = globalThis.XMLHttpRequest && globalThis.XMLHttpRequest.prototype;
  const originalSend = xhr && xhr.send;
  if (typeof originalSend === "function") {
    xhr.send = {
      send(...args) {
        if (overBudget()) {
          throw new DOMException("Failed to execute 'send' on 'XMLHttpRequest'", "NetworkError");
        }
        originalSend.apply(this, args);
        requests += 1;
        this.addEventListener("loadend", finished, { once: true });
      },
    }.send;
  }
  capElementLoads(overBudget);
  lock(globalThis, pendingName, () => pendingSets.reduce((total, pending) => total + pending.size, requests));
}

// Script and stylesheet elements a script points at a URL count against the same budget as fetch and
// XMLHttpRequest: past it, the URL is not set (through the src/href property or setAttribute), so the
// element never loads. A page appending hundreds of script elements then costs its own read (the routing
// budget still ends it), not hundreds of requests through the routing and the driver's event pipe, which
// every read of the browser shares and which would still be delivering them after the read had ended.
// Elements the parser makes are not touched: the routing counts them.
function capElementLoads(overBudget) {
  const capped = [
    ["HTMLScriptElement", "src"],
    ["HTMLLinkElement", "href"],
  ];
  const kinds = [];
  for (const [name, property] of capped) {
    const element = globalThis[name];
    const proto = element && element.prototype;
    const descriptor = proto && Object.getOwnPropertyDescriptor(proto, property);
    if (!descriptor || typeof descriptor.set !== "function") {
      continue;
    }
    kinds.push([element, property]);
    const set = descriptor.set;
    Object.defineProperty(proto, property, {
      get: descriptor.get,
      set: {
        [property](value) {
          if (!overBudget()) {
            set.call(this, value);
          }
        },
      }[property],
      enumerable: descriptor.enumerable,
      configurable: descriptor.configurable,
    });
  }
  const element = globalThis.Element && globalThis.Element.prototype;
  const setAttribute = element && element.setAttribute;
  if (typeof setAttribute !== "function" || kinds.length === 0) {
    return;
  }
  const counted = (target, name) =>
    kinds.some(([kind, property]) => target instanceof kind && String(name).toLowerCase() === property);
  element.setAttribute = {
    setAttribute(name, value) {
      if (counted(this, name) && overBudget()) {
        return undefined;
      }
      return setAttribute.call(this, name, value);
    },
  }.setAttribute;
}
