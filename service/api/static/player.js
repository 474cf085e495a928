// narrate studio, the preview: the player with the subtitles drawn over the picture as the
// export lays them out, and the timeline under it (segments, cues, the narration's waveform,
// a playhead); a segment's block plays its audio, a cue's seeks to it, a segment's grip drags
// its end (its seconds, then a re-render).
import { api, artifactURL } from "./api.js";
import { $, button, el, player } from "./dom.js";
import { cueCss, waveColumns, wordLook } from "./cues.js";
import { clock, textLang } from "./format.js";
import { fmt, t } from "./i18n.js";
import { set, state } from "./store.js";

/** @typedef {import("./store.js").Json} Json */
/** @typedef {import("./store.js").Piece} Piece */

/** @param {Json} m  the job's manifest */
export function timeline(m) {
  const v = player();
  const total = Math.max(m.duration || 0, isFinite(v.duration) ? v.duration : 0) || 1;  // the video's length, or the narration's
  set({ total });
  /** @param {number} a @param {number} b */
  const pos = (a, b) => `left:${(100 * a / total).toFixed(3)}%;width:${(100 * (b - a) / total).toFixed(3)}%`;
  /** @param {number} at */
  const seek = (at) => { player().currentTime = at; };
  const segLane = el("div", { class: "lane", role: "group", "aria-label": t("segments") }, el("span", { class: "name", text: t("laneSegments") }),
    ...m.segments.map((/** @type {Json} */ s) => el("button", { class: "block seg", style: pos(s.start, s.end), title: s.text,
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
  for (const [layer, n] of /** @type {[string, number][]} */ ([["overlay", 1], ["narration", 0]])) {
    const cues = m.cues.filter((/** @type {Json} */ c) => c.layer === n);
    if (!cues.length) continue;
    const name = layer === "overlay" ? t("laneOverlay") : t("laneSubs");
    lanes.push(el("div", { class: "lane", role: "group", "aria-label": name }, el("span", { class: "name", text: name }),
      ...cues.map((/** @type {Json} */ c) => el("button", { class: "block " + layer, style: pos(c.start, c.end), title: c.text,
        "aria-label": t("cueAria", fmt(c.start), c.text), lang: textLang(c.text), onclick: () => seek(c.start), text: c.text }))));
  }
  $("timeline").replaceChildren(...lanes, el("span", { id: "playhead", class: "playhead", "aria-hidden": "true" }));
  playhead();
  drawWave();
}
/**
 * Drag a segment's end to change its seconds: the pace is shown as it moves; released, the job
 * is re-rendered with the new seconds (the other segments come from the cache).
 * @param {Json} s
 * @param {number} i
 */
function grip(s, i) {
  const g = el("span", { class: "grip", "data-index": i, "aria-hidden": "true" });
  g.addEventListener("pointerdown", (e) => startDrag(e, s, i, g));
  g.addEventListener("click", (e) => { e.stopPropagation(); e.preventDefault(); });
  return g;
}
/** @param {PointerEvent} e @param {Json} s @param {number} i @param {HTMLElement} g */
function startDrag(e, s, i, g) {
  e.preventDefault(); e.stopPropagation();
  const block = /** @type {HTMLElement} */ (g.parentElement), row = /** @type {HTMLElement} */ (block.parentElement);
  const lane = row.getBoundingClientRect(), total = state.total || 1;
  const syllables = state.syllables ? state.syllables[i] : null;
  let secs = Math.round((s.end - s.start) * 10) / 10;
  const tip = el("span", { class: "drag-tip", role: "status" });
  row.append(tip);  // in the lane: the block clips what overflows it
  g.setPointerCapture(e.pointerId);
  /** @param {PointerEvent} ev */
  const move = (ev) => {
    const end = Math.max(s.start + 0.5, (ev.clientX - lane.left) / lane.width * total);
    secs = Math.round((end - s.start) * 10) / 10;
    block.style.width = `${(100 * secs / total).toFixed(3)}%`;
    tip.textContent = t("dragPace", fmt(secs), syllables ? fmt(syllables / secs) : "–");
    tip.style.left = `${(100 * (s.start + secs) / total).toFixed(3)}%`;
  };
  g.addEventListener("pointermove", move);
  g.addEventListener("pointerup", () => {
    g.removeEventListener("pointermove", move); tip.remove();
    const input = /** @type {HTMLInputElement | null} */ (document.getElementById(`fix-secs-${i}`));
    if (!input || parseFloat(input.value) === secs) return;
    input.value = String(secs); input.closest(".fixseg")?.classList.add("changed");
    button("rerender").click();
  }, { once: true });
}
/** @param {Json} s  a manifest segment */
async function playSegment(s) {
  try {
    if (state.segAudio) state.segAudio.pause();
    player().pause();  // one thing heard at a time
    const heard = new Audio(await artifactURL(`/v1/jobs/${state.job?.id}/segments/${s.index}/audio`));
    set({ segAudio: heard });
    await heard.play();
  } catch (e) { $("job-error").textContent = t("segmentAudio", /** @type {Error} */ (e).message); }
}
/** The narration's peaks (GET /v1/jobs/{id}/waveform, read once per job) over the timeline's length. */
async function drawWave() {
  const id = state.job && state.job.id;
  if (!id) return;
  if (!state.wave || state.wave.id !== id) {
    try { set({ wave: Object.assign(await api(`/v1/jobs/${id}/waveform`), { id }) }); } catch (_) { return; }
  }
  const c = /** @type {HTMLCanvasElement | null} */ (document.getElementById("wave")), wave = state.wave;
  if (!c || !state.total || !wave || wave.id !== (state.job && state.job.id)) return;
  const w = Math.max(1, c.clientWidth), h = Math.max(1, c.clientHeight), r = window.devicePixelRatio || 1;
  c.width = Math.round(w * r); c.height = Math.round(h * r);
  const g = /** @type {CanvasRenderingContext2D} */ (c.getContext("2d"));
  g.scale(r, r); g.fillStyle = "#2d6a4f";
  const scale = wave.scale;
  waveColumns(wave, state.total, w).forEach(([lo, hi], x) => {
    const y0 = h / 2 - (hi / scale) * h / 2, y1 = h / 2 - (lo / scale) * h / 2;
    g.fillRect(x, y0, 1, Math.max(1, y1 - y0));
  });
}
function playhead() {
  const ph = document.getElementById("playhead");
  if (ph && state.total) ph.style.cssText = `left:${(100 * player().currentTime / state.total).toFixed(3)}%`;
}
player().addEventListener("play", () => { if (state.segAudio) state.segAudio.pause(); tick(); });
player().addEventListener("seeked", () => { drawCues(); playhead(); });
player().addEventListener("loadedmetadata", () => { if (state.manifest) timeline(state.manifest); drawCues(); });
window.addEventListener("resize", () => drawCues());
function tick() { drawCues(); playhead(); if (!player().paused) requestAnimationFrame(tick); }
player().addEventListener("timeupdate", () => {
  const at = player().currentTime;
  document.querySelectorAll("#timeline .block").forEach((b) => b.classList.remove("now"));
  if (!state.manifest) return;
  const k = state.manifest.segments.findIndex((/** @type {Json} */ s) => at >= s.start && at < s.end);
  const blocks = document.querySelectorAll("#timeline .seg");
  if (k >= 0 && blocks[k]) blocks[k].classList.add("now");
});

// --- the subtitles over the picture, as the export lays them out -----------------------------
/** @type {Record<string, string>} */
const LOOKS = { narration: "narration", qualifiers: "qualifiers", screen: "screen_text", title: "screen_text" };
export function drawCues() {
  const box = $("cues"), v = player(), subs = state.subs;
  if (!subs || state.burned || $("preview").hidden) { if (state.drawn) { box.replaceChildren(); set({ drawn: "" }); } return; }
  // The picture's box inside the element (object-fit: contain), in the element's own pixels.
  // Audio only (no picture): the cues keep above the player's control bar, at a readable size.
  const bar = v.videoWidth ? 0 : 48, W = v.clientWidth, H = Math.max(1, v.clientHeight - bar), vw = v.videoWidth || W, vh = v.videoHeight || H;
  const k = Math.min(W / vw, H / vh), w = vw * k, h = vh * k;
  const at = v.currentTime, on = subs.cues.filter((c) => at >= c.start && at < c.end);
  const style = ((state.manifest || {}).style || {}), mode = style.captions;
  /** @param {import("./store.js").Cue} c */
  const begun = (c) => c.pieces.flat().filter((p) => p.timed && p.at <= at);
  const drawn = `${on.map((c) => `${subs.cues.indexOf(c)}.${begun(c).length}`).join(",")}@${Math.round(w)}x${Math.round(h)}`;
  if (drawn === state.drawn) return;
  set({ drawn });
  box.style.cssText = `left:${v.offsetLeft + (W - w) / 2}px;top:${v.offsetTop + (H - h) / 2}px;width:${w}px;height:${h}px`;
  const lang = state.manifest && state.manifest.language === "en" ? "en" : "zh-CN";
  box.replaceChildren(...on.map((c) => {
    const look = style[LOOKS[c.cls]] || {};
    const now = begun(c).pop();  // the word being spoken (a word-by-word cue's)
    return el("div", { class: "cue " + c.cls, style: cueCss(c.settings, look, h, bar) + (subs.styles[c.cls] || ""), lang },
      ...c.pieces.map((l) => el("span", { class: "line" }, ...wordByWord(l, mode, look, at, now))));
  }));
}
/**
 * A line's pieces as the ASS draws them at time `at` (cues.js: wordLook); a plain one as text.
 * @param {Piece[]} pieces
 * @param {string | undefined} mode
 * @param {Json} look
 * @param {number} at
 * @param {Piece | undefined} now
 * @returns {(HTMLElement | string)[]}
 */
function wordByWord(pieces, mode, look, at, now) {
  return pieces.map((p) => {
    const { css, cls } = wordLook(p, mode, look, at, now);
    return css || cls !== "word" ? el("span", { class: cls, style: css, text: p.text }) : p.text;
  });
}
