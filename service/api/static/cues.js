// narrate studio: how the preview lays a subtitle cue over the picture and draws its words at
// a moment, as the export's ASS does (player.js puts it on the page). Pure (no DOM).

/** @typedef {import("./store.js").Piece} Piece */
/** @typedef {Record<string, any>} Look  a style's look for a layer (size, colours, scales) */

/**
 * A cue's box in the picture's box, as CSS: its WebVTT line (88%,end: the bottom edge at 88 %),
 * position and size; its font a share of the picture's height `h` (at least 14 px where there
 * is no picture, above the player's control bar: `bar`).
 * @param {Record<string, string>} settings
 * @param {Look} look
 * @param {number} h
 * @param {number} bar
 */
export function cueCss(settings, look, h, bar) {
  const [line, anchor] = (settings.line || "88%,end").split(",");
  const size = parseFloat(settings.size || "100"), x = parseFloat(settings.position || "50"), y = parseFloat(line);
  const css = `left:${x - size / 2}%;width:${size}%;font-size:${Math.max((look.size || 0.0333) * h, bar ? 14 : 0).toFixed(2)}px;`;
  return css + (anchor === "end" ? `bottom:${100 - y}%;` : anchor === "center" ? `top:${y}%;transform:translateY(-50%);` : `top:${y}%;`);
}

/**
 * A piece as the ASS draws it at time `at`: highlight, the word being spoken (`now`, the last
 * begun) in the highlight colour; reveal, the words not spoken yet hidden, holding their place;
 * box, the word being spoken on a box in the box colour; pop, it in the highlight colour,
 * scaled in from 120 % (the .pop class's animation); an emphasised keyword in its colour and
 * size. `css` "" and `cls` "word": plain text.
 * @param {Piece} p
 * @param {string | undefined} mode
 * @param {Look} look
 * @param {number} at
 * @param {Piece | undefined} now
 * @returns {{ css: string, cls: string }}
 */
export function wordLook(p, mode, look, at, now) {
  const spoken = p.timed && now && p.at === now.at, css = [];
  if (p.emph && look.emphasis_color) css.push(`color:${look.emphasis_color};font-size:${look.emphasis_scale || 1}em`);
  if (spoken && (mode === "highlight" || mode === "pop") && look.highlight_color) css.push(`color:${look.highlight_color}`);
  if (spoken && mode === "box" && look.box_color) css.push(`background:${look.box_color};box-shadow:0 0 0 .12em ${look.box_color};border-radius:.12em`);
  if (p.timed && mode === "reveal" && p.at > at) css.push("visibility:hidden");
  return { css: css.join(";"), cls: spoken && mode === "pop" ? "word pop" : "word" };
}

/**
 * The waveform's columns: for each of `width` pixels over `total` seconds, the lowest and
 * highest peak of the bins under it (`bin` seconds each), 0 included.
 * @param {{ min: number[], max: number[], bin_seconds: number }} wave
 * @param {number} total
 * @param {number} width
 * @returns {[number, number][]}
 */
export function waveColumns(wave, total, width) {
  const { min, max, bin_seconds: bin } = wave, per = total / width / bin;
  /** @type {[number, number][]} */
  const out = [];
  for (let x = 0; x < width; x++) {
    const a = Math.floor(x * per), b = Math.min(max.length, Math.max(a + 1, Math.floor((x + 1) * per)));
    if (a >= max.length) break;
    let lo = 0, hi = 0;
    for (let i = a; i < b; i++) { if (min[i] < lo) lo = min[i]; if (max[i] > hi) hi = max[i]; }
    out.push([lo, hi]);
  }
  return out;
}
