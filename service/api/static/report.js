// narrate studio: problems and warnings shown where the editor is: every problem of a check
// at once, each with its field's label and, where it has one, a link to its line in the script.
import { el, field } from "./dom.js";
import { t } from "./i18n.js";
import { problemLine, problemText } from "./problems.js";

/** A warning {code, message, segment}: the code rides along for styling and tests. @param {import("./store.js").Json} w */
export function warningItem(w) {
  return el("li", { "data-code": w.code, "data-segment": w.segment || null, text: w.message });
}
/** The script's line `n` selected, in view. @param {number} n */
function goToLine(n) {
  const ta = field("script"), lines = ta.value.split("\n");
  const start = lines.slice(0, n - 1).reduce((a, l) => a + l.length + 1, 0);
  ta.focus(); ta.setSelectionRange(start, start + (lines[n - 1] || "").length);
}
/**
 * Under `head`, each of the error's problems (a 422's items, else its message).
 * @param {HTMLElement} box
 * @param {string} head
 * @param {unknown} err
 */
export function showProblems(box, head, err) {
  const e = /** @type {import("./api.js").ApiError} */ (err);
  const items = e.items || [{ msg: e.message }];
  box.replaceChildren(el("p", { text: head }), el("ul", {}, ...items.map((item) => {
    const n = problemLine(item, field("script").value);
    return el("li", { "data-code": item.code || null, "data-line": n },
      problemText(item, t), n ? " " : null,
      n ? el("a", { href: "#", onclick: (/** @type {Event} */ ev) => { ev.preventDefault(); goToLine(n); }, text: "(" + t("line", n) + ")" }) : null);
  })));
}
