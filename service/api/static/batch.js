// narrate studio, batches: several scripts submitted in one request (the compose form's
// options for all), and the batch view (#/batches/<id>) following its events: each item's
// state, stage, job and speech check; the batch canceled, or downloaded whole.
import { api, openStream } from "./api.js";
import { $, button, el, field, table } from "./dom.js";
import { options } from "./compose.js";
import { textLang } from "./format.js";
import { percent, t, when } from "./i18n.js";
import { saveAs, stopPolling } from "./job.js";
import { TERMINAL } from "./job-states.js";
import { jobsChanged, listed, loadJobs } from "./jobs.js";
import { keyed } from "./morph.js";
import { plainWords, stageName } from "./problems.js";
import { showProblems } from "./report.js";
import { set, state } from "./store.js";

/** @typedef {import("./store.js").Json} Json */

$("batch-submit").addEventListener("click", async () => {
  const files = [...(field("batch-files").files || [])];
  $("batch-error").textContent = "";
  if (!files.length) { $("batch-error").textContent = t("batchNone"); return; }
  const fd = new FormData();
  for (const f of files) fd.append("script", f, f.name);
  const o = options(); delete o.music_level; delete o.music_duck;
  fd.append("options", JSON.stringify(o));
  button("batch-submit").disabled = true;
  try {
    const b = await api("/v1/batches", { method: "POST", body: fd });
    location.hash = "#/batches/" + b.id; jobsChanged();
  } catch (e) { showProblems($("batch-error"), t("notSubmittedBatch"), e); }
  finally { button("batch-submit").disabled = false; }
});
export function closeBatch() {
  if (state.batchStream) state.batchStream.close();
  if (state.batchTimer) clearTimeout(state.batchTimer);
  set({ batchStream: null, batchTimer: null, batchId: null }); $("batch").hidden = true;
}
/** @param {string} id */
export async function openBatch(id) {
  stopPolling(); closeBatch(); set({ jobId: null, batchId: id });
  $("compose").hidden = true; $("job").hidden = true; $("batch").hidden = false;
  $("batch-error-view").textContent = ""; delete $("batch").dataset.stream; set({ batchNoStream: false });
  await readBatch(id);
  $("batch-h").focus();
}
/** The batch read and shown; followed by its events (or polled) until it ends. @param {string} id */
export async function readBatch(id) {
  /** @type {Json} */
  let b;
  try { b = await api("/v1/batches/" + id); } catch (err) {
    const e = /** @type {import("./api.js").ApiError} */ (err);
    if (id !== state.batchId) return;
    $("batch-error-view").textContent = e.status === 404 ? t("noSuchJob") : e.message;
    if (e.status !== 404 && e.status !== 401) set({ batchTimer: window.setTimeout(() => readBatch(id), 2000) });
    return;
  }
  if (id !== state.batchId) return;
  showBatch(b);
  for (const it of b.items) listed({ id: it.job, status: it.status });  // the job list agrees
  if (TERMINAL.includes(b.status)) { loadJobs(); if (state.batchStream) state.batchStream.close(); set({ batchStream: null }); return; }
  if (state.batchStream) return;
  if (state.batchNoStream) { set({ batchTimer: window.setTimeout(() => readBatch(id), 800) }); return; }
  let pending = false;
  const changed = () => {
    if (pending || id !== state.batchId) return;
    pending = true; setTimeout(() => { pending = false; if (id === state.batchId) readBatch(id); }, 100);
  };
  const stream = openStream(`/v1/batches/${id}/events`, { item: changed, completed: changed }, () => {
    set({ batchStream: null });
    if (id !== state.batchId) return;
    set({ batchNoStream: true }); readBatch(id);
  });
  set({ batchStream: stream });
  $("batch").dataset.stream = stream.kind;
}
/** @param {Json} b */
function showBatch(b) {
  $("batch").dataset.id = b.id; $("batch").dataset.status = b.status;
  $("batch-meta").textContent = t("batchMeta", b.id, b.items.length, when(b.created));
  /** @type {HTMLProgressElement} */ ($("batch-progress")).value = b.progress;
  $("batch-status").replaceChildren(el("span", { class: "state " + b.status, "data-state": b.status, text: t("state." + b.status) }),
    ` · ${percent(b.progress)}`);
  $("batch-cancel").hidden = TERMINAL.includes(b.status);
  keyed(table("batch-items").tBodies[0], b.items.map((/** @type {Json} */ it) => el("tr", { "data-key": it.job, "data-job": it.job, "data-state": it.status },
    el("td", { text: it.name, lang: textLang(it.name) }),
    el("td", { class: "state " + it.status, "data-state": it.status, text: t("state." + it.status) }),
    el("td", { text: it.stage && !TERMINAL.includes(it.status) ? stageName(it.stage, t) : (it.error ? plainWords(it.error.message, t) : "") }),
    el("td", {}, el("a", { href: "#/jobs/" + it.job, text: it.job.slice(0, 8) })),
    // the segments the speech check flagged (heard.js shows them in the job view)
    el("td", { class: (it.flagged || []).length ? "flag" : "", "data-flagged": (it.flagged || []).length,
      text: (it.flagged || []).length ? t("batchFlagged", it.flagged.length, it.flagged.join(", ")) : "" }))));
  $("batch-refused").replaceChildren(...(b.refused || []).map((/** @type {Json} */ r) => el("li", { text: t("batchRefused", r.name || "") })));
  $("batch-zip").onclick = saveAs(`/v1/batches/${b.id}/artifacts.zip`, `${b.id}.zip`);
  $("batch-zip").hidden = !b.items.some((/** @type {Json} */ it) => it.artifacts.length);
}
$("batch-cancel").addEventListener("click", async () => {
  try { await api("/v1/batches/" + state.batchId, { method: "DELETE" }); } catch (e) { $("batch-error-view").textContent = /** @type {Error} */ (e).message; }
  if (state.batchId) readBatch(state.batchId);
  jobsChanged();
});
