// Sections load when they come near the viewport (IntersectionObserver + fetch) and fade in when they
// scroll into view, as many long-form pages do.
(function () {
  "use strict";
  const reveal = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (entry.isIntersecting) {
        entry.target.classList.add("in");
        reveal.unobserve(entry.target);
      }
    }
  });
  const loader = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      loader.unobserve(entry.target);
      const section = entry.target;
      fetch("/apps/lazy/part-" + section.dataset.part + ".json")
        .then((response) => response.json())
        .then((part) => {
          const heading = document.createElement("h2");
          heading.textContent = part.title;
          section.append(heading);
          for (const text of part.paragraphs) {
            const p = document.createElement("p");
            p.className = "reveal";
            p.textContent = text;
            section.append(p);
            reveal.observe(p);
          }
        });
    }
  });
  for (const section of document.querySelectorAll(".chapter")) loader.observe(section);
})();
