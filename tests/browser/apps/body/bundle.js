// A Svelte-style bundle: compiled component code that creates its nodes and appends them to <body>.
(function () {
  "use strict";
  function element(name) { return document.createElement(name); }
  function text(data) { return document.createTextNode(data); }
  function attr(node, name, value) { node.setAttribute(name, value); }
  function append(target, node) { target.appendChild(node); }
  const items = [
    "Measure the hallway for the new bookshelf and order the timber",
    "Write to the allotment society about the shared compost bins",
    "Renew the passport before the autumn trip to Lisbon",
  ];
  function create_fragment() {
    const section = element("section");
    attr(section, "class", "todoapp");
    const header = element("header");
    const h1 = element("h1");
    append(h1, text("todos"));
    append(header, h1);
    append(section, header);
    const ul = element("ul");
    attr(ul, "class", "todo-list");
    for (const item of items) {
      const li = element("li");
      const label = element("label");
      append(label, text(item));
      append(li, label);
      append(ul, li);
    }
    append(section, ul);
    const footer = element("footer");
    attr(footer, "class", "info");
    append(footer, text("Double-click to edit a todo"));
    return { m(target) { append(target, section); append(target, footer); } };
  }
  create_fragment().m(document.body);
})();
