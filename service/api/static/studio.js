// narrate studio: plain JS, no dependencies, talks only to this server's /v1 API.
"use strict";
const $ = (id) => document.getElementById(id);
const KEY = "narrate.key";
const S = { job: null, jobId: null, timer: null, source: null, manifest: null, urls: [], voices: [], loaded: null };

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
  const r = await fetch(path, Object.assign({}, opts, { headers: headers(opts.headers) }));
  let body = null;
  const ct = r.headers.get("content-type") || "";
  if (ct.includes("json")) body = await r.json();
  if (r.status === 401) { $("who").textContent = "Sign in: " + detail(body, r.status); }
  if (!r.ok) throw new Error(detail(body, r.status));
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
function fmt(s) { return (Math.round(s * 100) / 100).toString(); }
function when(t) { return new Date(t * 1000).toLocaleString(); }

// --- sign in ---------------------------------------------------------------------------
$("signin").addEventListener("submit", (e) => {
  e.preventDefault();
  const k = $("key").value.trim();
  if (k) localStorage.setItem(KEY, k); else localStorage.removeItem(KEY);
  $("key").value = "";
  signedIn();
});
$("signout").addEventListener("click", () => {
  localStorage.removeItem(KEY);
  stopPolling(); S.jobId = null; $("job").hidden = true; $("compose").hidden = false;
  $("job-list").replaceChildren();
  // Nothing of the last tenant's work stays on the page.
  $("job-form").reset(); $("parsed").replaceChildren(); $("form-error").textContent = "";
  $("video-name").textContent = ""; $("timeline").replaceChildren(); $("fix-list").replaceChildren();
  for (const u of S.urls) URL.revokeObjectURL(u);
  S.urls = []; S.job = null; S.source = null; S.manifest = null;
  signedIn();
});
async function signedIn() {
  $("who").textContent = key() ? "key saved in this browser" : "no key (works on this machine only)";
  await Promise.all([loadJobs(), loadVoices()]);
}

// --- job list --------------------------------------------------------------------------
async function loadJobs() {
  try {
    const data = await api("/v1/jobs?limit=30");
    const ul = $("job-list");
    ul.replaceChildren(...data.jobs.map((j) => el("li", {},
      el("button", { type: "button", "data-id": j.id, "aria-current": j.id === S.jobId ? "true" : null,
        onclick: () => openJob(j.id) },
        el("span", { class: "t", text: j.title || "(untitled)" }),
        el("span", { class: "state " + j.status, text: j.status }),
        el("span", { class: "muted", text: " · " + when(j.created) + (j.parent ? " · fix" : "") })))));
    $("jobs-msg").textContent = data.jobs.length ? "" : "No jobs yet.";
  } catch (e) { $("jobs-msg").textContent = e.message; }
}
$("refresh-jobs").addEventListener("click", loadJobs);
$("new-job").addEventListener("click", () => {
  stopPolling(); S.jobId = null; $("job").hidden = true; $("compose").hidden = false; $("script").focus(); loadJobs();
});

// --- voices ----------------------------------------------------------------------------
async function loadVoices() {
  try { S.voices = await api("/v1/voices"); } catch (e) { S.voices = []; }
  fillVoices($("voice"), "", null, "default");
}
function fillVoices(select, value, language, blank) {
  const vs = S.voices.filter((v) => !language || v.language === language);
  select.replaceChildren(el("option", { value: "", text: blank }),
    ...vs.map((v) => el("option", { value: v.id, selected: v.id === value, text: `${v.id} (${v.engine}, ${v.language}, ${v.gender})` })));
  select.value = value || "";
}

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
  scriptName = file.name; $("script").value = await file.text(); checkScript();
}
function takeVideo(file) {
  const dt = new DataTransfer(); dt.items.add(file); $("video").files = dt.files; showVideo();
}
function showVideo() {
  const f = $("video").files[0];
  $("video-name").textContent = f ? `${f.name} · ${(f.size / 1e6).toFixed(1)} MB` : "";
}
dropZone($("script-drop"), takeScript);
dropZone($("video-drop"), takeVideo);
$("script-file").addEventListener("change", (e) => e.target.files[0] && takeScript(e.target.files[0]));
$("video").addEventListener("change", showVideo);
$("script").addEventListener("input", () => { if (!$("script").value.trim().startsWith("{")) scriptName = scriptName.endsWith(".json") ? "script.md" : scriptName; });

