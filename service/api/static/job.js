// narrate studio, the job view (#/jobs/<id>): its state followed live (its event stream, or
// polling when the stream drops), its segments, warnings and errors; once it ends, its
// result: the preview (player.js), the downloads, and the fix panel (fix.js).
import { api, artifactURL, openStream, postJSON } from "./api.js";
import { $, el, player, table } from "./dom.js";
import { fixDiff, fixForm } from "./fix.js";
import { textLang } from "./format.js";
import { markHeard } from "./heard.js";
import { percent, t, when } from "./i18n.js";
import { TERMINAL } from "./job-states.js";
import { jobsChanged, listed, loadJobs } from "./jobs.js";
import { patch } from "./morph.js";
import { drawCues, timeline } from "./player.js";
import { plainWords, stageName } from "./problems.js";
import { warningItem } from "./report.js";
import { set, state, subscribe } from "./store.js";
import { parseVTT } from "./vtt.js";

/** @typedef {import("./store.js").Json} Json */
/** @typedef {import("./store.js").Job} Job */
/** @typedef {import("./store.js").SegmentState} SegmentState */

export function stopPolling() {
  if (state.timer) clearTimeout(state.timer);
  if (state.events) state.events.close();
  set({ timer: null, events: null });
}
/** The job view left (for the compose form, a batch, or signing out). */
export function closeJob() { stopPolling(); set({ jobId: null }); $("job").hidden = true; }
/** @param {string} id */
export async function openJob(id) {
  stopPolling();
  for (const u of state.urls) URL.revokeObjectURL(u);
  delete $("job").dataset.stream;
  set({ urls: [], jobId: id, noStream: false, job: null, source: null, manifest: null, loaded: null,
    subs: null, burned: false, drawn: "" });
  $("cues").replaceChildren(); $("burned-note").hidden = true;
  if (state.segAudio) state.segAudio.pause();
  $("compose").hidden = true; $("job").hidden = false; $("preview").hidden = true; $("fix").hidden = true;
  player().removeAttribute("src"); player().replaceChildren();
  $("job-error").textContent = ""; $("fix-error").textContent = ""; $("fix-msg").textContent = "";
  document.querySelectorAll("#job-list button").forEach((b) => b.setAttribute("aria-current", /** @type {HTMLElement} */ (b).dataset.id === id ? "true" : "false"));
  await poll();
  $("job-h").focus();
}
async function poll() {
  const id = state.jobId;
  if (!id) return;
  /** @type {Job} */
  let job;
  try { job = await api("/v1/jobs/" + id); } catch (err) {
    const e = /** @type {import("./api.js").ApiError} */ (err);
    if (id !== state.jobId) return;
    $("job-error").textContent = e.status === 404 ? t("noSuchJob") : e.message;
    if (e.status !== 404 && e.status !== 401) set({ timer: window.setTimeout(poll, 2000) });
    return;
  }
  if (id !== state.jobId) return;
  set({ job }); showJob(job); listed(job);
  const terminal = TERMINAL.includes(job.status);
  // EventSource cannot send the Authorization header: with a key the stream is read by fetch().
  if (!terminal && !state.noStream) follow(id);
  else if (!terminal) set({ timer: window.setTimeout(poll, 400) });
  else { stopPolling(); loadJobs(); if (state.loaded !== job.id) { set({ loaded: job.id }); await loadResult(job); } }
}
/**
 * Live progress from GET /v1/jobs/{id}/events: each change reloads the job (at most every
 * 100 ms); a dropped stream falls back to polling for this job.
 * @param {string} id
 */
