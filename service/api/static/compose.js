// narrate studio, the compose view (#/new): a script pasted, opened or dropped, a video and
// a music bed, the render options; checked by the server as it would run it, then uploaded.
import { apiError, headers, postJSON } from "./api.js";
import { $, button, el, field } from "./dom.js";
import { draftVideo, saveDraft } from "./draft.js";
import { clock, textLang } from "./format.js";
import { fmt, t } from "./i18n.js";
import { jobsChanged } from "./jobs.js";
import { showProblems, warningItem } from "./report.js";
import { go } from "./router.js";
import { set, state, subscribe } from "./store.js";
import { scriptVoices } from "./voices.js";
import { EXAMPLES } from "./words.js";

/** @param {HTMLElement} zone @param {(f: File) => void} onFile */
function dropZone(zone, onFile) {
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault(); zone.classList.remove("over");
    const files = e.dataTransfer?.files;
    if (files && files.length) onFile(files[0]);
  });
}
/** @param {File} file */
async function takeScript(file) {
  set({ scriptName: file.name }); field("script").value = await file.text();
  scriptVoices();
  saveDraft(); checkScript();
}
/** @param {File} file */
function takeVideo(file) {
  const dt = new DataTransfer(); dt.items.add(file); field("video").files = dt.files; showVideo(); draftVideo(file);
}
/** The chosen video's name, size and (once the browser has read it) length. */
export function showVideo() {
  const f = field("video").files?.[0];
  set({ videoSeconds: null });
  $("video-name").textContent = f ? `${f.name} · ${fmt(f.size / 1e6)} MB` : "";
  if (f) videoSeconds(f).then((d) => {
    if (field("video").files?.[0] !== f || d === null) return;
    set({ videoSeconds: d });
    $("video-name").textContent = `${f.name} · ${fmt(f.size / 1e6)} MB · ${clock(d)}`;
  });
}
/** The chosen video's length, read by the browser from the file (null: it cannot say). @param {File} file @returns {Promise<number | null>} */
function videoSeconds(file) {
  return new Promise((ok) => {
    const v = document.createElement("video"), url = URL.createObjectURL(file);
    /** @param {number | null} d */
    const done = (d) => { URL.revokeObjectURL(url); ok(d); };
    v.preload = "metadata";
    v.onloadedmetadata = () => done(isFinite(v.duration) ? v.duration : null);
    v.onerror = () => done(null);
    v.src = url;
  });
}
dropZone($("script-drop"), takeScript);
dropZone($("video-drop"), takeVideo);
field("script-file").addEventListener("change", () => { const f = field("script-file").files?.[0]; if (f) takeScript(f); });
$("video").addEventListener("change", () => { showVideo(); draftVideo(field("video").files?.[0] || null); });
$("script").addEventListener("input", () => {
  if (!field("script").value.trim().startsWith("{")) set({ scriptName: state.scriptName.endsWith(".json") ? "script.md" : state.scriptName });
});
$("job-form").addEventListener("input", saveDraft);
$("job-form").addEventListener("change", saveDraft);

/** The render options the form says (POST /v1/jobs' `options`). @returns {Record<string, any>} */
export function options() {
  /** @type {Record<string, any>} */
  const o = { burn_in: field("burn").checked, original_audio: field("original").value, extend_video: field("extend-video").checked };
  if (field("engine").value) o.engine = field("engine").value;
  if (field("voice").value) o.voice = field("voice").value;
  if (field("overflow").value) o.on_overflow = field("overflow").value;
  if (field("traditional").value && !$("traditional-box").hidden) o.traditional = field("traditional").value;
  if (field("exports").checked) o.exports = ["otio", "fcpxml", "fcp7", "edl"];
  if (field("preset").value) o.preset = field("preset").value;
  if (field("style").value) o.style = field("style").value;
  if (field("music").files?.[0]) {
    o.music_level = parseFloat(field("music-level").value || "-8");
    o.music_duck = parseFloat(field("music-duck").value || "12");
  }
  return o;
}
function nameFor() { return field("script").value.trim().startsWith("{") ? "script.json" : state.scriptName; }

