// An endless feed: whenever the sentinel below the list comes into view, ten more entries are appended.
// The page never ends, so a reader that scrolls must stop on its own.
(function () {
  "use strict";
  const feed = document.getElementById("feed");
  const vessels = ["Kittiwake", "Morning Star", "Brent Goose", "Saltings", "Curlew", "Half Moon", "Tern"];
  let next = 1;
  function page() {
    for (let i = 0; i < 10; i++, next++) {
      const li = document.createElement("li");
      li.className = "entry";
      const vessel = vessels[next % vessels.length];
      li.textContent = `Log entry ${next}: the ${vessel} moored at berth ${next % 40 + 1} on the rising tide.`;
      feed.append(li);
    }
  }
  page();
  new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) setTimeout(page, 20);
  }).observe(document.getElementById("more"));
})();
