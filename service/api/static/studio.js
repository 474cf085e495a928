// narrate studio: plain JS, no dependencies, talks only to this server's /v1 API.
"use strict";
const $ = (id) => document.getElementById(id);
const KEY = "narrate.key";
const DRAFT = "narrate.draft";
const S = { job: null, jobId: null, timer: null, source: null, manifest: null, urls: [], voices: [], loaded: null,
  subs: null, burned: false, listTimer: null, drawn: "" };
const TERMINAL = ["succeeded", "failed", "canceled"];

function key() { return localStorage.getItem(KEY) || ""; }
function headers(extra) {
  const h = Object.assign({}, extra || {});
  if (key()) h.Authorization = "Bearer " + key();
  return h;
}
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "style") e.style.cssText = v;  // CSSOM: the CSP forbids style attributes
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}
// Re-rendered content in place: a node that is still there keeps its identity (and the focus
// or a click under way in it); only what changed is written. `style` through the CSSOM (CSP).
function morph(a, b) {
  if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) { a.replaceWith(b); return b; }
  if (a.nodeType !== 1) { if (a.data !== b.data) a.data = b.data; return a; }
  for (const { name } of [...a.attributes]) if (!b.hasAttribute(name)) a.removeAttribute(name);
  for (const { name, value } of b.attributes) {
    if (name === "style") { if (a.style.cssText !== b.style.cssText) a.style.cssText = b.style.cssText; }
    else if (a.getAttribute(name) !== value) a.setAttribute(name, value);
  }
  patch(a, [...b.childNodes]);
  return a;
}
function patch(parent, kids) {
  const old = [...parent.childNodes];
  kids.forEach((k, i) => { if (typeof k === "string") k = document.createTextNode(k); if (old[i]) morph(old[i], k); else parent.append(k); });
  for (const n of old.slice(kids.length)) n.remove();
}
// Children matched by their data-key (a job's, a batch item's): moved, not remade, when the order changes.
function keyed(parent, nodes) {
  const old = new Map([...parent.children].map((n) => [n.dataset.key, n]));
  const next = nodes.map((n) => { const was = old.get(n.dataset.key); old.delete(n.dataset.key); return was ? morph(was, n) : n; });
  for (const n of old.values()) n.remove();
  next.forEach((n, i) => { if (parent.children[i] !== n) parent.insertBefore(n, parent.children[i] || null); });
}
// A warning {code, message, segment}: the code rides along for styling and tests.
function warningItem(w) {
  return el("li", { "data-code": w.code, "data-segment": w.segment || null, text: w.message });
}
function detail(body, status) {
  if (!body) return "HTTP " + status;
  const d = body.detail;
  if (typeof d === "string") return d;
  if (Array.isArray(d)) return d.map((x) => x.msg).join("\n");  // 422: [{code, msg, loc}], msg names the field
  return "HTTP " + status;
}
async function api(path, opts) {
  opts = opts || {};
  let r = await fetch(path, Object.assign({}, opts, { headers: headers(opts.headers) }));
  if (r.status === 401 && key()) {
    // A saved key this server refuses: a server that needs none (loopback) still answers
    // without it, and the key is forgotten; otherwise the editor is asked to sign in.
    const bare = await fetch(path, Object.assign({}, opts, { headers: Object.assign({}, opts.headers || {}) }));
    if (bare.status !== 401) {
      localStorage.removeItem(KEY);
      $("who").textContent = t("keyRefused");
      r = bare;
    }
  }
  let body = null;
  const ct = r.headers.get("content-type") || "";
  if (ct.includes("json")) body = await r.json();
  else if (opts.text && r.ok) body = await r.text();
  if (r.status === 401) { $("who").textContent = t("signInPrompt", detail(body, r.status)); }
  if (!r.ok) {
    const e = new Error(detail(body, r.status)); e.status = r.status;
    e.items = body && Array.isArray(body.detail) ? body.detail : null;  // 422: every problem, with its code and loc
    throw e;
  }
  return body;
}
// Artifacts need the key; a <video> cannot send it, so with a key they are fetched as blobs.
async function artifactURL(path) {
  if (!key()) return path;
  const r = await fetch(path, { headers: headers() });
  if (!r.ok) throw new Error("could not load " + path + ": HTTP " + r.status);
  const u = URL.createObjectURL(await r.blob());
  S.urls.push(u);
  return u;
}
function fmt(s) { return new Intl.NumberFormat(LANG, { maximumFractionDigits: 2, useGrouping: false }).format(s); }
function when(x) { return new Date(x * 1000).toLocaleString(LANG); }
// Text in the script's words: Chinese unless it has no Han character.
function textLang(s) { return s && /[\u3400-\u9fff]/.test(s) ? "zh-CN" : null; }

// --- sign in ---------------------------------------------------------------------------
$("signin").addEventListener("submit", (e) => {
  e.preventDefault();
  const k = $("key").value.trim();
  if (k) localStorage.setItem(KEY, k); else localStorage.removeItem(KEY);
  $("key").value = "";
  signedIn();
});
$("signout").addEventListener("click", signOutHere);
// Signed out here, or in another tab of this studio (its `storage` event): nothing of the
// tenant's work stays on the page.
function signOutHere() {
  localStorage.removeItem(KEY);
  localStorage.removeItem(DRAFT); draftVideo(null); closeBatch();
  if (location.hash && location.hash !== "#/new") history.replaceState(null, "", "#/new");
  stopPolling(); S.jobId = null; $("job").hidden = true; $("compose").hidden = false;
  $("job-list").replaceChildren();
  $("job-form").reset(); $("parsed").replaceChildren(); $("form-error").textContent = "";
  $("video-name").textContent = ""; $("timeline").replaceChildren(); $("fix-list").replaceChildren();
  for (const u of S.urls) URL.revokeObjectURL(u);
  S.urls = []; S.job = null; S.source = null; S.manifest = null; S.subs = null; $("cues").replaceChildren();
  signedIn();
}
async function signedIn() {
  $("who").textContent = key() ? t("whoKey") : t("whoNone");
  await Promise.all([loadJobs(), loadVoices(), loadPresets()]);
}
// The presets this key sees (shipped and its own), each with its description as a tooltip.
async function loadPresets() {
  let ps = [];
  try { ps = await api("/v1/presets"); } catch (_) { /* none */ }
  const keep = $("preset").value || readDraft().preset || "";
  $("preset").replaceChildren(el("option", { value: "", text: t("presetNone") }),
    ...ps.map((p) => el("option", { value: p.name, title: p.description || null, text: p.name + (p.kind === "saved" ? " ★" : "") })));
  $("preset").value = ps.some((p) => p.name === keep) ? keep : "";
}