/** The server's check of the script (POST /v1/scripts:parse), shown; false when it has problems. */
export async function checkScript() {
  $("form-error").textContent = "";
  try {
    showParsed(await postJSON("/v1/scripts:parse", { script: field("script").value, name: nameFor(), options: options() }));
    return true;
  } catch (e) {
    $("parsed").replaceChildren();
    showProblems($("form-error"), t("scriptProblem"), e);
    return false;
  }
}
/** The check: title, language, each segment's pace against its limit, qualifiers, shots, warnings. @param {import("./store.js").Json} p */
function showParsed(p) {
  const spec = p.spec;
  set({ parsed: p });
  const lang = spec.language === "en" ? "en" : "zh-CN";
  const rows = p.segments.map((/** @type {import("./store.js").Json} */ s) => el("tr", {},
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
    el("ul", { lang }, ...spec.shots.map((/** @type {import("./store.js").Json} */ s) => el("li", { text: `${s.index} · ${s.name} · ${fmt(s.start)}–${fmt(s.end)} s${s.screen_text ? " · " + s.screen_text : ""}` })))));
  if (p.warnings.length) parts.push(el("ul", { class: "warnings" }, ...p.warnings.map(warningItem)));
  $("parsed").replaceChildren(...parts);
}
$("check").addEventListener("click", checkScript);
subscribe(["lang"], (s) => { if (s.parsed && !$("compose").hidden) showParsed(s.parsed); });

$("job-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  if (!(await checkScript())) return;
  // A video shorter than the narration is refused by the server: say so before the upload.
  const video = field("video").files?.[0];
  if (video && state.videoSeconds === undefined) set({ videoSeconds: await videoSeconds(video) });
  const secs = state.videoSeconds;
  if (video && secs && state.parsed && !field("extend-video").checked && state.parsed.duration > secs + 0.05) {
    $("form-error").textContent = t("videoShort", fmt(state.parsed.duration), fmt(Math.round(secs * 100) / 100));
    return;
  }
  upload();
});
/** The job's files and options to POST /v1/jobs, its progress shown; its view once accepted. */
function upload() {
  const fd = new FormData();
  fd.append("script", new Blob([field("script").value], { type: "text/plain" }), nameFor());
  const video = field("video").files?.[0], music = field("music").files?.[0];
  if (video) fd.append("video", video);
  if (music) fd.append("music", music);
  fd.append("options", JSON.stringify(options()));
  const bar = /** @type {HTMLProgressElement} */ ($("upload")), msg = $("upload-msg");
  bar.hidden = false; bar.value = 0; button("submit").disabled = true;
  const xhr = new XMLHttpRequest();
  xhr.open("POST", "/v1/jobs");
  for (const [k, v] of Object.entries(headers())) xhr.setRequestHeader(k, v);
  xhr.upload.onprogress = (ev) => { if (ev.lengthComputable) { bar.value = ev.loaded / ev.total; msg.textContent = t("uploading", Math.round(100 * ev.loaded / ev.total)); } };
  xhr.upload.onload = () => { msg.textContent = t("uploaded"); };
  xhr.onerror = () => { button("submit").disabled = false; msg.textContent = ""; $("form-error").textContent = t("uploadFailed"); };
  xhr.onload = () => {
    button("submit").disabled = false; bar.hidden = true; msg.textContent = "";
    let body = null; try { body = JSON.parse(xhr.responseText); } catch (_) { /* not JSON */ }
    if (xhr.status !== 202) { showProblems($("form-error"), t("notSubmitted", ""), apiError(body, xhr.status)); return; }
    go(body.id); jobsChanged();
  };
  xhr.send(fd);
}

$("example").addEventListener("click", () => {
  field("script").value = EXAMPLES[state.lang] || EXAMPLES["zh-CN"];
  set({ scriptName: field("script").value.trim().startsWith("{") ? "script.json" : "example.md" });
  scriptVoices();  // a voice of its language
  saveDraft(); checkScript();
});
