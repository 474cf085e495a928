// narrate studio: the job list beside every view: this key's recent jobs, searched and
// filtered, read again while any runs and now and then (another tab, another machine).
import { api } from "./api.js";
import { TERMINAL } from "./job-states.js";
import { $, el, field } from "./dom.js";
import { textLang } from "./format.js";
import { t, when } from "./i18n.js";
import { keyed } from "./morph.js";
import { go } from "./router.js";
import { set, state } from "./store.js";

/** Another tab's studio hears of this key's changes through this localStorage key (tabs.js). */
export const JOBS_BUMP = "narrate.jobs";

export async function loadJobs() {
  if (state.listTimer) clearTimeout(state.listTimer);
  set({ listTimer: null });
  try {
    // A search the listed jobs could not answer asks the server (GET /v1/jobs?q=&status=).
    const f = field("job-filter").value, q = state.search ? field("job-search").value.trim() : "";
    const params = new URLSearchParams({ limit: "30" });
    if (q) params.set("q", q.slice(0, 100));
    if (q && f && f !== "active") params.set("status", f);
    /** @type {{ jobs: import("./store.js").Job[] }} */
    const data = await api("/v1/jobs?" + params);
    $("job-list").dataset.q = q;
    keyed($("job-list"), data.jobs.map((j) => el("li", { "data-key": j.id },
      el("button", { type: "button", "data-id": j.id, "aria-current": j.id === state.jobId ? "true" : null,
        onclick: () => go(j.id) },
        el("span", { class: "t", text: j.title || t("untitled"), lang: textLang(j.title) }),
        el("span", { class: "state " + j.status, "data-state": j.status, text: t("state." + j.status) }),
        el("span", { class: "muted", text: " · " + when(j.created) + (j.parent ? t("fixTag") : "") })))));
    $("jobs-msg").textContent = data.jobs.length ? "" : t(q ? "noMatch" : "noJobs");
    filterJobs();
    // Jobs still under way: the list follows them (every 3 s) until they end; otherwise it is
    // read again now and then (a job submitted elsewhere, another tab) and when the tab is shown.
    const busy = data.jobs.some((j) => !TERMINAL.includes(j.status));
    set({ listTimer: window.setTimeout(loadJobs, busy ? 3000 : 20000) });
  } catch (e) { $("jobs-msg").textContent = /** @type {Error} */ (e).message; }
}
/** The list's entry for a job the page has just read (its state changes before the list is read again). @param {{ id: string, status: string }} j */
export function listed(j) {
  const b = /** @type {HTMLElement | null} */ (document.querySelector(`#job-list button[data-id="${j.id}"] .state`));
  if (b && b.dataset.state !== j.status) { b.dataset.state = j.status; b.textContent = t("state." + j.status); b.className = "state " + j.status; }
}
/** This tab submitted, re-rendered or canceled something: its list, and the other tabs', are read again. */
export function jobsChanged() {
  loadJobs();
  try { localStorage.setItem(JOBS_BUMP, `${Date.now()}:${Math.random()}`); } catch (_) { /* full */ }
}
// Search (title or id) and the state filter: the listed jobs that match stay shown.
function filterJobs() {
  const raw = field("job-search").value.trim(), q = raw.toLowerCase(), f = field("job-filter").value;
  const served = raw && $("job-list").dataset.q === raw;  // the list is the server's answer to it
  let shown = 0;
  for (const li of /** @type {HTMLCollectionOf<HTMLElement>} */ ($("job-list").children)) {
    const b = /** @type {HTMLElement} */ (li.querySelector("button")), st = /** @type {HTMLElement} */ (b.querySelector(".state")).dataset.state || "";
    const hit = (!q || served || (b.dataset.id || "").startsWith(q) || (b.textContent || "").toLowerCase().includes(q))
      && (!f || (f === "active" ? !TERMINAL.includes(st) : st === f));
    li.hidden = !hit; shown += Number(hit);
  }
  if ($("job-list").children.length) $("jobs-msg").textContent = shown ? "" : t("noMatch");
  // Nothing listed matches: the server searches all of this key's jobs (titles, ids) after a pause.
  clearTimeout(state.searchTimer);
  if (!shown && q && !served) set({ searchTimer: window.setTimeout(() => { set({ search: true }); loadJobs(); }, 300) });
  else if (!q && state.search) set({ search: false, searchTimer: window.setTimeout(loadJobs, 0) });
}
$("refresh-jobs").addEventListener("click", loadJobs);
$("job-search").addEventListener("input", filterJobs);
$("job-filter").addEventListener("change", filterJobs);
document.addEventListener("visibilitychange", () => { if (!document.hidden) loadJobs(); });
$("new-job").addEventListener("click", () => go(null));
