// narrate studio, the fix panel's script-wide parts: the qualifiers (the caveat lines of the
// top layer) and the shots (times and on-screen text), shown from the parent's spec, edited,
// sent whole with the re-render and listed in the diff; and each segment heard as typed
// before the re-render (its Listen button).
import { $, el, field } from "./dom.js";
import { shotChanges } from "./diff.js";
import { fixDiff, fixSegments } from "./fix.js";
import { textLang } from "./format.js";
import { fmt, t } from "./i18n.js";
import { state } from "./store.js";
import { audition, defaultVoice } from "./voices.js";

/** @typedef {import("./store.js").Json} Json */
/** @typedef {import("./diff.js").Shot} Shot */

/** @param {Shot} s @param {string} lang */
function shotRow(s, lang) {
  /** @param {string} cls @param {number} v */
  const num = (cls, v) => el("input", { class: cls, type: "number", min: "0", step: "0.1", value: v });
  const row = el("div", { class: "fixshot row", "data-shot": JSON.stringify(s) },
    el("span", { class: "name", lang: textLang(s.name), text: t("shotName", s.index, s.name ? " · " + s.name : "") }),
    el("label", {}, t("shotStart"), num("start", s.start)),
    el("label", {}, t("shotEnd"), num("end", s.end)),
    el("label", { class: "wide" }, t("shotText"), el("input", { class: "text", type: "text", lang, value: s.screen_text || "" })),
    el("button", { type: "button", class: "remove", "aria-label": t("removeShot", s.index), text: t("remove"),
      onclick: () => { row.remove(); fixDiff(); } }));
  return row;
}
/** @param {Json} spec */
export function fixExtrasShow(spec) {
  const lang = spec.language === "en" ? "en" : "zh-CN";
  field("fix-qualifiers").value = (spec.qualifiers || []).join("\n");
  field("fix-qualifiers").lang = lang;
  $("fix-shots").replaceChildren(...(spec.shots || []).map((/** @type {Shot} */ s) => shotRow(s, lang)));
}
function fixQualifiers() { return field("fix-qualifiers").value.split("\n").map((l) => l.trim()).filter(Boolean); }
/** @returns {Shot[]} */
function fixShots() {
  return [...document.querySelectorAll("#fix-shots .fixshot")].map((row) => {
    /** @param {string} cls */
    const v = (cls) => /** @type {HTMLInputElement} */ (row.querySelector("input." + cls)).value;
    return Object.assign({}, JSON.parse(/** @type {HTMLElement} */ (row).dataset.shot || "{}"), { start: parseFloat(v("start")), end: parseFloat(v("end")), screen_text: v("text").trim() });
  });
}
/**
 * The qualifiers and shots as the panel has them. Their English translations go one per
 * qualifier: when the count changed they no longer match and are left out (the diff says so).
 * @param {Json} spec
 * @returns {Json}
 */
export function fixExtras(spec) {
  /** @type {Json} */
  const out = { qualifiers: fixQualifiers(), shots: fixShots() }, tr = spec.qualifier_translations || [];
  if (tr.length) out.qualifier_translations = tr.length === out.qualifiers.length ? tr : [];
  return out;
}
/** The qualifiers' and shots' changes against `old` (the job's spec), in the diff's words. @param {Json} old */
export function extrasDiff(old) {
  const out = [], none = t("diffNoValue"), q = fixQualifiers(), was = old.qualifiers || [];
  if (q.join("\n") !== was.join("\n")) {
    const dropped = (old.qualifier_translations || []).length && q.length !== was.length;
    out.push(t("diffQualifiers", was.join("; ") || none, q.join("; ") || none) + (dropped ? t("translationsDropped") : ""));
  }
  /** @param {Shot} s */
  const span = (s) => `${fmt(s.start)}–${fmt(s.end)} s`;
  const parts = shotChanges(old.shots || [], fixShots()).map(({ kind, shot: s, was: a, times, text }) => {
    const name = t("shotName", s.index, "");
    if (kind === "added") return `${name} ${t("diff.added")}: ${span(s)} “${s.screen_text}”`;
    if (kind === "removed" || !a) return `${name} ${t("diff.removed")}`;
    const d = [];
    if (times) d.push(`${span(a)} → ${span(s)}`);
    if (text) d.push(`“${a.screen_text || ""}” → “${s.screen_text}”`);
    return `${name}: ${d.join(", ")}`;
  });
  if (parts.length) out.push(t("diffShots", parts.join("; ")));
  return out;
}
$("fix-add-shot").addEventListener("click", () => {
  const shots = fixShots(), last = shots[shots.length - 1];
  const start = last && isFinite(last.end) ? last.end : 0, index = shots.reduce((m, s) => Math.max(m, s.index), 0) + 1;
  const lang = state.source && state.source.spec.language === "en" ? "en" : "zh-CN";
  const row = shotRow({ index, name: "", start, end: Math.round((start + 3) * 10) / 10, screen_text: "" }, lang);
  $("fix-shots").append(row);
  /** @type {HTMLInputElement} */ (row.querySelector("input.text")).focus();
  fixDiff();
});
for (const id of ["fix-qualifiers", "fix-shots"]) { $(id).addEventListener("input", fixDiff); $(id).addEventListener("change", fixDiff); }

// --- a segment heard as typed: its text, voice, rate and pitch through the voice sample ------
const SAMPLE_CHARS = 60;  // GET /v1/voices/{id}/sample's bound: a sentence, not a script
/** @param {number} i */
export function listenButton(i) {
  return [el("button", { type: "button", class: "listen", id: `fix-listen-${i}`, "data-index": i,
    "aria-label": t("listenAria", i + 1), onclick: () => listen(i), text: t("listen") }),
  el("span", { id: `fix-listen-msg-${i}`, class: "muted", "aria-live": "polite" })];
}
/**
 * The voice a segment that names none is spoken in: its speaker's, the job's (options, script),
 * else the one the job used for it, else the language's default.
 * @param {number} i
 * @param {import("./diff.js").Segment} seg
 * @returns {string | undefined}
 */
function jobVoice(i, seg) {
  const source = /** @type {Json} */ (state.source), spec = source.spec, o = source.options || {}, pv = o.preset_values || {};
  const used = state.job && state.job.segments && state.job.segments[i];
  const speaker = typeof seg.speaker === "string" ? seg.speaker : "";
  return (speaker && (spec.speakers || {})[speaker]) || o.voice || pv.voice || spec.voice
    || (used && used.voice) || defaultVoice(spec.language || "zh");
}
/** @param {number} i */
function listen(i) {
  const seg = fixSegments()[i], chars = [...seg.text.trim()];  // code points, as the server counts
  const note = chars.length > SAMPLE_CHARS ? t("listenFirst", SAMPLE_CHARS) : "";
  audition(seg.voice || jobVoice(i, seg), $(`fix-listen-msg-${i}`),
    { text: chars.slice(0, SAMPLE_CHARS).join(""), rate: seg.rate, pitch: seg.pitch, note });
}
