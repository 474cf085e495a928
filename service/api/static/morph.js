// narrate studio: re-rendered content in place. A view builds its new nodes whole and morphs
// the old ones into them: a node that is still there keeps its identity (and the focus or a
// click under way in it); only what changed is written; `style` through the CSSOM (the CSP
// forbids style attributes). No global DOM: the nodes' own document makes what is new, so
// node's tests run it on jsdom's.

/**
 * `a` made like `b` (its attributes, text and children); `a` itself unless its type or tag
 * differs, then `b` takes its place. Returns the node now in the tree.
 * @param {Node} a
 * @param {Node} b
 * @returns {Node}
 */
export function morph(a, b) {
  if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) { /** @type {ChildNode} */ (a).replaceWith(b); return b; }
  if (a.nodeType !== 1) {  // text (or a comment): its data
    const [x, y] = /** @type {CharacterData[]} */ ([a, b]);
    if (x.data !== y.data) x.data = y.data;
    return a;
  }
  return element(/** @type {Element} */ (a), /** @type {Element} */ (b));
}

/**
 * @param {Element} a
 * @param {Element} b
 * @returns {Element}
 */
function element(a, b) {
  for (const { name } of [...a.attributes]) if (!b.hasAttribute(name)) a.removeAttribute(name);
  for (const { name, value } of b.attributes) {
    if (name === "style") {
      const [x, y] = /** @type {HTMLElement[]} */ ([a, b]);
      if (x.style.cssText !== y.style.cssText) x.style.cssText = y.style.cssText;
    } else if (a.getAttribute(name) !== value) a.setAttribute(name, value);
  }
  patch(a, [...b.childNodes]);
  return a;
}

/**
 * `parent`'s children made like `kids` (a string is a text node), position by position.
 * @param {Node} parent
 * @param {(Node | string)[]} kids
 */
export function patch(parent, kids) {
  const doc = /** @type {Document} */ (parent.ownerDocument);
  const old = [...parent.childNodes];
  kids.forEach((k, i) => {
    const node = typeof k === "string" ? doc.createTextNode(k) : k;
    if (old[i]) morph(old[i], node); else parent.appendChild(node);
  });
  for (const n of old.slice(kids.length)) n.remove();
}

/**
 * `parent`'s children made like `nodes`, matched by their data-key (a job's, a batch item's):
 * moved, not remade, when the order changes.
 * @param {HTMLElement} parent
 * @param {HTMLElement[]} nodes
 */
export function keyed(parent, nodes) {
  const old = new Map([...parent.children].map((n) => [/** @type {HTMLElement} */ (n).dataset.key, n]));
  const next = nodes.map((n) => { const was = old.get(n.dataset.key); old.delete(n.dataset.key); return was ? morph(was, n) : n; });
  for (const n of old.values()) n.remove();
  next.forEach((n, i) => { if (parent.children[i] !== n) parent.insertBefore(n, parent.children[i] || null); });
}