function follow(id) {
  if (state.events) return;
  const changed = () => {
    if (id !== state.jobId || state.pending) return;
    set({ pending: true });
    setTimeout(() => { set({ pending: false }); if (id === state.jobId && state.events === es) poll(); }, 100);
  };
  const es = openStream("/v1/jobs/" + id + "/events", { status: changed, update: changed, segment: changed }, () => {
    if (state.events !== es) return;
    set({ events: null, noStream: true });
    if (id === state.jobId) poll();
  });
  set({ events: es });
  $("job").dataset.stream = es.kind;
}
/** @param {Job} j */
function showJob(j) {
  $("job-h").textContent = j.title || t("job");
  $("job-h").lang = textLang(j.title) || "";
  patch($("job-meta"), [t("jobMeta", j.id, when(j.created)),
    ...(j.parent ? [t("fixOf"), el("a", { href: "#/jobs/" + j.parent, text: j.parent.slice(0, 8) })] : []),
    ...(j.batch ? [t("inBatch"), el("a", { href: "#/batches/" + j.batch, class: "batch-link", text: j.batch.slice(0, 8) })] : [])]);
  /** @type {HTMLProgressElement} */ ($("job-progress")).value = j.progress;
  const stage = j.stage && !TERMINAL.includes(j.status) ? ` · ${stageName(j.stage, t)}` : "";
  $("job-status").replaceChildren(el("span", { class: "state " + j.status, "data-state": j.status, text: t("state." + j.status) }),
    `${stage} · ${percent(j.progress)}`);
  $("cancel").hidden = TERMINAL.includes(j.status);
  $("job-error").textContent = j.error ? t("jobEnded", t("state." + j.status), plainWords(j.error.message, t)) : "";
  $("job-error").dataset.code = j.error ? j.error.code : "";
  $("job-warnings").replaceChildren(...j.warnings.map(warningItem));
  table("seg-table").tBodies[0].replaceChildren(...j.segments.map((s) => {
    const st = segmentState(j, s);
    return el("tr", { "data-index": s.index },
      el("td", { text: s.index }), el("td", { class: "state " + st.replace(" ", "-"), "data-state": st, text: t("state." + st) }),
      el("td", { text: s.engine || "" }), el("td", { text: s.voice || "" }), el("td", { text: s.worker || "" }),
      el("td", { text: ttsCalls(s) }));
  }));
  markHeard();  // heard.js: the speech check's flags, once the manifest is in
}
/**
 * A segment's state as the editor reads it: the one the error names failed; an ended job runs
 * nothing, so a segment it never finished did not run (failed) or was stopped (canceled).
 * @param {Job} j
 * @param {SegmentState} s
 * @returns {string}
 */
function segmentState(j, s) {
  const failedAt = j.error && j.status === "failed" ? j.error.segment : null;
  const ended = j.status === "failed" || j.status === "canceled";
  if (s.index === failedAt) return "failed";
  return ended && s.state !== "done" && s.state !== "failed" ? (j.status === "failed" ? "not run" : "canceled") : s.state;
}
/**
 * A segment's synthesis calls in the editor's words: none (every reading came from the cache),
 * or how many, one of them the reading again at the rate that fits its seconds.
 * @param {SegmentState} s
 */
function ttsCalls(s) {
  if (s.tts_calls === null || s.tts_calls === undefined) return "";
  if (s.tts_calls === 0) return t("ttsCached");
  const m = state.manifest && state.manifest.segments[s.index - 1];
  return s.tts_calls > 1 && m && m.native_rate && m.native_rate !== 1 ? t("ttsRefit", s.tts_calls) : String(s.tts_calls);
}
$("cancel").addEventListener("click", async () => {
  try { await api("/v1/jobs/" + state.jobId, { method: "DELETE" }); } catch (e) { $("job-error").textContent = /** @type {Error} */ (e).message; }
  stopPolling(); poll(); jobsChanged();
});
subscribe(["lang"], (s) => {
  if (!s.job) return;
  showJob(s.job);
  if (s.manifest) { timeline(s.manifest); downloads(s.job); }
});

