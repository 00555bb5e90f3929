// A Lit-style app: custom elements rendering into open shadow roots, one nested in the other.
const styles = ":host { display: block } li { padding: 12px 16px; border-bottom: 1px solid #ededed; }";

class TodoItem extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: "open" });
  }
  connectedCallback() {
    const li = document.createElement("li");
    const label = document.createElement("label");
    label.textContent = this.getAttribute("text") || "";
    li.append(label);
    const style = document.createElement("style");
    style.textContent = styles;
    this.shadowRoot.replaceChildren(style, li);
  }
}

class TodoApp extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: "open" });
    this.todos = [
      "Tune the upright piano before the Saturday recital",
      "Label the seed packets saved from the runner beans",
      "Order a replacement hinge for the garden gate",
    ];
  }
  connectedCallback() {
    // Lit renders in a microtask after the element upgrades.
    Promise.resolve().then(() => this.render());
  }
  render() {
    const section = document.createElement("section");
    section.className = "todoapp";
    const h1 = document.createElement("h1");
    h1.textContent = "todos";
    const ul = document.createElement("ul");
    for (const text of this.todos) {
      const item = document.createElement("todo-item");
      item.setAttribute("text", text);
      ul.append(item);
    }
    const footer = document.createElement("footer");
    footer.textContent = `${this.todos.length} items left`;
    section.append(h1, ul, footer);
    this.shadowRoot.replaceChildren(section);
  }
}

customElements.define("todo-item", TodoItem);
customElements.define("todo-app", TodoApp);
