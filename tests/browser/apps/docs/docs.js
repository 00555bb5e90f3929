// A docsify-style site: hash routes (#/guide/setup) fetch Markdown files, render them into <main>, and the
// theme fades the content in (an opacity transition started when the body gets the "ready" class).
(function () {
  "use strict";
  const config = window.$docs || {};
  const app = document.getElementById("app");
  app.innerHTML =
    '<aside class="sidebar"><h1 class="app-name"></h1><ul class="sidebar-nav"></ul></aside>' +
    '<section class="cover"></section><main><article class="markdown-section" id="main"></article></main>';
  app.querySelector(".app-name").textContent = config.name || "";

  function escape(text) {
    return text.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]);
  }
  function inline(text) {
    return escape(text)
      .replace(/`([^`]+)`/g, "<code>$1</code>")
      .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
      .replace(/\[([^\]]+)\]\(([^)]+)\)/g, '<a href="$2">$1</a>');
  }
  // Just enough Markdown: headings, lists, fenced code, raw HTML blocks and paragraphs.
  function markdown(source) {
    const out = [];
    const blocks = source.replace(/\r/g, "").split(/\n{2,}/);
    for (const block of blocks) {
      const trimmed = block.trim();
      if (!trimmed) continue;
      const heading = /^(#{1,6})\s+(.*)$/.exec(trimmed);
      if (heading) {
        const level = heading[1].length;
        out.push(`<h${level}>${inline(heading[2])}</h${level}>`);
      } else if (trimmed.startsWith("```")) {
        out.push(`<pre><code>${escape(trimmed.replace(/^```\w*\n?|```$/g, ""))}</code></pre>`);
      } else if (trimmed.startsWith("<")) {
        out.push(trimmed);
      } else if (/^[-*]\s/.test(trimmed)) {
        const items = trimmed.split("\n").map((line) => `<li>${inline(line.replace(/^[-*]\s+/, ""))}</li>`);
        out.push(`<ul>${items.join("")}</ul>`);
      } else {
        out.push(`<p>${inline(trimmed.replace(/\n/g, " "))}</p>`);
      }
    }
    return out.join("\n");
  }

  function route() {
    const path = decodeURIComponent(location.hash.replace(/^#/, "")) || "/";
    if (path === "/") return config.homepage || "README.md";
    return path.replace(/^\//, "").replace(/\/$/, "/README") + ".md";
  }

  async function load() {
    document.body.classList.remove("ready");
    const file = route();
    const main = document.getElementById("main");
    const cover = app.querySelector(".cover");
    let text;
    try {
      const response = await fetch((config.basePath || "/") + file);
      text = response.ok ? await response.text() : "# 404 - Not found";
    } catch (error) {
      text = "# Failed to load the page";
    }
    main.innerHTML = markdown(text);
    const first = main.querySelector("h1");
    document.title = (first ? first.textContent + " - " : "") + (config.name || "");
    if (file === (config.homepage || "README.md")) {
      cover.innerHTML = "<h1>" + escape(config.name || "") + "</h1><p>Tides, berths and the harbour master's rules</p>";
      cover.classList.remove("hidden");
    } else {
      cover.classList.add("hidden");
    }
    // Let the new content take its initial style, then start the fade-in.
    requestAnimationFrame(() => {
      cover.classList.add("show");
      document.body.classList.add("ready");
    });
  }

  window.addEventListener("hashchange", load);
  load();
})();
