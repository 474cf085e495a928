// narrate studio, the fix panel of an ended job: each segment's text, seconds, voice, rate and
// pitch, its structure (split, merge, add, remove), the pronunciations (and a dictionary to
// keep them in), the overflow policy, engine, style and burn-in; the diff against the job;
// then a re-render (a new job: unchanged segments come from the TTS cache).
import { api, postJSON } from "./api.js";
import { $, button, el, field } from "./dom.js";
import { joinTexts, pronunciations, segmentChanges, splitAt } from "./diff.js";
import { extrasDiff, fixExtras, fixExtrasShow, listenButton } from "./fix-extras.js";
import { signedNumber, signedValue, tenth, textLang } from "./format.js";
import { fmt, t } from "./i18n.js";
import { jobsChanged } from "./jobs.js";
import { showProblems } from "./report.js";
import { go } from "./router.js";
import { state, subscribe } from "./store.js";
import { fixOptionChanges, fixOptionsShow, still } from "./styles.js";
import { fillVoices } from "./voices.js";

/** @typedef {import("./store.js").Json} Json */
/** @typedef {import("./diff.js").Segment} Segment */

/**
 * What the engine was told to say (the manifest's spoken_text: pinyin, or the English reading),
 * and a correction: the words selected in the segment's text become a pronunciation line.
 * @param {number} i
 * @param {string} lang
 */
function reading(i, lang) {
  const seg = state.manifest && state.manifest.segments[i];
  if (!seg || !seg.spoken_text) return null;
  return el("div", { class: "reading" },
    el("span", { class: "muted", text: t("engineRead") }), el("code", { id: `fix-read-${i}`, lang: lang === "en" ? "en" : "zh-Latn-pinyin", text: seg.spoken_text.trim() }),
    el("button", { type: "button", "data-index": i, onclick: () => correct(i), text: t("correct") }));
}
/** @param {number} i */
function correct(i) {
  const ta = field(`fix-text-${i}`), word = ta.value.slice(ta.selectionStart || 0, ta.selectionEnd || 0).trim();
  if (!word) { $("fix-msg").textContent = t("selectWord"); ta.focus(); return; }
  const pron = field("fix-pron");
  pron.value = (pron.value.trim() ? pron.value.trim() + "\n" : "") + `${word} = `;
  pron.focus(); pron.setSelectionRange(pron.value.length, pron.value.length);
}
/**
 * The tenant's pronunciation dictionaries (/v1/lexicons): "save to a dictionary" adds the
 * pronunciations to the one chosen (a new version of it) or to a new one.
 */
