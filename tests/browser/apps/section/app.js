// A Vue-style app: a template compiled at run time and mounted into <section class="todoapp">.
(function () {
  "use strict";
  const state = {
    todos: [
      { title: "Sharpen the chisels and oil the workbench vice", done: false },
      { title: "Send the quarterly meter reading to the water board", done: false },
      { title: "Collect the repaired bicycle from the workshop on Elm Street", done: true },
    ],
  };
  const template = `
    <header class="header"><h1>todos</h1><input class="new-todo" placeholder="What needs to be done?"></header>
    <main class="main"><ul class="todo-list">{{items}}</ul></main>
    <footer class="footer"><span class="todo-count"><strong>{{left}}</strong> items left</span></footer>`;
  function escape(text) {
    return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  }
  function mount(selector) {
    const items = state.todos.map((t) =>
      `<li class="${t.done ? "completed" : ""}"><div class="view"><input class="toggle" type="checkbox">` +
      `<label>${escape(t.title)}</label></div></li>`).join("");
    const left = state.todos.filter((t) => !t.done).length;
    document.querySelector(selector).innerHTML = template.replace("{{items}}", items).replace("{{left}}", left);
  }
  mount(".todoapp");
})();