// --- job list --------------------------------------------------------------------------
async function loadJobs() {
  if (S.listTimer) clearTimeout(S.listTimer);
  S.listTimer = null;
  try {
    // A search the listed jobs could not answer asks the server (GET /v1/jobs?q=&status=).
    const f = $("job-filter").value, q = S.search ? $("job-search").value.trim() : "";
    const params = new URLSearchParams({ limit: "30" });
    if (q) params.set("q", q.slice(0, 100));
    if (q && f && f !== "active") params.set("status", f);
    const data = await api("/v1/jobs?" + params);
    $("job-list").dataset.q = q;
    const ul = $("job-list");
    keyed(ul, data.jobs.map((j) => el("li", { "data-key": j.id },
      el("button", { type: "button", "data-id": j.id, "aria-current": j.id === S.jobId ? "true" : null,
        onclick: () => go(j.id) },
        el("span", { class: "t", text: j.title || t("untitled"), lang: textLang(j.title) }),
        el("span", { class: "state " + j.status, "data-state": j.status, text: t("state." + j.status) }),
        el("span", { class: "muted", text: " · " + when(j.created) + (j.parent ? t("fixTag") : "") })))));
    $("jobs-msg").textContent = data.jobs.length ? "" : t(q ? "noMatch" : "noJobs");
    filterJobs();
    // Jobs still under way: the list follows them (every 3 s) until they end; otherwise it is
    // read again now and then (a job submitted elsewhere, another tab) and when the tab is shown.
    const busy = data.jobs.some((j) => !TERMINAL.includes(j.status));
    S.listTimer = setTimeout(loadJobs, busy ? 3000 : 20000);
  } catch (e) { $("jobs-msg").textContent = e.message; }
}
// The list's entry for a job the page has just read (its state changes before the list is read again).
function listed(j) {
  const b = document.querySelector(`#job-list button[data-id="${j.id}"] .state`);
  if (b && b.dataset.state !== j.status) { b.dataset.state = j.status; b.textContent = t("state." + j.status); b.className = "state " + j.status; }
}
$("refresh-jobs").addEventListener("click", loadJobs);
// Search (title or id) and the state filter: the listed jobs that match stay shown.
function filterJobs() {
  const raw = $("job-search").value.trim(), q = raw.toLowerCase(), f = $("job-filter").value;
  const served = raw && $("job-list").dataset.q === raw;  // the list is the server's answer to it
  let shown = 0;
  for (const li of $("job-list").children) {
    const b = li.querySelector("button"), st = b.querySelector(".state").dataset.state;
    const hit = (!q || served || b.dataset.id.startsWith(q) || b.textContent.toLowerCase().includes(q))
      && (!f || (f === "active" ? !TERMINAL.includes(st) : st === f));
    li.hidden = !hit; shown += hit;
  }
  if ($("job-list").children.length) $("jobs-msg").textContent = shown ? "" : t("noMatch");
  // Nothing listed matches: the server searches all of this key's jobs (titles, ids) after a pause.
  clearTimeout(S.searchTimer);
  if (!shown && q && !served) S.searchTimer = setTimeout(() => { S.search = true; loadJobs(); }, 300);
  else if (!q && S.search) { S.search = false; S.searchTimer = setTimeout(loadJobs, 0); }
}
$("job-search").addEventListener("input", filterJobs);
$("job-filter").addEventListener("change", filterJobs);
document.addEventListener("visibilitychange", () => { if (!document.hidden) loadJobs(); });
$("new-job").addEventListener("click", () => go(null));

// --- routes: the URL names the view (#/jobs/<id>, #/new): reload, Back/Forward and links work
function go(id) {
  const h = id ? "#/jobs/" + id : "#/new";
  if (location.hash !== h) location.hash = h; else route();
}
function route() {
  const m = location.hash.match(/^#\/jobs\/([A-Za-z0-9_-]{1,64})$/);
  if (m) { closeBatch(); if (m[1] !== S.jobId || $("job").hidden) openJob(m[1]); return; }
  const b = location.hash.match(/^#\/batches\/([A-Za-z0-9_-]{1,64})$/);
  if (b) { if (b[1] !== S.batchId || $("batch").hidden) openBatch(b[1]); return; }
  closeBatch(); stopPolling(); S.jobId = null; $("job").hidden = true; $("compose").hidden = false;
  document.querySelectorAll("#job-list button").forEach((b) => b.setAttribute("aria-current", "false"));
}
window.addEventListener("hashchange", route);

// --- voices ----------------------------------------------------------------------------
async function loadVoices() {
  try { S.voices = await api("/v1/voices"); } catch (e) { S.voices = []; }
  scriptVoices($("voice").value || readDraft().voice || "");
}
// The compose form follows the script's language: its voices, and the Traditional track's
// choice for a Chinese script only.
function scriptVoices(voice = $("voice").value) {
  const lang = scriptLanguage();
  fillVoices($("voice"), voice, lang, t("voiceDefault"));
  $("traditional-box").hidden = lang !== "zh";
}
// The script's language: the last check's, the JSON's own, or Chinese when it has a Han character.
function scriptLanguage() {
  const text = $("script").value;
  const m = text.match(/"language"\s*:\s*"([a-zA-Z-]+)"/);
  if (m) return m[1].slice(0, 2).toLowerCase();
  if (!text.trim()) return S.parsed ? S.parsed.spec.language || "zh" : "zh";
  return /[\u3400-\u9fff]/.test(text) ? "zh" : "en";
}
// The voices that speak `language`, grouped by locale (the main one first), with gender and engine.
function fillVoices(select, value, language, blank) {
  const vs = S.voices.filter((v) => !language || v.language === language);
  const main = language === "en" ? "en-US" : "zh-CN";
  const groups = new Map();
  for (const v of vs) { const loc = v.locale || v.language; if (!groups.has(loc)) groups.set(loc, []); groups.get(loc).push(v); }
  const order = [...groups.keys()].sort((a, b) => (b === main) - (a === main) || a.localeCompare(b));
  const gender = (g) => t("gender." + g);
  select.replaceChildren(el("option", { value: "", text: blank }), ...order.map((loc) => el("optgroup", { label: loc },
    ...groups.get(loc).map((v) => el("option", { value: v.id, selected: v.id === value,
      text: `${v.name || v.id} · ${gender(v.gender)} · ${v.engine}${v.default ? " · " + t("voiceDefault") : ""}` })))));
  select.value = vs.some((v) => v.id === value) ? value : "";
}
let auditioning = null;
// What "default" speaks in `lang`: its default voice, edge's first.
function defaultVoice(lang) {
  return (S.voices.find((v) => v.default && v.language === lang && v.engine === "edge")
    || S.voices.find((v) => v.default && v.language === lang) || {}).id;
}
// Hear voice `id` say `text` (none: the server's sample line) at `rate` and `pitch` (a segment's
// '+10%', '-2Hz'), before any render: GET /v1/voices/{id}/sample. `msg` says how it went.
async function audition(id, msg, { text, rate, pitch, note } = {}) {
  if (!id) return;
  const q = new URLSearchParams();
  if (text) q.set("text", text);
  if (rate) q.set("rate", rate);
  if (pitch) q.set("pitch", pitch);
  msg.textContent = t("auditionLoading");
  try {
    if (auditioning) auditioning.pause();
    $("player").pause();  // one thing heard at a time
    auditioning = new Audio(await artifactURL(`/v1/voices/${encodeURIComponent(id)}/sample?${q}`));
    S.audition = auditioning;
    await auditioning.play();
    msg.textContent = t("auditionPlaying", id) + (note || "");
  } catch (e) { msg.textContent = t("auditionFailed", e.message); }
}
$("audition").addEventListener("click", () => audition($("voice").value || defaultVoice(scriptLanguage()), $("audition-msg")));
let langTimer = null;
$("script").addEventListener("input", () => {
  clearTimeout(langTimer);
  langTimer = setTimeout(() => scriptVoices(), 300);
});

// --- new job ---------------------------------------------------------------------------
let scriptName = "script.md";
function dropZone(zone, onFile) {
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault(); zone.classList.remove("over");
    if (e.dataTransfer.files.length) onFile(e.dataTransfer.files[0]);
  });
}
async function takeScript(file) {
  scriptName = file.name; $("script").value = await file.text();
  scriptVoices();
  saveDraft(); checkScript();
}
function takeVideo(file) {
  const dt = new DataTransfer(); dt.items.add(file); $("video").files = dt.files; showVideo(); draftVideo(file);
}
function showVideo() {
  const f = $("video").files[0];
  S.videoSeconds = null;
  $("video-name").textContent = f ? `${f.name} · ${fmt(f.size / 1e6)} MB` : "";
  if (f) videoSeconds(f).then((d) => {
    if ($("video").files[0] !== f || d === null) return;
    S.videoSeconds = d;
    $("video-name").textContent = `${f.name} · ${fmt(f.size / 1e6)} MB · ${clock(d)}`;
  });
}
// The chosen video's length, read by the browser from the file (null: it cannot say).
function videoSeconds(file) {
  return new Promise((ok) => {
    const v = document.createElement("video"), url = URL.createObjectURL(file);
    const done = (d) => { URL.revokeObjectURL(url); ok(d); };
    v.preload = "metadata";
    v.onloadedmetadata = () => done(isFinite(v.duration) ? v.duration : null);
    v.onerror = () => done(null);
    v.src = url;
  });
}
dropZone($("script-drop"), takeScript);
dropZone($("video-drop"), takeVideo);
$("script-file").addEventListener("change", (e) => e.target.files[0] && takeScript(e.target.files[0]));
$("video").addEventListener("change", () => { showVideo(); draftVideo($("video").files[0] || null); });
$("script").addEventListener("input", () => { if (!$("script").value.trim().startsWith("{")) scriptName = scriptName.endsWith(".json") ? "script.md" : scriptName; });

