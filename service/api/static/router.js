// narrate studio: the URL names the view (#/jobs/<id>, #/batches/<id>, #/new), so a reload,
// Back and Forward, and links work.
import { $ } from "./dom.js";
import { closeBatch, openBatch } from "./batch.js";
import { closeJob, openJob } from "./job.js";
import { state } from "./store.js";

/** To a job's view, or to the compose form (null). @param {string | null} id */
export function go(id) {
  const h = id ? "#/jobs/" + id : "#/new";
  if (location.hash !== h) location.hash = h; else route();
}
export function route() {
  const m = location.hash.match(/^#\/jobs\/([A-Za-z0-9_-]{1,64})$/);
  if (m) { closeBatch(); if (m[1] !== state.jobId || $("job").hidden) openJob(m[1]); return; }
  const b = location.hash.match(/^#\/batches\/([A-Za-z0-9_-]{1,64})$/);
  if (b) { if (b[1] !== state.batchId || $("batch").hidden) openBatch(b[1]); return; }
  closeBatch(); closeJob(); $("compose").hidden = false;
  document.querySelectorAll("#job-list button").forEach((b) => b.setAttribute("aria-current", "false"));
}
window.addEventListener("hashchange", route);