async function fixLexicons() {
  const pick = field("fix-lex"), keep = pick.value;
  /** @type {Json[]} */
  const mine = await api("/v1/lexicons").catch(() => []);
  pick.replaceChildren(el("option", { value: "", text: t("lexNew") }),
    ...mine.map((d) => el("option", { value: d.id, text: `${d.name} (v${d.version})` })));
  pick.value = mine.some((d) => d.id === keep) ? keep : "";
}
/** @param {Record<string, string>} pron */
async function saveToLexicon(pron) {
  const id = field("fix-lex").value || (await postJSON("/v1/lexicons", { name: field("fix-lex-name").value.trim() || "studio", rules: [] })).id;
  await postJSON(`/v1/lexicons/${id}/rules`, { rules: Object.entries(pron).map(([grapheme, value]) => ({ grapheme, value })) });
  field("fix-save-lex").checked = false;
  await fixLexicons(); field("fix-lex").value = id;
}
/** The panel drawn from a spec (the job's, or the panel's own after a restructure). @param {Json} spec */
export function fixForm(spec) {
  const lang = spec.language || "zh", source = /** @type {Json} */ (state.source);
  fixLexicons();
  field("fix-pron").value = Object.entries(spec.pronunciations || {}).map(([w, v]) => `${w} = ${v}`).join("\n");
  const opts = source.options || {};
  field("fix-overflow").value = opts.on_overflow || (spec.fit && spec.fit.on_overflow) || "fail";
  field("fix-engine").value = (source.options && source.options.engine) || "";
  fixOptionsShow(opts);
  $("fix-list").replaceChildren(...spec.segments.map((/** @type {Segment} */ s, /** @type {number} */ i) => segmentBox(s, i, lang, spec.segments.length)));
  fixExtrasShow(spec);
  $("fix-list").dataset.job = state.jobId || "";
}
/** @param {Segment} s @param {number} i @param {string} lang @param {number} n */
function segmentBox(s, i, lang, n) {
  const voice = /** @type {HTMLSelectElement} */ (el("select", { id: `fix-voice-${i}` }));
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
  /** @type {HTMLTextAreaElement} */ (box.querySelector("textarea")).value = s.text;
  fixTools(box, i, n);
  box.addEventListener("input", () => box.classList.add("changed"));
  box.addEventListener("change", () => box.classList.add("changed"));
  return box;
}
$("rerender").addEventListener("click", rerender);
async function rerender() {
  $("fix-error").textContent = "";
  const source = /** @type {Json} */ (state.source), job = /** @type {Json} */ (state.job);
  const spec = JSON.parse(JSON.stringify(source.spec));
  spec.segments = fixSegments();
  Object.assign(spec, fixExtras(spec));
  const { rules: pron, bad } = pronunciations(field("fix-pron").value);
  if (bad !== null) { $("fix-error").textContent = t("pronBad", bad); return; }
  if (Object.keys(pron).length) spec.pronunciations = pron; else delete spec.pronunciations;
  button("rerender").disabled = true; $("fix-msg").textContent = t("submitting");
  try {
    spec.fit = Object.assign({}, spec.fit || {}, { on_overflow: field("fix-overflow").value });
    if (field("fix-save-lex").checked && Object.keys(pron).length) await saveToLexicon(pron);
    /** @type {Json} */
    const body = { spec };
    const opts = source.options || {}, engine = field("fix-engine").value, more = fixOptionChanges(opts);
    if (engine !== (opts.engine || "") || (opts.on_overflow && opts.on_overflow !== spec.fit.on_overflow) || Object.keys(more).length) {
      const o = Object.assign({}, opts);  // the parent's options, but for these two
      delete o.preset_values;
      if (engine) o.engine = engine; else delete o.engine;
      if (o.on_overflow) o.on_overflow = spec.fit.on_overflow;
      for (const [k, v] of Object.entries(more)) { if (v === null) delete o[k]; else o[k] = v; }
      body.options = o;
    }
    const r = await postJSON(`/v1/jobs/${job.id}/rerender`, body);
    $("fix-msg").textContent = "";
    go(r.id); jobsChanged();
  } catch (e) { showProblems($("fix-error"), t("notRerendered", ""), e); $("fix-msg").textContent = ""; }
  finally { button("rerender").disabled = false; }
}

// --- the panel's structure: add, split, merge, remove; and the diff before re-rendering
/** The panel's segments as typed: each the job's, with its text, seconds, voice, rate and pitch. @returns {Segment[]} */
export function fixSegments() {
  return [...document.querySelectorAll("#fix-list .fixseg")].map((box, i) => {
    const base = JSON.parse(/** @type {HTMLElement} */ (box).dataset.seg || "{}");
    const out = Object.assign({}, base, { text: field(`fix-text-${i}`).value, seconds: parseFloat(field(`fix-secs-${i}`).value) });
    const v = field(`fix-voice-${i}`).value;
    if (v) out.voice = v; else delete out.voice;
    for (const [k, unit] of [["rate", "%"], ["pitch", "Hz"]]) {
      const x = signedValue(field(`fix-${k}-${i}`).value, unit);
      if (x === null) delete out[k]; else out[k] = x;
    }
    return out;
  });
}
/**
 * The panel drawn again from what it holds now (a restructure, a language switch): the
 * segments `segs`, and the qualifiers, shots, pronunciations and options as typed; the
 * segments `changed(i)` names stay marked.
 * @param {Segment[]} segs
 * @param {(i: number) => boolean} changed
 */