// --- the draft: the compose form is saved as it is edited (the video in IndexedDB) ---------
const FIELDS = ["engine", "voice", "overflow", "traditional", "original", "preset", "music-level", "music-duck", "style"], CHECKS = ["burn", "extend-video", "exports"];
function readDraft() { try { return JSON.parse(localStorage.getItem(DRAFT) || "{}") || {}; } catch (_) { return {}; } }
function saveDraft() {
  const f = $("video").files[0], d = { script: $("script").value, name: scriptName, video: f ? `${f.name}:${f.size}` : "" };
  for (const f of FIELDS) d[f] = $(f).value;
  for (const f of CHECKS) d[f] = $(f).checked;
  try { localStorage.setItem(DRAFT, JSON.stringify(d)); } catch (_) { /* storage full: no draft */ }
}
// A saved draft into the compose form (at load, and when another tab saves one: studio-tabs.js).
function applyDraft(d) {
  if (typeof d.script === "string") $("script").value = d.script;
  if (d.name) scriptName = d.name;
  for (const f of FIELDS) if (typeof d[f] === "string") $(f).value = d[f];
  for (const f of CHECKS) if (typeof d[f] === "boolean") $(f).checked = d[f];
}
function restoreDraft() {
  const d = readDraft();
  applyDraft(d);
  idb("get", "video").then((file) => {
    if (!file || $("video").files.length) return;
    const dt = new DataTransfer(); dt.items.add(file); $("video").files = dt.files; showVideo();
  }).catch(() => {});
}
function idb(op, name, value) {
  return new Promise((ok, no) => {
    if (!window.indexedDB) { ok(null); return; }
    const open = indexedDB.open("narrate", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("draft");
    open.onerror = () => no(open.error);
    open.onsuccess = () => {
      const tx = open.result.transaction("draft", op === "get" ? "readonly" : "readwrite");
      const store = tx.objectStore("draft");
      const r = op === "get" ? store.get(name) : op === "put" ? store.put(value, name) : store.delete(name);
      tx.oncomplete = () => { open.result.close(); ok(r.result === undefined ? null : r.result); };
      tx.onerror = () => no(tx.error);
    };
  });
}
// Stored, then announced (the other tabs read it from IndexedDB when the write is done).
function draftVideo(file) {
  idb(file ? "put" : "delete", "video", file).then(() => {
    try { localStorage.setItem(DRAFT + ".video", `${file ? file.name + ":" + file.size : ""}@${Date.now()}`); } catch (_) { /* full */ }
  }).catch(() => {});
}
$("job-form").addEventListener("input", saveDraft);
$("job-form").addEventListener("change", saveDraft);

function options() {
  const o = { burn_in: $("burn").checked, original_audio: $("original").value, extend_video: $("extend-video").checked };
  if ($("engine").value) o.engine = $("engine").value;
  if ($("voice").value) o.voice = $("voice").value;
  if ($("overflow").value) o.on_overflow = $("overflow").value;
  if ($("traditional").value && !$("traditional-box").hidden) o.traditional = $("traditional").value;
  if ($("exports").checked) o.exports = ["otio", "fcpxml", "fcp7", "edl"];
  if ($("preset").value) o.preset = $("preset").value;
  if ($("style").value) o.style = $("style").value;
  if ($("music").files[0]) {
    o.music_level = parseFloat($("music-level").value || "-8");
    o.music_duck = parseFloat($("music-duck").value || "12");
  }
  return o;
}
function nameFor() { return $("script").value.trim().startsWith("{") ? "script.json" : scriptName; }

async function checkScript() {
  $("form-error").textContent = "";
  const out = $("parsed");
  try {
    const p = await api("/v1/scripts:parse", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ script: $("script").value, name: nameFor(), options: options() }) });
    showParsed(p);
    return true;
  } catch (e) {
    out.replaceChildren();
    showProblems($("form-error"), t("scriptProblem"), e);
    return false;
  }
}
// --- errors in the editor's words: every problem of a check at once, each with its field's
// label and, where it has one, a link to its line in the script.
const FIELD = { max_pace: "field.max_pace", on_overflow: "field.on_overflow", text: "field.text", seconds: "field.seconds",
  voice: "field.voice", speaker: "field.speaker", rate: "field.rate", pitch: "field.pitch", start: "field.start",
  engine: "field.engine", title: "field.title", language: "field.language", video: "field.video", music: "field.music",
  script: "field.script", qualifiers: "field.qualifiers", pronunciations: "field.pronunciations" };