function options() {
  const o = { burn_in: $("burn").checked, original_audio: $("original").value, extend_video: $("extend-video").checked };
  if ($("engine").value) o.engine = $("engine").value;
  if ($("voice").value) o.voice = $("voice").value;
  if ($("overflow").value) o.on_overflow = $("overflow").value;
  if ($("exports").checked) o.exports = ["otio", "fcpxml", "fcp7", "edl"];
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
    $("form-error").textContent = "The script has a problem: " + e.message;
    return false;
  }
}
function showParsed(p) {
  const spec = p.spec;
  const rows = p.segments.map((s) => el("tr", {},
    el("td", { text: s.index }), el("td", { text: s.label || "" }), el("td", { text: fmt(s.seconds) }),
    el("td", { class: s.overflows ? "over" : null, text: `${fmt(s.pace)} / ${fmt(s.max_pace)}` + (s.overflows ? " too fast" : "") }),
    el("td", { text: s.text })));
  const parts = [
    el("h3", { class: "parsed-head", text: `Parsed: ${spec.title || "(untitled)"} · ${spec.language || "zh"} · ${p.segments.length} segments · ${fmt(p.duration)} s` }),
    el("div", { class: "scroll" }, el("table", { id: "parsed-table" },
      el("caption", { text: "Segments (pace in syllables per second / limit)" }),
      el("thead", {}, el("tr", {}, ...["#", "Label", "Seconds", "Pace", "Text"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, ...rows))),
  ];
  if ((spec.qualifiers || []).length) parts.push(el("p", {}, el("strong", { text: "Qualifiers (top layer): " }), spec.qualifiers.join("; ")));
  if ((spec.shots || []).length) parts.push(el("details", {}, el("summary", { text: `Shots (${spec.shots.length})` }),
    el("ul", {}, ...spec.shots.map((s) => el("li", { text: `${s.index} · ${s.name} · ${fmt(s.start)}–${fmt(s.end)} s${s.screen_text ? " · " + s.screen_text : ""}` })))));
  if (p.warnings.length) parts.push(el("ul", { class: "warnings" }, ...p.warnings.map(warningItem)));
  $("parsed").replaceChildren(...parts);
}
$("check").addEventListener("click", checkScript);

$("job-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  if (!(await checkScript())) return;
  const fd = new FormData();
  fd.append("script", new Blob([$("script").value], { type: "text/plain" }), nameFor());
  if ($("video").files[0]) fd.append("video", $("video").files[0]);
  fd.append("options", JSON.stringify(options()));
  const bar = $("upload"), msg = $("upload-msg");
  bar.hidden = false; bar.value = 0; $("submit").disabled = true;
  const xhr = new XMLHttpRequest();
  xhr.open("POST", "/v1/jobs");
  for (const [k, v] of Object.entries(headers())) xhr.setRequestHeader(k, v);
  xhr.upload.onprogress = (ev) => { if (ev.lengthComputable) { bar.value = ev.loaded / ev.total; msg.textContent = `uploading ${Math.round(100 * ev.loaded / ev.total)}%`; } };
  xhr.upload.onload = () => { msg.textContent = "uploaded; checking…"; };
  xhr.onerror = () => { $("submit").disabled = false; msg.textContent = ""; $("form-error").textContent = "The upload failed (network)."; };
  xhr.onload = () => {
    $("submit").disabled = false; bar.hidden = true; msg.textContent = "";
    let body = null; try { body = JSON.parse(xhr.responseText); } catch (_) { /* not JSON */ }
    if (xhr.status !== 202) { $("form-error").textContent = "Not submitted: " + detail(body, xhr.status); return; }
    openJob(body.id); loadJobs();
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
  S.urls = []; S.jobId = id; S.noStream = false; S.job = null; S.source = null; S.manifest = null; S.loaded = null;
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
    $("job-error").textContent = e.message; S.timer = setTimeout(poll, 2000); return;
  }
  if (id !== S.jobId) return;
  S.job = job; showJob(job);
  const terminal = ["succeeded", "failed", "canceled"].includes(job.status);
  // EventSource cannot send the Authorization header: with a key the page keeps polling.
  if (!terminal && !key() && window.EventSource && !S.noStream) follow(id);
  else if (!terminal) S.timer = setTimeout(poll, 400);
  else { stopPolling(); loadJobs(); if (S.loaded !== job.id) { S.loaded = job.id; await loadResult(job); } }
}
// Live progress from GET /v1/jobs/{id}/events: each change reloads the job (at most every
// 100 ms); a dropped stream falls back to polling for this job.
function follow(id) {
  if (S.events) return;
  const es = new EventSource("/v1/jobs/" + id + "/events");
  S.events = es;
  const changed = () => {
    if (id !== S.jobId || S.pending) return;
    S.pending = true;
    setTimeout(() => { S.pending = false; if (id === S.jobId && S.events === es) poll(); }, 100);
  };
  for (const name of ["status", "update", "segment"]) es.addEventListener(name, changed);
  es.onerror = () => {
    es.close();
    if (S.events !== es) return;
    S.events = null; S.noStream = true;
    if (id === S.jobId) poll();
  };
}
function showJob(j) {
  $("job-h").textContent = j.title || "Job";
  $("job-meta").replaceChildren(`id ${j.id} · created ${when(j.created)}`,
    ...(j.parent ? [" · fix of ", el("a", { href: "#", onclick: (e) => { e.preventDefault(); openJob(j.parent); }, text: j.parent.slice(0, 8) })] : []));
  $("job-progress").value = j.progress;
  const stage = j.stage ? ` · stage: ${j.stage}` : "";
  $("job-status").replaceChildren(el("span", { class: "state " + j.status, text: j.status }), `${stage} · ${Math.round(j.progress * 100)}%`);
  $("cancel").hidden = ["succeeded", "failed", "canceled"].includes(j.status);
  $("job-error").textContent = j.error ? "The job " + j.status + ": " + j.error.message : "";
  $("job-error").dataset.code = j.error ? j.error.code : "";
  $("job-warnings").replaceChildren(...j.warnings.map(warningItem));
  const failedAt = j.error && j.status === "failed" ? j.error.segment : null;  // the segment the error names
  $("seg-table").tBodies[0].replaceChildren(...j.segments.map((s) => { const state = s.index === failedAt ? "failed" : s.state; return el("tr", { "data-index": s.index },
    el("td", { text: s.index }), el("td", { class: "state " + state, text: state }),
    el("td", { text: s.engine || "" }), el("td", { text: s.voice || "" }), el("td", { text: s.worker || "" }),
    el("td", { text: s.tts_calls === null || s.tts_calls === undefined ? "" : s.tts_calls === 0 ? "0 (cached)" : String(s.tts_calls) })); }));
}
$("cancel").addEventListener("click", async () => {
  try { await api("/v1/jobs/" + S.jobId, { method: "DELETE" }); } catch (e) { $("job-error").textContent = e.message; }
  stopPolling(); poll();
});

// --- preview, downloads, fix -------------------------------------------------------------
async function loadResult(job) {
  const base = "/v1/jobs/" + job.id;
  try {
    S.source = await api(base + "/source");
    if (job.status === "succeeded") {
      S.manifest = await api(base + "/artifacts/manifest.json");
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
      if (job.artifacts.includes("subtitles.vtt")) {
        const t = el("track", { kind: "subtitles", label: "Subtitles", srclang: S.manifest.language || "zh", default: true,
          src: await artifactURL(base + "/artifacts/subtitles.vtt") });
        v.append(t);
        t.track.mode = "showing";
      }
      timeline(S.manifest);
      downloads(job);
      $("preview").hidden = false;
    }
    fixForm(S.source.spec);
    $("fix").hidden = false;
  } catch (e) { $("job-error").textContent = e.message; }
}
function timeline(m) {
  const total = m.duration || 1;
  const pos = (a, b) => `left:${(100 * a / total).toFixed(3)}%;width:${(100 * (b - a) / total).toFixed(3)}%`;
  const seek = (t) => { const v = $("player"); v.currentTime = t; };
  const segLane = el("div", { class: "lane", role: "list", "aria-label": "Segments" }, el("span", { class: "name", text: "segments" }),
    ...m.segments.map((s) => el("button", { class: "block seg", role: "listitem", style: pos(s.start, s.end), title: s.text,
      "aria-label": `Segment ${s.index}, ${fmt(s.start)} to ${fmt(s.end)} s: play its audio`,
      onclick: () => playSegment(s), text: `${s.index} ${s.label || ""}` })));
  const lanes = [segLane];
  // manifest layers: 0 narration (bottom), 1 overlay (the qualifiers, at the top)
  for (const [layer, n] of [["overlay", 1], ["narration", 0]]) {
    const cues = m.cues.filter((c) => c.layer === n);
    if (!cues.length) continue;
    lanes.push(el("div", { class: "lane", role: "list", "aria-label": layer + " cues" }, el("span", { class: "name", text: layer === "overlay" ? "overlay (top)" : "subtitles" }),
      ...cues.map((c) => el("button", { class: "block " + layer, role: "listitem", style: pos(c.start, c.end), title: c.text,
        "aria-label": `Cue ${fmt(c.start)} s: ${c.text}. Seek here`, onclick: () => seek(c.start), text: c.text }))));
  }
  $("timeline").replaceChildren(...lanes);
}
let segAudio = null;
async function playSegment(s) {
  try {
    if (segAudio) segAudio.pause();
    segAudio = new Audio(await artifactURL(`/v1/jobs/${S.job.id}/segments/${s.index}/audio`));
    await segAudio.play();
  } catch (e) { $("job-error").textContent = "Segment audio: " + e.message; }
}
$("player").addEventListener("timeupdate", () => {
  const t = $("player").currentTime;
  document.querySelectorAll("#timeline .block").forEach((b, i) => b.classList.remove("now"));
  if (!S.manifest) return;
  const k = S.manifest.segments.findIndex((s) => t >= s.start && t < s.end);
  const blocks = document.querySelectorAll("#timeline .seg");
  if (k >= 0 && blocks[k]) blocks[k].classList.add("now");
});
function downloads(job) {
  const base = "/v1/jobs/" + job.id + "/artifacts/";
  // Each segment's WAV is in timeline-package.zip beside the timelines that name it.
  const packaged = job.artifacts.includes("timeline-package.zip");
  const listed = job.artifacts.filter((n) => !(packaged && n.startsWith("segments/")));
  $("downloads").replaceChildren(...listed.map((n) => el("li", {},
    el("button", { type: "button", "data-name": n, onclick: async () => {
      try {
        const a = el("a", { href: await artifactURL(base + n), download: n }); document.body.append(a); a.click(); a.remove();
      } catch (e) { $("job-error").textContent = e.message; }
    }, text: "Download " + n }))));
}
function fixForm(spec) {
  const lang = spec.language || "zh";
  $("fix-pron").value = Object.entries(spec.pronunciations || {}).map(([w, v]) => `${w} = ${v}`).join("\n");
  $("fix-list").replaceChildren(...spec.segments.map((s, i) => {
    const voice = el("select", { id: `fix-voice-${i}` });
    fillVoices(voice, s.voice || "", lang, "job's voice");
    const box = el("div", { class: "fixseg", "data-index": i },
      el("label", { for: `fix-text-${i}`, text: `Segment ${i + 1}${s.label ? " · " + s.label : ""} — text` }),
      el("textarea", { id: `fix-text-${i}`, rows: 2 }),
      el("div", { class: "row" },
        el("label", {}, "Seconds ", el("input", { id: `fix-secs-${i}`, type: "number", min: "0.1", step: "0.1", value: s.seconds })),
        el("label", {}, "Voice ", voice)));
    box.querySelector("textarea").value = s.text;
    box.addEventListener("input", () => box.classList.add("changed"));
    box.addEventListener("change", () => box.classList.add("changed"));
    return box;
  }));
}
$("rerender").addEventListener("click", async () => {
  $("fix-error").textContent = "";
  const spec = JSON.parse(JSON.stringify(S.source.spec));
  spec.segments = spec.segments.map((s, i) => {
    const out = Object.assign({}, s, { text: $(`fix-text-${i}`).value, seconds: parseFloat($(`fix-secs-${i}`).value) });
    const v = $(`fix-voice-${i}`).value;
    if (v) out.voice = v; else delete out.voice;
    return out;
  });
  const pron = {};
  for (const line of $("fix-pron").value.split("\n")) {
    if (!line.trim()) continue;
    const at = line.indexOf("=");
    if (at < 1) { $("fix-error").textContent = `Pronunciation line "${line}": write word = reading`; return; }
    pron[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  if (Object.keys(pron).length) spec.pronunciations = pron; else delete spec.pronunciations;
  $("rerender").disabled = true; $("fix-msg").textContent = "submitting…";
  try {
    const r = await api(`/v1/jobs/${S.job.id}/rerender`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ spec }) });
    $("fix-msg").textContent = "";
    await openJob(r.id); loadJobs();
  } catch (e) { $("fix-error").textContent = "Not re-rendered: " + e.message; $("fix-msg").textContent = ""; }
  finally { $("rerender").disabled = false; }
});

signedIn();
