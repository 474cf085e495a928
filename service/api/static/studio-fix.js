// narrate studio, the fix panel's script-wide parts: the qualifiers (the caveat lines of the
// top layer) and the shots (times and on-screen text), shown from the parent's spec, edited,
// sent whole with the re-render and listed in the diff; and each segment's rate and pitch,
// heard before the re-render (its Listen button).
"use strict";
// '+10%' -> "10", '-2Hz' -> "-2", none -> "" (a number input's value).
function signedNumber(v) { const m = String(v || "").match(/^([+-]?\d+)/); return m ? String(Number(m[1])) : ""; }
// A segment's rate and pitch changes, in the diff's words ([] when they are the same).
function voiceChanges(a, b) {
  const out = [], none = t("diffNoValue");
  if ((a.rate || "") !== (b.rate || "")) out.push(t("diffRate", a.rate || none, b.rate || none));
  if ((a.pitch || "") !== (b.pitch || "")) out.push(t("diffPitch", a.pitch || none, b.pitch || none));
  return out;
}

function shotRow(s, lang) {
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
function fixExtrasShow(spec) {
  const lang = spec.language === "en" ? "en" : "zh-CN";
  $("fix-qualifiers").value = (spec.qualifiers || []).join("\n");
  $("fix-qualifiers").lang = lang;
  $("fix-shots").replaceChildren(...(spec.shots || []).map((s) => shotRow(s, lang)));
}
function fixQualifiers() { return $("fix-qualifiers").value.split("\n").map((l) => l.trim()).filter(Boolean); }
function fixShots() {
  return [...document.querySelectorAll("#fix-shots .fixshot")].map((row) => {
    const v = (cls) => row.querySelector("input." + cls).value;
    return Object.assign({}, JSON.parse(row.dataset.shot), { start: parseFloat(v("start")), end: parseFloat(v("end")), screen_text: v("text").trim() });
  });
}
// The qualifiers and shots as the panel has them. Their English translations go one per
// qualifier: when the count changed they no longer match and are left out (the diff says so).
function fixExtras(spec) {
  const out = { qualifiers: fixQualifiers(), shots: fixShots() }, tr = spec.qualifier_translations || [];
  if (tr.length) out.qualifier_translations = tr.length === out.qualifiers.length ? tr : [];
  return out;
}
function extrasDiff(old) {
  const out = [], none = t("diffNoValue"), q = fixQualifiers(), was = old.qualifiers || [];
  if (q.join("\n") !== was.join("\n")) {
    const dropped = (old.qualifier_translations || []).length && q.length !== was.length;
    out.push(t("diffQualifiers", was.join("; ") || none, q.join("; ") || none) + (dropped ? t("translationsDropped") : ""));
  }
  const now = fixShots(), before = new Map((old.shots || []).map((s) => [s.index, s])), parts = [];
  const span = (s) => `${fmt(s.start)}–${fmt(s.end)} s`;
  for (const s of now) {
    const a = before.get(s.index), name = t("shotName", s.index, "");
    before.delete(s.index);
    if (!a) { parts.push(`${name} ${t("diff.added")}: ${span(s)} “${s.screen_text}”`); continue; }
    const d = [];
    if (Number(a.start) !== s.start || Number(a.end) !== s.end) d.push(`${span(a)} → ${span(s)}`);
    if ((a.screen_text || "") !== s.screen_text) d.push(`“${a.screen_text || ""}” → “${s.screen_text}”`);
    if (d.length) parts.push(`${name}: ${d.join(", ")}`);
  }
  for (const a of before.values()) parts.push(`${t("shotName", a.index, "")} ${t("diff.removed")}`);
  if (parts.length) out.push(t("diffShots", parts.join("; ")));
  return out;
}
$("fix-add-shot").addEventListener("click", () => {
  const shots = fixShots(), last = shots[shots.length - 1];
  const start = last && isFinite(last.end) ? last.end : 0, index = shots.reduce((m, s) => Math.max(m, s.index), 0) + 1;
  const lang = S.source && S.source.spec.language === "en" ? "en" : "zh-CN";
  const row = shotRow({ index, name: "", start, end: Math.round((start + 3) * 10) / 10, screen_text: "" }, lang);
  $("fix-shots").append(row);
  row.querySelector("input.text").focus();
  fixDiff();
});
for (const id of ["fix-qualifiers", "fix-shots"]) { $(id).addEventListener("input", fixDiff); $(id).addEventListener("change", fixDiff); }

// --- a segment heard as typed: its text, voice, rate and pitch through the voice sample ------
const SAMPLE_CHARS = 60;  // GET /v1/voices/{id}/sample's bound: a sentence, not a script
function listenButton(i) {
  return [el("button", { type: "button", class: "listen", id: `fix-listen-${i}`, "data-index": i,
    "aria-label": t("listenAria", i + 1), onclick: () => listen(i), text: t("listen") }),
  el("span", { id: `fix-listen-msg-${i}`, class: "muted", "aria-live": "polite" })];
}
// The voice a segment that names none is spoken in: its speaker's, the job's (options, script),
// else the one the job used for it, else the language's default.
function jobVoice(i, seg) {
  const spec = S.source.spec, o = S.source.options || {}, pv = o.preset_values || {};
  const used = S.job && S.job.segments && S.job.segments[i];
  return (seg.speaker && (spec.speakers || {})[seg.speaker]) || o.voice || pv.voice || spec.voice
    || (used && used.voice) || defaultVoice(spec.language || "zh");
}
function listen(i) {
  const seg = fixSegments()[i], chars = [...seg.text.trim()];  // code points, as the server counts
  const note = chars.length > SAMPLE_CHARS ? t("listenFirst", SAMPLE_CHARS) : "";
  audition(seg.voice || jobVoice(i, seg), $(`fix-listen-msg-${i}`),
    { text: chars.slice(0, SAMPLE_CHARS).join(""), rate: seg.rate, pitch: seg.pitch, note });
}