function fieldName(loc) {
  const parts = (loc || []).filter((x) => x !== "body" && x !== "options" && x !== "fit");
  const out = [];
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === "segments" && typeof parts[i + 1] === "number") { out.push(t("field.segment", parts[i + 1] + 1)); i++; }
    else if (FIELD[parts[i]]) out.push(t(FIELD[parts[i]]));
    else if (typeof parts[i] === "string") out.push(parts[i]);
  }
  return out.join(" · ");
}
// The server's sentence, its internal names replaced by the form's labels.
function plainWords(msg) {
  return msg.replace(/fit\.max_pace=?/g, t("field.max_pace") + " ").replace(/\bfit max_pace\b/g, t("field.max_pace"))
    .replace(/\bon_overflow\b/g, t("field.on_overflow")).replace(/\boptions (?=\S)/g, "")
    .replace(/'source\.video'/g, t("field.video")).replace(/<ssl\.SSLContext[^>]*>/g, "TLS");
}
function problemText(item) {
  const where = fieldName(item.loc), m = item.msg || "";
  if (item.code === "pace.overflow") {
    const n = m.match(/([\d.]+) syllables in ([\d.]+) s needs ([\d.]+) syllables\/s, over the limit [^=]*=?([\d.]+)/);
    if (n) return t("code.pace.overflow", where, n[1], n[2], n[3], n[4]);
  }
  if (item.code === "voice.unknown") { const v = m.match(/unknown voice ('[^']*')/); if (v) return t("code.voice.unknown", where, v[1]); }
  const reason = plainWords(m.replace(/^segment \d+( [a-z_]+)?: /, "").replace(/^[a-z_]+( [a-z_]+)?: /, "").replace(/ ?\(line \d+\)/, ""));
  return where ? `${where}: ${reason}` : reason;
}
// The script line a problem is on: the one its message names, or its segment's header.
function problemLine(item) {
  const m = (item.msg || "").match(/\(line (\d+)\)|\bline (\d+)\b/);
  if (m) return parseInt(m[1] || m[2], 10);
  const loc = item.loc || [], at = loc.indexOf("segments");
  if (at < 0 || typeof loc[at + 1] !== "number") return null;
  const lines = $("script").value.split("\n"), want = loc[at + 1] + 1;
  const k = lines.findIndex((l) => new RegExp(`^\\s*\\[(段|Segment)\\s*${want}\\b`).test(l));
  return k >= 0 ? k + 1 : null;
}
function goToLine(n) {
  const ta = $("script"), lines = ta.value.split("\n");
  const start = lines.slice(0, n - 1).reduce((a, l) => a + l.length + 1, 0);
  ta.focus(); ta.setSelectionRange(start, start + (lines[n - 1] || "").length);
}
function showProblems(box, head, e) {
  const items = e.items || [{ msg: e.message }];
  box.replaceChildren(el("p", { text: head }), el("ul", {}, ...items.map((item) => {
    const n = problemLine(item);
    return el("li", { "data-code": item.code || null, "data-line": n },
      problemText(item), n ? " " : null,
      n ? el("a", { href: "#", onclick: (ev) => { ev.preventDefault(); goToLine(n); }, text: "(" + t("line", n) + ")" }) : null);
  })));
}
function showParsed(p) {
  const spec = p.spec;
  S.parsed = p;
  const lang = spec.language === "en" ? "en" : "zh-CN";
  const rows = p.segments.map((s) => el("tr", {},
    el("td", { text: s.index }), el("td", { text: s.label || "", lang: textLang(s.label) }), el("td", { text: fmt(s.seconds) }),
    el("td", { class: s.overflows ? "over" : null, text: `${fmt(s.pace)} / ${fmt(s.max_pace)}` + (s.overflows ? t("tooFast") : "") }),
    el("td", { text: s.text, lang })));
  const parts = [
    el("h3", { class: "parsed-head" }, ...t("parsedHead", "\u0000", spec.language || "zh", p.segments.length, fmt(p.duration))
      .split("\u0000").flatMap((part, i) => i ? [el("span", { lang: textLang(spec.title), text: spec.title || t("untitled") }), part] : [part])),
    el("div", { class: "scroll" }, el("table", { id: "parsed-table" },
      el("caption", { text: t("parsedCaption") }),
      el("thead", {}, el("tr", {}, ...["#", t("colLabel"), t("colSeconds"), t("colPace"), t("colText")].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, ...rows))),
  ];
  if ((spec.qualifiers || []).length) parts.push(el("p", {}, el("strong", { text: t("qualifiers") }), el("span", { lang, text: spec.qualifiers.join("; ") })));
  if ((spec.shots || []).length) parts.push(el("details", {}, el("summary", { text: t("shots", spec.shots.length) }),
    el("ul", { lang }, ...spec.shots.map((s) => el("li", { text: `${s.index} · ${s.name} · ${fmt(s.start)}–${fmt(s.end)} s${s.screen_text ? " · " + s.screen_text : ""}` })))));
  if (p.warnings.length) parts.push(el("ul", { class: "warnings" }, ...p.warnings.map(warningItem)));
  $("parsed").replaceChildren(...parts);
}
$("check").addEventListener("click", checkScript);

$("job-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  if (!(await checkScript())) return;
  // A video shorter than the narration is refused by the server: say so before the upload.
  if ($("video").files[0] && S.videoSeconds === undefined) S.videoSeconds = await videoSeconds($("video").files[0]);
  if ($("video").files[0] && S.videoSeconds && S.parsed && !$("extend-video").checked
      && S.parsed.duration > S.videoSeconds + 0.05) {
    $("form-error").textContent = t("videoShort", fmt(S.parsed.duration), fmt(Math.round(S.videoSeconds * 100) / 100));
    return;
  }
  const fd = new FormData();
  fd.append("script", new Blob([$("script").value], { type: "text/plain" }), nameFor());
  if ($("video").files[0]) fd.append("video", $("video").files[0]);
  if ($("music").files[0]) fd.append("music", $("music").files[0]);
  fd.append("options", JSON.stringify(options()));
  const bar = $("upload"), msg = $("upload-msg");
  bar.hidden = false; bar.value = 0; $("submit").disabled = true;
  const xhr = new XMLHttpRequest();
  xhr.open("POST", "/v1/jobs");
  for (const [k, v] of Object.entries(headers())) xhr.setRequestHeader(k, v);
  xhr.upload.onprogress = (ev) => { if (ev.lengthComputable) { bar.value = ev.loaded / ev.total; msg.textContent = t("uploading", Math.round(100 * ev.loaded / ev.total)); } };
  xhr.upload.onload = () => { msg.textContent = t("uploaded"); };
  xhr.onerror = () => { $("submit").disabled = false; msg.textContent = ""; $("form-error").textContent = t("uploadFailed"); };
  xhr.onload = () => {
    $("submit").disabled = false; bar.hidden = true; msg.textContent = "";
    let body = null; try { body = JSON.parse(xhr.responseText); } catch (_) { /* not JSON */ }
    if (xhr.status !== 202) {
      const e = new Error(detail(body, xhr.status));
      e.items = body && Array.isArray(body.detail) ? body.detail : null;
      showProblems($("form-error"), t("notSubmitted", ""), e); return;
    }
    go(body.id); jobsChanged();
  };
  xhr.send(fd);
});

// --- watch -----------------------------------------------------------------------------
function stopPolling() {
  if (S.timer) clearTimeout(S.timer); S.timer = null;
  if (S.events) S.events.close(); S.events = null;
}
async function openJob(id) {
  stopPolling();
  for (const u of S.urls) URL.revokeObjectURL(u);
  delete $("job").dataset.stream;
  S.urls = []; S.jobId = id; S.noStream = false; S.job = null; S.source = null; S.manifest = null; S.loaded = null;
  S.subs = null; S.burned = false; S.drawn = ""; $("cues").replaceChildren(); $("burned-note").hidden = true;
  if (segAudio) segAudio.pause();
  $("compose").hidden = true; $("job").hidden = false; $("preview").hidden = true; $("fix").hidden = true;
  $("player").removeAttribute("src"); $("player").replaceChildren();
  $("job-error").textContent = ""; $("fix-error").textContent = ""; $("fix-msg").textContent = "";
  document.querySelectorAll("#job-list button").forEach((b) => b.setAttribute("aria-current", b.dataset.id === id ? "true" : "false"));
  await poll();
  $("job-h").focus();
}
async function poll() {
  const id = S.jobId;
  let job;
  try { job = await api("/v1/jobs/" + id); } catch (e) {
    if (id !== S.jobId) return;
    $("job-error").textContent = e.status === 404 ? t("noSuchJob") : e.message;
    if (e.status !== 404 && e.status !== 401) S.timer = setTimeout(poll, 2000);
    return;
  }
  if (id !== S.jobId) return;
  S.job = job; showJob(job); listed(job);
  const terminal = TERMINAL.includes(job.status);
  // EventSource cannot send the Authorization header: with a key the stream is read by fetch().
  if (!terminal && !S.noStream) follow(id);
  else if (!terminal) S.timer = setTimeout(poll, 400);
  else { stopPolling(); loadJobs(); if (S.loaded !== job.id) { S.loaded = job.id; await loadResult(job); } }
}
// Live progress from GET /v1/jobs/{id}/events: each change reloads the job (at most every
// 100 ms); a dropped stream falls back to polling for this job.
function follow(id) {
  if (S.events) return;
  const changed = () => {
    if (id !== S.jobId || S.pending) return;
    S.pending = true;
    setTimeout(() => { S.pending = false; if (id === S.jobId && S.events === es) poll(); }, 100);
  };
  const es = openStream("/v1/jobs/" + id + "/events", { status: changed, update: changed, segment: changed }, () => {
    if (S.events !== es) return;
    S.events = null; S.noStream = true;
    if (id === S.jobId) poll();
  });
  S.events = es;
  $("job").dataset.stream = es.kind;
}
function showJob(j) {
  $("job-h").textContent = j.title || t("job");
  $("job-h").lang = textLang(j.title) || "";
  patch($("job-meta"), [t("jobMeta", j.id, when(j.created)),
    ...(j.parent ? [t("fixOf"), el("a", { href: "#/jobs/" + j.parent, text: j.parent.slice(0, 8) })] : []),
    ...(j.batch ? [t("inBatch"), el("a", { href: "#/batches/" + j.batch, class: "batch-link", text: j.batch.slice(0, 8) })] : [])]);
  $("job-progress").value = j.progress;
  const stage = j.stage && !TERMINAL.includes(j.status) ? ` · ${stageName(j.stage)}` : "";
  $("job-status").replaceChildren(el("span", { class: "state " + j.status, "data-state": j.status, text: t("state." + j.status) }),
    `${stage} · ${new Intl.NumberFormat(LANG, { style: "percent" }).format(j.progress)}`);
  $("cancel").hidden = ["succeeded", "failed", "canceled"].includes(j.status);
  $("job-error").textContent = j.error ? t("jobEnded", t("state." + j.status), plainWords(j.error.message)) : "";
  $("job-error").dataset.code = j.error ? j.error.code : "";
  $("job-warnings").replaceChildren(...j.warnings.map(warningItem));
  const failedAt = j.error && j.status === "failed" ? j.error.segment : null;  // the segment the error names
  // An ended job runs nothing: a segment it never finished did not run (failed) or was stopped (canceled).
  const ended = j.status === "failed" || j.status === "canceled";
  const stateOf = (s) => s.index === failedAt ? "failed" : ended && s.state !== "done" && s.state !== "failed"
    ? (j.status === "failed" ? "not run" : "canceled") : s.state;
  $("seg-table").tBodies[0].replaceChildren(...j.segments.map((s) => { const state = stateOf(s); return el("tr", { "data-index": s.index },
    el("td", { text: s.index }), el("td", { class: "state " + state.replace(" ", "-"), "data-state": state, text: t("state." + state) }),
    el("td", { text: s.engine || "" }), el("td", { text: s.voice || "" }), el("td", { text: s.worker || "" }),
    el("td", { text: ttsCalls(s) })); }));
  markHeard();  // studio-heard.js: the speech check's flags, once the manifest is in
}
// A segment's synthesis calls in the editor's words: none (every reading came from the cache),
// or how many, one of them the reading again at the rate that fits its seconds.
function ttsCalls(s) {
  if (s.tts_calls === null || s.tts_calls === undefined) return "";
  if (s.tts_calls === 0) return t("ttsCached");
  const m = S.manifest && S.manifest.segments[s.index - 1];
  return s.tts_calls > 1 && m && m.native_rate && m.native_rate !== 1 ? t("ttsRefit", s.tts_calls) : String(s.tts_calls);
}
// What each stage is, in the editor's words ("encode 42%": the picture, 42 % of its frames).
function stageName(st) {
  const enc = st.match(/^encode (\d+)%$/);
  if (enc) return t("stage.encode", enc[1]);
  const seg = st.match(/^segment (\d+)\/(\d+)$/);
  if (seg) return t("stage.segment", seg[1], seg[2]);
  return WORDS.en["stage." + st] ? t("stage." + st) : st;
}
$("cancel").addEventListener("click", async () => {
  try { await api("/v1/jobs/" + S.jobId, { method: "DELETE" }); } catch (e) { $("job-error").textContent = e.message; }
  stopPolling(); poll(); jobsChanged();
});

// --- preview, downloads, fix -------------------------------------------------------------
async function loadResult(job) {
  const base = "/v1/jobs/" + job.id;
  try {
    S.source = await api(base + "/source");
    if (job.status === "succeeded") {
      S.manifest = await api(base + "/artifacts/manifest.json");
      if (S.job && S.job.id === job.id) showJob(S.job);  // the calls' column reads it
      const v = $("player");
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
      S.burned = burnedIn(S.source.options) && job.artifacts.includes("video.mp4");
      $("burned-note").hidden = !S.burned;
      if (job.artifacts.includes("subtitles.vtt") && !S.burned) {
        // Read as text with the key (the CSP refuses fetching a blob: URL); the track loads its own copy.
        S.subs = parseVTT(await api(base + "/artifacts/subtitles.vtt", { text: true }));
        const src = await artifactURL(base + "/artifacts/subtitles.vtt");
        const t = el("track", { kind: "subtitles", label: "Subtitles", srclang: S.manifest.language || "zh", default: true, src });
        v.append(t);
        t.track.mode = "hidden";  // its cues stay readable; the page draws them
      }
      drawCues();
      timeline(S.manifest);
      downloads(job);
      $("preview").hidden = false;
    }
    fixForm(S.source.spec);
    $("fix").hidden = false;
    fixDiff();
    // Each segment's syllables (the pace a drag shows), as a check of the job's own spec counts them.
    S.syllables = null;
    api("/v1/scripts:parse", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ script: JSON.stringify(S.source.spec), name: "job.json" }) })
      .then((p) => { S.syllables = p.segments.map((x) => x.syllables); }).catch(() => {});
  } catch (e) { $("job-error").textContent = e.message; }
}
function burnedIn(o) { return !!(o && (o.burn_in || (o.preset_values && o.preset_values.burn_in))); }
function timeline(m) {
  const v = $("player");
  const total = Math.max(m.duration || 0, isFinite(v.duration) ? v.duration : 0) || 1;  // the video's length, or the narration's
  S.total = total;
  const pos = (a, b) => `left:${(100 * a / total).toFixed(3)}%;width:${(100 * (b - a) / total).toFixed(3)}%`;
  const seek = (t) => { const v = $("player"); v.currentTime = t; };
  const segLane = el("div", { class: "lane", role: "group", "aria-label": t("segments") }, el("span", { class: "name", text: t("laneSegments") }),
    ...m.segments.map((s) => el("button", { class: "block seg", style: pos(s.start, s.end), title: s.text,
      "aria-label": t("segAria", s.index, fmt(s.start), fmt(s.end)), lang: textLang(s.label),
      onclick: () => playSegment(s) }, `${s.index} ${s.label || ""}`, grip(s, s.index - 1))));
  const step = [1, 2, 5, 10, 15, 30, 60, 120, 300].find((x) => total / x <= 12) || 600;
  const ticks = [];
  for (let x = 0; x <= total + 1e-6; x += step) ticks.push(el("span", { class: "tick", style: `left:${(100 * x / total).toFixed(3)}%`, text: clock(x) }));
  const ruler = el("div", { class: "ruler", "aria-hidden": "true" }, ...ticks);
  const wave = el("div", { class: "lane wave", "aria-hidden": "true" }, el("span", { class: "name", text: t("laneWave") }),
    el("canvas", { id: "wave" }));
  const lanes = [ruler, wave, segLane];
  // manifest layers: 0 narration (bottom), 1 overlay (the qualifiers, at the top)
  for (const [layer, n] of [["overlay", 1], ["narration", 0]]) {
    const cues = m.cues.filter((c) => c.layer === n);
    if (!cues.length) continue;
    const name = layer === "overlay" ? t("laneOverlay") : t("laneSubs");
    lanes.push(el("div", { class: "lane", role: "group", "aria-label": name }, el("span", { class: "name", text: name }),
      ...cues.map((c) => el("button", { class: "block " + layer, style: pos(c.start, c.end), title: c.text,
        "aria-label": t("cueAria", fmt(c.start), c.text), lang: textLang(c.text), onclick: () => seek(c.start), text: c.text }))));
  }
  $("timeline").replaceChildren(...lanes, el("span", { id: "playhead", class: "playhead", "aria-hidden": "true" }));
  playhead();
  drawWave();
}
// Drag a segment's end to change its seconds: the pace is shown as it moves; released, the job
// is re-rendered with the new seconds (the other segments come from the cache).
function grip(s, i) {
  const g = el("span", { class: "grip", "data-index": i, "aria-hidden": "true" });
  g.addEventListener("pointerdown", (e) => startDrag(e, s, i, g));
  g.addEventListener("click", (e) => { e.stopPropagation(); e.preventDefault(); });
  return g;
}
function startDrag(e, s, i, g) {
  e.preventDefault(); e.stopPropagation();
  const block = g.parentElement, lane = block.parentElement.getBoundingClientRect();
  const syllables = S.syllables ? S.syllables[i] : null;
  let secs = Math.round((s.end - s.start) * 10) / 10;
  const tip = el("span", { class: "drag-tip", role: "status" });
  block.parentElement.append(tip);  // in the lane: the block clips what overflows it
  g.setPointerCapture(e.pointerId);
  const move = (ev) => {
    const end = Math.max(s.start + 0.5, (ev.clientX - lane.left) / lane.width * S.total);
    secs = Math.round((end - s.start) * 10) / 10;
    block.style.width = `${(100 * secs / S.total).toFixed(3)}%`;
    tip.textContent = t("dragPace", fmt(secs), syllables ? fmt(syllables / secs) : "–");
    tip.style.left = `${(100 * (s.start + secs) / S.total).toFixed(3)}%`;
  };
  g.addEventListener("pointermove", move);
  g.addEventListener("pointerup", () => {
    g.removeEventListener("pointermove", move); tip.remove();
    const input = $(`fix-secs-${i}`);
    if (!input || parseFloat(input.value) === secs) return;
    input.value = secs; input.closest(".fixseg").classList.add("changed");
    $("rerender").click();
  }, { once: true });
}
let segAudio = null;
async function playSegment(s) {
  try {
    if (segAudio) segAudio.pause();
    $("player").pause();  // one thing heard at a time
    segAudio = new Audio(await artifactURL(`/v1/jobs/${S.job.id}/segments/${s.index}/audio`));
    await segAudio.play();
  } catch (e) { $("job-error").textContent = t("segmentAudio", e.message); }
}
// The narration's peaks (GET /v1/jobs/{id}/waveform, read once per job) over the timeline's length.
async function drawWave() {
  const id = S.job && S.job.id;
  if (!id) return;
  if (!S.wave || S.wave.id !== id) {
    try { S.wave = Object.assign(await api(`/v1/jobs/${id}/waveform`), { id }); } catch (_) { return; }
  }
  const c = $("wave");
  if (!c || !S.total || S.wave.id !== (S.job && S.job.id)) return;
  const w = Math.max(1, c.clientWidth), h = Math.max(1, c.clientHeight), r = window.devicePixelRatio || 1;
  c.width = Math.round(w * r); c.height = Math.round(h * r);
  const g = c.getContext("2d");
  g.scale(r, r); g.fillStyle = "#2d6a4f";
  const { min, max, bin_seconds: bin, scale } = S.wave, per = S.total / w / bin;
  for (let x = 0; x < w; x++) {
    const a = Math.floor(x * per), b = Math.min(max.length, Math.max(a + 1, Math.floor((x + 1) * per)));
    if (a >= max.length) break;
    let lo = 0, hi = 0;
    for (let i = a; i < b; i++) { if (min[i] < lo) lo = min[i]; if (max[i] > hi) hi = max[i]; }
    const y0 = h / 2 - (hi / scale) * h / 2, y1 = h / 2 - (lo / scale) * h / 2;
    g.fillRect(x, y0, 1, Math.max(1, y1 - y0));
  }
}
function clock(x) { const m = Math.floor(x / 60), s = Math.round(x % 60); return `${m}:${String(s).padStart(2, "0")}`; }
function playhead() {
  const ph = $("playhead");
  if (ph && S.total) ph.style.cssText = `left:${(100 * $("player").currentTime / S.total).toFixed(3)}%`;
}
$("player").addEventListener("play", () => { if (segAudio) segAudio.pause(); tick(); });
$("player").addEventListener("seeked", () => { drawCues(); playhead(); });
$("player").addEventListener("loadedmetadata", () => { if (S.manifest) timeline(S.manifest); drawCues(); });
window.addEventListener("resize", () => drawCues());
function tick() { drawCues(); playhead(); if (!$("player").paused) requestAnimationFrame(tick); }
$("player").addEventListener("timeupdate", () => {
  const t = $("player").currentTime;
  document.querySelectorAll("#timeline .block").forEach((b, i) => b.classList.remove("now"));
  if (!S.manifest) return;
  const k = S.manifest.segments.findIndex((s) => t >= s.start && t < s.end);
  const blocks = document.querySelectorAll("#timeline .seg");
  if (k >= 0 && blocks[k]) blocks[k].classList.add("now");
});
// --- the subtitles over the picture, as the export lays them out -----------------------------
// The page draws the VTT's cues itself: Chromium ignores a cue's line alignment (`line:88%,end`
// is the bottom edge of the box), so its own rendering would hang the lines below the line.
function parseVTT(text) {
  const styles = {}, cues = [];
  const plain = (l) => l.replace(/<[^>]*>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  const secs = (x) => x.trim().split(":").reduce((a, b) => a * 60 + parseFloat(b), 0);
  for (const block of text.replace(/\r/g, "").split(/\n\n+/)) {
    if (block.startsWith("STYLE")) {
      for (const m of block.matchAll(/::cue\(\.([\w-]+)\)\s*\{([^}]*)\}/g)) styles[m[1]] = m[2].trim();
      continue;
    }
    const lines = block.split("\n"), at = lines.findIndex((l) => l.includes("-->"));
    if (at < 0) continue;
    const [from, rest] = lines[at].split("-->"), parts = rest.trim().split(/\s+/), settings = {};
    for (const p of parts.slice(1)) { const i = p.indexOf(":"); settings[p.slice(0, i)] = p.slice(i + 1); }
    const body = lines.slice(at + 1), cls = ((body[0] || "").match(/^<c\.([\w-]+)>/) || [])[1] || "narration";
    const start = secs(from);
    // A word-by-word cue's lines carry each word's onset (<hh:mm:ss.mmm>): pieces from one to
    // the next (a line without one, e.g. a bilingual cue's English, is one untimed piece).
    // An emphasised keyword (<c.emphasis>…</c>) is a piece of its own, marked.
    let onset = start, emph = false;
    const pieces = (l) => {
      const out = [], timed = /<\d+:\d\d:\d\d\.\d+>/.test(l);
      l.split(/<(\d+:\d\d:\d\d\.\d+|c\.emphasis|\/c)>/).forEach((part, i) => {
        if (i % 2) { if (part === "c.emphasis") emph = true; else if (part === "/c") emph = false; else onset = secs(part); }
        else if (plain(part)) out.push({ at: onset, text: plain(part), timed, emph });
      });
      return out;
    };
    cues.push({ start, end: secs(parts[0]), settings, cls, lines: body.map(plain), pieces: body.map(pieces) });
  }
  return { styles, cues };
}
const LOOKS = { narration: "narration", qualifiers: "qualifiers", screen: "screen_text", title: "screen_text" };
function drawCues() {
  const box = $("cues"), v = $("player");
  if (!S.subs || S.burned || $("preview").hidden) { if (S.drawn) { box.replaceChildren(); S.drawn = ""; } return; }
  // The picture's box inside the element (object-fit: contain), in the element's own pixels.
  // Audio only (no picture): the cues keep above the player's control bar, at a readable size.
  const bar = v.videoWidth ? 0 : 48, W = v.clientWidth, H = Math.max(1, v.clientHeight - bar), vw = v.videoWidth || W, vh = v.videoHeight || H;
  const k = Math.min(W / vw, H / vh), w = vw * k, h = vh * k;
  const t = v.currentTime, on = S.subs.cues.filter((c) => t >= c.start && t < c.end);
  const mode = ((S.manifest || {}).style || {}).captions, begun = (c) => c.pieces.flat().filter((p) => p.timed && p.at <= t);
  const drawn = `${on.map((c) => `${S.subs.cues.indexOf(c)}.${begun(c).length}`).join(",")}@${Math.round(w)}x${Math.round(h)}`;
  if (drawn === S.drawn) return;
  S.drawn = drawn;
  box.style.cssText = `left:${v.offsetLeft + (W - w) / 2}px;top:${v.offsetTop + (H - h) / 2}px;width:${w}px;height:${h}px`;
  const lang = S.manifest && S.manifest.language === "en" ? "en" : "zh-CN";
  box.replaceChildren(...on.map((c) => {
    const st = c.settings, [line, anchor] = (st.line || "88%,end").split(",");
    const size = parseFloat(st.size || "100"), at = parseFloat(st.position || "50"), y = parseFloat(line);
    const look = ((S.manifest || {}).style || {})[LOOKS[c.cls]] || {};
    let css = `left:${at - size / 2}%;width:${size}%;font-size:${Math.max((look.size || 0.0333) * h, bar ? 14 : 0).toFixed(2)}px;`;
    css += anchor === "end" ? `bottom:${100 - y}%;` : anchor === "center" ? `top:${y}%;transform:translateY(-50%);` : `top:${y}%;`;
    const now = begun(c).pop();  // the word being spoken (a word-by-word cue's)
    return el("div", { class: "cue " + c.cls, style: css + (S.subs.styles[c.cls] || ""), lang },
      ...c.pieces.map((l) => el("span", { class: "line" }, ...wordByWord(l, mode, look, t, now))));
  }));
}

