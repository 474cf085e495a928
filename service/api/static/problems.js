// narrate studio: a check's problems in the editor's words: each with its field's label and,
// where it has one, its line in the script. Pure (no DOM): the words come in as `t`.
import { WORDS } from "./words.js";

/** @typedef {(k: string, ...args: unknown[]) => string} Say */
/** @typedef {{ msg?: string, code?: string, loc?: (string | number)[] }} Problem */

/** @type {Record<string, string>} */
const FIELD = { max_pace: "field.max_pace", on_overflow: "field.on_overflow", text: "field.text", seconds: "field.seconds",
  voice: "field.voice", speaker: "field.speaker", rate: "field.rate", pitch: "field.pitch", start: "field.start",
  engine: "field.engine", title: "field.title", language: "field.language", video: "field.video", music: "field.music",
  script: "field.script", qualifiers: "field.qualifiers", pronunciations: "field.pronunciations" };

/** A 422 item's loc as the form's labels ("Segment 2 · text"). @param {Problem["loc"]} loc @param {Say} t */
export function fieldName(loc, t) {
  const parts = (loc || []).filter((x) => x !== "body" && x !== "options" && x !== "fit");
  const out = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i], next = parts[i + 1];
    if (p === "segments" && typeof next === "number") { out.push(t("field.segment", next + 1)); i++; }
    else if (typeof p === "string" && FIELD[p]) out.push(t(FIELD[p]));
    else if (typeof p === "string") out.push(p);
  }
  return out.join(" · ");
}

/** The server's sentence, its internal names replaced by the form's labels. @param {string} msg @param {Say} t */
export function plainWords(msg, t) {
  return msg.replace(/fit\.max_pace=?/g, t("field.max_pace") + " ").replace(/\bfit max_pace\b/g, t("field.max_pace"))
    .replace(/\bon_overflow\b/g, t("field.on_overflow")).replace(/\boptions (?=\S)/g, "")
    .replace(/'source\.video'/g, t("field.video")).replace(/<ssl\.SSLContext[^>]*>/g, "TLS");
}

/** One problem as a sentence: where, then why (a known code in the page's own words). @param {Problem} item @param {Say} t */
export function problemText(item, t) {
  const where = fieldName(item.loc, t), m = item.msg || "";
  if (item.code === "pace.overflow") {
    const n = m.match(/([\d.]+) syllables in ([\d.]+) s needs ([\d.]+) syllables\/s, over the limit [^=]*=?([\d.]+)/);
    if (n) return t("code.pace.overflow", where, n[1], n[2], n[3], n[4]);
  }
  if (item.code === "voice.unknown") { const v = m.match(/unknown voice ('[^']*')/); if (v) return t("code.voice.unknown", where, v[1]); }
  const reason = plainWords(m.replace(/^segment \d+( [a-z_]+)?: /, "").replace(/^[a-z_]+( [a-z_]+)?: /, "").replace(/ ?\(line \d+\)/, ""), t);
  return where ? `${where}: ${reason}` : reason;
}

/**
 * The script line a problem is on (1-based): the one its message names, or its segment's
 * header in `script`; null when it names neither.
 * @param {Problem} item
 * @param {string} script
 * @returns {number | null}
 */
export function problemLine(item, script) {
  const m = (item.msg || "").match(/\(line (\d+)\)|\bline (\d+)\b/);
  if (m) return parseInt(m[1] || m[2], 10);
  const loc = item.loc || [], at = loc.indexOf("segments"), n = loc[at + 1];
  if (at < 0 || typeof n !== "number") return null;
  const want = n + 1, k = script.split("\n").findIndex((l) => new RegExp(`^\\s*\\[(段|Segment)\\s*${want}\\b`).test(l));
  return k >= 0 ? k + 1 : null;
}

/** What each stage is, in the editor's words ("encode 42%": the picture, 42 % of its frames). @param {string} st @param {Say} t */
export function stageName(st, t) {
  const enc = st.match(/^encode (\d+)%$/);
  if (enc) return t("stage.encode", enc[1]);
  const seg = st.match(/^segment (\d+)\/(\d+)$/);
  if (seg) return t("stage.segment", seg[1], seg[2]);
  return WORDS.en["stage." + st] ? t("stage." + st) : st;
}
