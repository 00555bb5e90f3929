// pagewarden init script: runs in every document of a rendering context before any page script.
//
// It removes the page APIs that send data out through channels plain GET routing does not police
// (WebSocket, EventSource, WebRTC, sendBeacon) and window.open. It is hygiene, not the boundary: the
// routing policy and the DNS-pinning egress proxy still apply to whatever slips past (for example a
// worker's WebSocket, which this script does not reach). The placeholder below is replaced with a JSON
// object of booleans built from the request policy's [refuse] table.
(() => {
  "use strict";
  const refuse = __PAGEWARDEN_REFUSE__;
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
})();