// A line's pieces as the ASS draws them at time t: highlight, the word being spoken (the last
// begun) in the highlight colour; reveal, the words not spoken yet hidden, holding their place;
// box, the word being spoken on a box in the box colour; pop, it in the highlight colour,
// scaled in from 120 % in two steps (the .pop animation); an emphasised keyword in its colour and size.
function wordByWord(pieces, mode, look, t, now) {
  return pieces.map((p) => {
    const spoken = p.timed && now && p.at === now.at, css = [];
    if (p.emph && look.emphasis_color) css.push(`color:${look.emphasis_color};font-size:${look.emphasis_scale || 1}em`);
    if (spoken && (mode === "highlight" || mode === "pop") && look.highlight_color) css.push(`color:${look.highlight_color}`);
    if (spoken && mode === "box" && look.box_color) css.push(`background:${look.box_color};box-shadow:0 0 0 .12em ${look.box_color};border-radius:.12em`);
    if (p.timed && mode === "reveal" && p.at > t) css.push("visibility:hidden");
    const cls = spoken && mode === "pop" ? "word pop" : "word";
    return css.length || cls !== "word" ? el("span", { class: cls, style: css.join(";"), text: p.text }) : p.text;
  });
}
function downloads(job) { downloadsGrouped(job); }
// What the engine was told to say (the manifest's spoken_text: pinyin, or the English reading),
// and a correction: the words selected in the segment's text become a pronunciation line.
function reading(i, lang) {
  const seg = S.manifest && S.manifest.segments[i];
  if (!seg || !seg.spoken_text) return null;
  return el("div", { class: "reading" },
    el("span", { class: "muted", text: t("engineRead") }), el("code", { id: `fix-read-${i}`, lang: lang === "en" ? "en" : "zh-Latn-pinyin", text: seg.spoken_text.trim() }),
    el("button", { type: "button", "data-index": i, onclick: () => correct(i), text: t("correct") }));
}
function correct(i) {
  const ta = $(`fix-text-${i}`), word = ta.value.slice(ta.selectionStart, ta.selectionEnd).trim();
  if (!word) { $("fix-msg").textContent = t("selectWord"); ta.focus(); return; }
  const pron = $("fix-pron");
  pron.value = (pron.value.trim() ? pron.value.trim() + "\n" : "") + `${word} = `;
  pron.focus(); pron.setSelectionRange(pron.value.length, pron.value.length);
}
// The tenant's pronunciation dictionaries (/v1/lexicons): "save to a dictionary" adds the
// pronunciations to the one chosen (a new version of it) or to a new one.
async function fixLexicons() {
  const pick = $("fix-lex"), keep = pick.value;
  const mine = await api("/v1/lexicons").catch(() => []);
  pick.replaceChildren(el("option", { value: "", text: t("lexNew") }),
    ...mine.map((d) => el("option", { value: d.id, text: `${d.name} (v${d.version})` })));
  pick.value = mine.some((d) => d.id === keep) ? keep : "";
}
async function saveToLexicon(pron) {
  const post = (path, body) => api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const id = $("fix-lex").value || (await post("/v1/lexicons", { name: $("fix-lex-name").value.trim() || "studio", rules: [] })).id;
  await post(`/v1/lexicons/${id}/rules`, { rules: Object.entries(pron).map(([grapheme, value]) => ({ grapheme, value })) });
  $("fix-save-lex").checked = false;
  await fixLexicons(); $("fix-lex").value = id;
}
function fixForm(spec) {
  const lang = spec.language || "zh";
  fixLexicons();
  $("fix-pron").value = Object.entries(spec.pronunciations || {}).map(([w, v]) => `${w} = ${v}`).join("\n");
  const opts = S.source.options || {};
  $("fix-overflow").value = opts.on_overflow || (spec.fit && spec.fit.on_overflow) || "fail";
  $("fix-engine").value = (S.source.options && S.source.options.engine) || "";
  fixOptionsShow(opts);
  $("fix-list").replaceChildren(...spec.segments.map((s, i) => {
    const voice = el("select", { id: `fix-voice-${i}` });
    fillVoices(voice, s.voice || "", lang, t("jobsVoice"));
    const box = el("div", { class: "fixseg", "data-index": i, "data-seg": JSON.stringify(s) },
      el("label", { for: `fix-text-${i}`, text: t("fixText", i + 1, s.label ? " · " + s.label : "") }),
      el("textarea", { id: `fix-text-${i}`, rows: 2, lang: lang === "en" ? "en" : "zh-CN" }),
      el("div", { class: "row" },
        el("label", {}, t("seconds"), el("input", { id: `fix-secs-${i}`, type: "number", min: "0.1", step: "0.1", value: s.seconds })),
        el("label", {}, t("voiceLabel"), voice),
        // The segment's starting rate and pitch shift (edge-style '+10%', '-2Hz'; fitting still decides the end rate).
        el("label", {}, t("rateLabel"), el("input", { id: `fix-rate-${i}`, type: "number", min: "-50", max: "100", step: "5", value: signedNumber(s.rate) })),
        el("label", {}, t("pitchLabel"), el("input", { id: `fix-pitch-${i}`, type: "number", min: "-50", max: "50", step: "1", value: signedNumber(s.pitch) })),
        ...listenButton(i)),
      reading(i, lang));
    box.querySelector("textarea").value = s.text;
    fixTools(box, i, spec.segments.length);
    box.addEventListener("input", () => box.classList.add("changed"));
    box.addEventListener("change", () => box.classList.add("changed"));
    return box;
  }));
  fixExtrasShow(spec);
  $("fix-list").dataset.job = S.jobId;
}
$("rerender").addEventListener("click", async () => {
  $("fix-error").textContent = "";
  const spec = JSON.parse(JSON.stringify(S.source.spec));
  spec.segments = fixSegments();
  Object.assign(spec, fixExtras(spec));
  const pron = {};
  for (const line of $("fix-pron").value.split("\n")) {
    if (!line.trim()) continue;
    const at = line.indexOf("=");
    if (at < 1) { $("fix-error").textContent = t("pronBad", line); return; }
    pron[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  if (Object.keys(pron).length) spec.pronunciations = pron; else delete spec.pronunciations;
  $("rerender").disabled = true; $("fix-msg").textContent = t("submitting");
  try {
    spec.fit = Object.assign({}, spec.fit || {}, { on_overflow: $("fix-overflow").value });
    if ($("fix-save-lex").checked && Object.keys(pron).length) await saveToLexicon(pron);
    const body = { spec };
    const opts = S.source.options || {}, engine = $("fix-engine").value, more = fixOptionChanges(opts);
    if (engine !== (opts.engine || "") || (opts.on_overflow && opts.on_overflow !== spec.fit.on_overflow) || Object.keys(more).length) {
      const o = Object.assign({}, opts);  // the parent's options, but for these two
      delete o.preset_values;
      if (engine) o.engine = engine; else delete o.engine;
      if (o.on_overflow) o.on_overflow = spec.fit.on_overflow;
      for (const [k, v] of Object.entries(more)) { if (v === null) delete o[k]; else o[k] = v; }
      body.options = o;
    }
    const r = await api(`/v1/jobs/${S.job.id}/rerender`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    $("fix-msg").textContent = "";
    go(r.id); jobsChanged();
  } catch (e) { showProblems($("fix-error"), t("notRerendered", ""), e); $("fix-msg").textContent = ""; }
  finally { $("rerender").disabled = false; }
});

// --- language, example, start ---------------------------------------------------------------
$("lang").addEventListener("change", () => {
  setLang($("lang").value);
  signedIn();
  if (S.job) { showJob(S.job); if (S.manifest) { timeline(S.manifest); downloads(S.job); } }
  fixRelabel();
  loadStyles();  // the style selects' "default" option
  if (S.parsed && !$("compose").hidden) showParsed(S.parsed);
});
$("example").addEventListener("click", () => {
  $("script").value = EXAMPLES[LANG] || EXAMPLES["zh-CN"];
  scriptName = $("script").value.trim().startsWith("{") ? "script.json" : "example.md";
  scriptVoices();  // a voice of its language
  saveDraft(); checkScript();
});
applyWords();
$("lang").value = LANG;
restoreDraft();
signedIn().then(route);