/** An ended job's source, and a succeeded one's manifest, preview and downloads. @param {Job} job */
async function loadResult(job) {
  const base = "/v1/jobs/" + job.id;
  try {
    const source = await api(base + "/source");
    set({ source });
    if (job.status === "succeeded") await showResult(job, base, source);
    fixForm(source.spec);
    $("fix").hidden = false;
    fixDiff();
    // Each segment's syllables (the pace a drag shows), as a check of the job's own spec counts them.
    set({ syllables: null });
    postJSON("/v1/scripts:parse", { script: JSON.stringify(source.spec), name: "job.json" })
      .then((p) => { set({ syllables: p.segments.map((/** @type {Json} */ x) => x.syllables) }); }).catch(() => {});
  } catch (e) { $("job-error").textContent = /** @type {Error} */ (e).message; }
}
/** @param {Job} job @param {string} base @param {Json} source */
async function showResult(job, base, source) {
  const manifest = await api(base + "/artifacts/manifest.json");
  set({ manifest });
  if (state.job && state.job.id === job.id) showJob(state.job);  // the calls' column reads it
  const v = player();
  // A job with masters has no video.mp4 of its own: its first master's is shown.
  const video = job.artifacts.includes("video.mp4") ? "video.mp4"
    : job.artifacts.find((n) => /^masters\/[^/]+\/video\.mp4$/.test(n));
  if (video) {
    v.src = await artifactURL(base + "/artifacts/" + video);
    v.hidden = false;
  } else if (job.artifacts.includes("narration.wav")) {
    v.src = await artifactURL(base + "/artifacts/narration.wav");
  }
  // The subtitles are drawn over the picture where the export puts them (drawCues), once:
  // a burned-in picture has them already.
  set({ burned: burnedIn(source.options) && job.artifacts.includes("video.mp4") });
  $("burned-note").hidden = !state.burned;
  if (job.artifacts.includes("subtitles.vtt") && !state.burned) {
    // Read as text with the key (the CSP refuses fetching a blob: URL); the track loads its own copy.
    set({ subs: parseVTT(await api(base + "/artifacts/subtitles.vtt", { text: true })) });
    const src = await artifactURL(base + "/artifacts/subtitles.vtt");
    const track = /** @type {HTMLTrackElement} */ (el("track", { kind: "subtitles", label: "Subtitles", srclang: manifest.language || "zh", default: true, src }));
    v.append(track);
    track.track.mode = "hidden";  // its cues stay readable; the page draws them
  }
  drawCues();
  timeline(manifest);
  downloads(job);
  $("preview").hidden = false;
}
/** The job's options burn the subtitles in (its own, or its preset's). @param {Json | null | undefined} o */
export function burnedIn(o) { return !!(o && (o.burn_in || (o.preset_values && o.preset_values.burn_in))); }

/** A button's action: the artifact at `path` saved as `name`. @param {string} path @param {string} name */
export function saveAs(path, name) {
  return async () => {
    try {
      const a = el("a", { href: await artifactURL(path), download: name }); document.body.append(a); a.click(); a.remove();
    } catch (e) { $("job-error").textContent = /** @type {Error} */ (e).message; }
  };
}
/** Every artifact, grouped by master, and the whole job as one zip. @param {Pick<Job, "id" | "artifacts">} job */
export function downloads(job) {
  const base = "/v1/jobs/" + job.id + "/artifacts/";
  const names = job.artifacts;
  const packaged = names.includes("timeline-package.zip");
  const shown = names.filter((n) => !(packaged && n.startsWith("segments/")));
  /** @param {string} n @param {string} [label] */
  const item = (n, label) => el("li", {}, el("button", { type: "button", "data-name": n, onclick: saveAs(base + n, n.replace(/\//g, "-")), text: t("download", label || n) }));
  /** @type {Map<string, [string, string][]>} */
  const masters = new Map();
  for (const n of shown) {
    const m = n.match(/^masters\/([^/]+)\/(.+)$/);
    if (m) { if (!masters.has(m[1])) masters.set(m[1], []); masters.get(m[1])?.push([n, m[2]]); }
  }
  $("download-all").onclick = saveAs(`/v1/jobs/${job.id}/artifacts.zip`, `${job.id}.zip`);
  $("downloads").replaceChildren(...shown.filter((n) => !n.startsWith("masters/")).map((n) => item(n)));
  $("masters").replaceChildren(...[...masters.entries()].map(([name, files]) => el("div", { class: "master", "data-master": name },
    el("h4", { text: t("master", name) }), el("ul", { class: "downloads" }, ...files.map(([n, f]) => item(n, f))))));
}
