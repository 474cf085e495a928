// The page's re-render in place (service/api/static/morph.js), on jsdom's DOM.
import assert from "node:assert/strict";
import { test } from "node:test";
import { JSDOM } from "jsdom";
import { keyed, morph, patch } from "../../service/api/static/morph.js";

const { window } = new JSDOM("<!doctype html><body></body>");
const doc = window.document;
/** @param {string} html */
const frag = (html) => { const d = doc.createElement("div"); d.innerHTML = html; return d; };
/** The first element child of ``parent``, which the test's markup puts there.
 * @param {ParentNode} parent @returns {HTMLElement} */
const element = (parent) => {
  const el = parent.firstElementChild;
  assert.ok(el instanceof window.HTMLElement, "an element child");
  return el;
};

test("a node still there keeps its identity; its attributes, style and text follow the new one", () => {
  const a = frag('<p class="x" title="old" data-gone="1">old <b>bold</b></p>');
  element(a).style.cssText = "color: red;";
  const p = element(a), b = p.lastChild;
  const next = frag('<p class="y" title="new">new <b>bolder</b></p>');
  element(next).style.cssText = "color: blue;";
  morph(a, next);
  assert.equal(a.firstElementChild, p);
  assert.equal(p.lastChild, b);
  assert.equal(p.outerHTML, '<p class="y" title="new" style="color: blue;">new <b>bolder</b></p>');
});

test("a node of another tag is replaced; extra children go, missing ones come", () => {
  const a = frag("<span>1</span><span>2</span><span>3</span>");
  const first = a.firstChild;
  patch(a, [element(frag("<em>1</em>")), "two"]);
  assert.equal(a.innerHTML, "<em>1</em>two");
  assert.notEqual(a.firstChild, first);
  patch(a, [doc.createTextNode("x"), "y", "z"]);
  assert.equal(a.innerHTML, "xyz");
});

test("the focus stays in a morphed node", () => {
  const box = frag('<button id="b">old</button>');
  doc.body.append(box);
  const btn = element(box);
  btn.focus();
  morph(box, frag('<button id="b">new</button>'));
  assert.equal(doc.activeElement, btn);
  assert.equal(btn.textContent, "new");
  box.remove();
});

test("keyed children move with their key, not remade; the others come and go", () => {
  const ul = doc.createElement("ul");
  /** @param {string[]} keys */
  const items = (keys) => keys.map((k) => { const li = doc.createElement("li"); li.dataset.key = k; li.textContent = k.toUpperCase(); return li; });
  keyed(ul, items(["a", "b", "c"]));
  const [a, , c] = ul.children;
  keyed(ul, items(["c", "a", "d"]));
  assert.deepEqual([...ul.children].map((n) => n.textContent), ["C", "A", "D"]);
  assert.equal(ul.children[0], c);
  assert.equal(ul.children[1], a);
});
