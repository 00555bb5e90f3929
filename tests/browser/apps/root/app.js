// A React-style app: one component tree rendered into #root after a module script loads.
const todos = [
  { title: "Repot the fiddle-leaf fig into the larger terracotta planter", completed: false },
  { title: "Book the ferry tickets to the island for the second weekend", completed: true },
  { title: "Return the library copy of the tide almanac before Friday", completed: false },
];

function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (key === "className") el.className = value;
    else el.setAttribute(key, value);
  }
  for (const child of children) el.append(child);
  return el;
}

function App() {
  const left = todos.filter((t) => !t.completed).length;
  return h("section", { className: "todoapp" },
    h("header", { className: "header" },
      h("h1", {}, "todos"),
      h("input", { className: "new-todo", placeholder: "What needs to be done?" })),
    h("main", { className: "main" },
      h("ul", { className: "todo-list" },
        ...todos.map((t) => h("li", { className: t.completed ? "completed" : "" },
          h("div", { className: "view" },
            h("input", { className: "toggle", type: "checkbox" }),
            h("label", {}, t.title)))))),
    h("footer", { className: "footer" }, `${left} items left`),
  );
}

queueMicrotask(() => document.getElementById("root").replaceChildren(App()));
