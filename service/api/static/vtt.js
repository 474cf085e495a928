// narrate studio: subtitles.vtt read into the cues the page draws over the picture itself
// (player.js): Chromium ignores a cue's line alignment (`line:88%,end` is the bottom edge of
// the box), so its own rendering would hang the lines below the line. Pure (no DOM).

/** @typedef {import("./store.js").Cue} Cue */
/** @typedef {import("./store.js").Piece} Piece */
/** @typedef {import("./store.js").Subtitles} Subtitles */

/** A cue line's text without its tags, its entities decoded. @param {string} l */
const plain = (l) => l.replace(/<[^>]*>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
/** "01:02.5" or "1:01:02.5" in seconds. @param {string} x */
const secs = (x) => x.trim().split(":").reduce((a, b) => a * 60 + parseFloat(b), 0);

/**
 * The file's ::cue(.class) styles and its cues: times, settings (line, position, size), class
 * (the first line's <c.class>, else narration), lines and their timed pieces.
 * @param {string} text
 * @returns {Subtitles}
 */
export function parseVTT(text) {
  /** @type {Record<string, string>} */
  const styles = {};
  /** @type {Cue[]} */
  const cues = [];
  for (const block of text.replace(/\r/g, "").split(/\n\n+/)) {
    if (block.startsWith("STYLE")) {
      for (const m of block.matchAll(/::cue\(\.([\w-]+)\)\s*\{([^}]*)\}/g)) styles[m[1]] = m[2].trim();
      continue;
    }
    const cue = parseCue(block);
    if (cue) cues.push(cue);
  }
  return { styles, cues };
}

/** @param {string} block  @returns {Cue | null} */
function parseCue(block) {
  const lines = block.split("\n"), at = lines.findIndex((l) => l.includes("-->"));
  if (at < 0) return null;
  const [from, rest] = lines[at].split("-->"), parts = rest.trim().split(/\s+/);
  /** @type {Record<string, string>} */
  const settings = {};
  for (const p of parts.slice(1)) { const i = p.indexOf(":"); settings[p.slice(0, i)] = p.slice(i + 1); }
  const body = lines.slice(at + 1), cls = ((body[0] || "").match(/^<c\.([\w-]+)>/) || [])[1] || "narration";
  const start = secs(from), split = piecer(start);
  return { start, end: secs(parts[0]), settings, cls, lines: body.map(plain), pieces: body.map(split) };
}

/**
 * A cue's lines into pieces, in order. A word-by-word cue's lines carry each word's onset
 * (<hh:mm:ss.mmm>): pieces from one to the next (a line without one, e.g. a bilingual cue's
 * English, is one untimed piece). An emphasised keyword (<c.emphasis>…</c>) is a piece of its
 * own, marked. The onset and the emphasis carry over from one line to the next.
 * @param {number} start
 * @returns {(l: string) => Piece[]}
 */
function piecer(start) {
  let onset = start, emph = false;
  return (l) => {
    /** @type {Piece[]} */
    const out = [];
    const timed = /<\d+:\d\d:\d\d\.\d+>/.test(l);
    l.split(/<(\d+:\d\d:\d\d\.\d+|c\.emphasis|\/c)>/).forEach((part, i) => {
      if (i % 2) { if (part === "c.emphasis") emph = true; else if (part === "/c") emph = false; else onset = secs(part); }
      else if (plain(part)) out.push({ at: onset, text: plain(part), timed, emph });
    });
    return out;
  };
}