function fixRedraw(segs, changed) {
  const was = /** @type {Json} */ (state.source).spec;
  const spec = Object.assign({}, was, fixExtras(was), { segments: segs });
  const keep = ["fix-pron", "fix-overflow", "fix-engine", "fix-style"].map((id) => [id, field(id).value]), burn = field("fix-burn").checked;
  fixForm(spec);
  for (const [id, v] of keep) field(id).value = v;
  field("fix-burn").checked = burn; still("fix-style");
  document.querySelectorAll("#fix-list .fixseg").forEach((box, i) => { if (changed(i)) box.classList.add("changed"); });
  fixDiff();
}
/** @param {(segs: Segment[]) => void} change */
function restructure(change) {
  const segs = fixSegments();
  change(segs);
  fixRedraw(segs, () => true);
}
// A language switch: the panel's words change, not what the editor typed in it.
subscribe(["lang"], (s) => {
  if (!s.source || $("fix-list").dataset.job !== s.jobId) return;  // not drawn for this job yet
  const was = [...document.querySelectorAll("#fix-list .fixseg")].map((box) => box.classList.contains("changed"));
  fixRedraw(fixSegments(), (i) => was[i]);
});
/** A segment's split, merge and remove buttons. @param {HTMLElement} box @param {number} i @param {number} n */
function fixTools(box, i, n) {
  const split = () => restructure((segs) => {
    const s = segs[i], at = splitAt(s.text), half = tenth(s.seconds / 2);
    segs.splice(i, 1, Object.assign({}, s, { text: s.text.slice(0, at).trim(), seconds: half }),
      Object.assign({}, s, { text: s.text.slice(at).trim() || t("newText"), seconds: tenth(s.seconds - half), label: undefined, start: undefined }));
  });
  const merge = () => restructure((segs) => {
    const a = segs[i], b = segs[i + 1];
    segs.splice(i, 2, Object.assign({}, a, { text: joinTexts(a.text, b.text), seconds: tenth(a.seconds + b.seconds) }));
  });
  const remove = () => restructure((segs) => { segs.splice(i, 1); });
  box.append(el("div", { class: "row tools" },
    el("button", { type: "button", class: "split", "data-index": i, onclick: split, text: t("split") }),
    i + 1 < n ? el("button", { type: "button", class: "merge", "data-index": i, onclick: merge, text: t("merge") }) : null,
    n > 1 ? el("button", { type: "button", class: "remove", "data-index": i, onclick: remove, text: t("remove") }) : null));
}
$("fix-add").addEventListener("click", () => restructure((segs) => { segs.push({ text: t("newText"), seconds: 3 }); }));

/** The changes against the job, as the panel has them: segments, options, qualifiers, shots. */
export function fixDiff() {
  if (!state.source || !$("fix-list").children.length) return;
  const source = state.source, none = t("diffNoValue"), rows = [];
  for (const { i, j, kind, a, b, tone } of segmentChanges(source.spec.segments, fixSegments())) {
    const lang = textLang(/** @type {Segment} */ (a || b).text);
    const text = a && b && a.text !== b.text ? [el("del", { lang, text: a.text }), " → ", el("ins", { lang, text: b.text })]
      : [el("span", { lang, text: /** @type {Segment} */ (b || a).text })];
    const words = tone.map(([k, from, to]) => t(k === "rate" ? "diffRate" : "diffPitch", from || none, to || none));
    if (words.length) text.push(el("span", { class: "muted", text: " · " + words.join(" · ") }));
    const secs = a && b ? (Number(a.seconds) !== b.seconds ? t("diffSecs", fmt(a.seconds), fmt(b.seconds)) : fmt(b.seconds) + " s")
      : fmt(/** @type {Segment} */ (b || a).seconds) + " s";
    rows.push(el("tr", { "data-kind": kind },
      el("td", { text: `${i === null ? "–" : i + 1} → ${j === null ? "–" : j + 1}` }), el("td", { text: t("diff." + kind) }),
      el("td", {}, ...text), el("td", { text: secs })));
  }
  const opts = fixOptionChanges(source.options || {});
  const optText = Object.entries(opts).map(([k, v]) => `${k === "style" ? t("style") : t("fixBurn")}: ${v === null ? t("styleDefault") : k === "style" ? field("fix-style").value : v}`)
    .concat(extrasDiff(source.spec));
  $("fix-diff").replaceChildren(...[el("h4", { text: t("diffH") }),
    rows.length ? el("div", { class: "scroll" }, el("table", { id: "diff-table" },
      el("thead", {}, el("tr", {}, ...["#", t("colState"), t("colText"), t("colSeconds")].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, ...rows))) : null,
    ...optText.map((x) => el("p", { text: x })),
    !rows.length && !optText.length ? el("p", { class: "muted", text: t("diffNone") }) : null].filter((x) => x !== null));
}
$("fix-list").addEventListener("input", fixDiff);
$("fix-list").addEventListener("change", fixDiff);
