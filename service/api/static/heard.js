// narrate studio, the speech check in the job view: the segments table marks the segments the
// recogniser heard otherwise (the manifest's speech_check), each flagged segment shows its
// script with what was heard under it, the differences marked on both lines, and one click
// re-renders the job with on_mismatch retry: the flagged segments are synthesised again (the
// next voice of their chain, or the same one slower) and the better reading kept; the others
// come from the TTS cache.
import { postJSON } from "./api.js";
import { $, button, el, table } from "./dom.js";
import { markSpans } from "./diff.js";
import { percent, t } from "./i18n.js";
import { jobsChanged } from "./jobs.js";
import { showProblems } from "./report.js";
import { go } from "./router.js";
import { state } from "./store.js";

/** @typedef {import("./store.js").Json} Json */

/** `text` with each of `parts` (in order, each found after the last) marked as a difference. @param {string} text @param {[string, string][]} parts */
function marked(text, parts) {
  return markSpans(text, parts).map(({ text: piece, kind }) => kind === null ? piece
    : el("mark", { class: "diff " + kind, "data-kind": kind, title: t("heard" + kind[0].toUpperCase() + kind.slice(1)), text: piece }));
}
/** @param {Json} seg @param {number} index @param {string} lang */
function heardItem(seg, index, lang) {
  const c = seg.speech_check, rate = percent(c.error_rate || 0);
  /** @type {Json[]} */
  const diff = c.diff;
  const said = marked(seg.text, diff.filter((d) => d.kind !== "extra").map((d) => [d.said, d.kind]));
  const heard = marked(c.heard || c.transcript || "", diff.filter((d) => d.kind !== "missing").map((d) => [d.heard, d.kind]));
  const tongue = lang === "en" ? "en" : "zh-CN";
  return el("li", { class: "heard-seg", "data-segment": index },
    el("div", { class: "heard-head", text: t("heardSeg", index, t("measure." + c.measure), rate) }),
    el("div", { class: "said" }, el("span", { class: "muted", text: t("heardScript") }), el("span", { lang: tongue }, ...said)),
    el("div", { class: "heard" }, el("span", { class: "muted", text: t("heardHeard") }),
      c.transcript ? el("span", { lang: tongue }, ...heard) : el("span", { class: "muted", text: t("heardNothing") })),
    seg.take ? el("p", { class: "muted", text: t("heardTake") }) : null);
}
/** Called by showJob: the table's rows and the list, from the manifest once it is loaded. */
export function markHeard() {
  const m = state.manifest, box = $("heard");
  /** @type {Json[]} */
  const segs = m ? m.segments : [];
  const checks = segs.map((s) => s.speech_check).filter(Boolean);
  box.hidden = !checks.length;
  if (!m || !checks.length) return;
  /** @type {[Json, number][]} */
  const flagged = segs.map((s, i) => /** @type {[Json, number]} */ ([s, i + 1])).filter(([s]) => s.speech_check && s.speech_check.flagged);
  for (const row of table("seg-table").tBodies[0].rows) {
    const seg = segs[Number(row.dataset.index) - 1], bad = !!(seg && seg.speech_check && seg.speech_check.flagged);
    row.classList.toggle("flagged", bad);
    if (bad) row.cells[1].append(el("span", { class: "flag", "data-flag": "speech", text: " · " + t("heardFlag") }));
  }
  const done = checks.filter((c) => c.status === "checked").length;
  $("heard-summary").textContent = flagged.length
    ? t("heardSummary", done, flagged.length, checks.length - done) : t("heardNone");
  $("heard-list").replaceChildren(...flagged.map(([s, n]) => heardItem(s, n, m.language)));
  $("heard-retry").hidden = !flagged.some(([s]) => !s.take);
}
$("heard-retry").addEventListener("click", async () => {
  const btn = button("heard-retry"), source = /** @type {Json} */ (state.source);
  $("heard-msg").textContent = ""; btn.disabled = true; $("fix-msg").textContent = t("heardRetrying");
  try {
    const options = Object.assign({}, source.options || {}, { on_mismatch: "retry" });
    delete options.preset_values;
    const r = await postJSON(`/v1/jobs/${state.job?.id}/rerender`, { spec: source.spec, options });
    $("fix-msg").textContent = "";
    go(r.id); jobsChanged();
  } catch (e) { showProblems($("heard-msg"), t("notRerendered", ""), e); $("fix-msg").textContent = ""; }
  finally { btn.disabled = false; }
});
