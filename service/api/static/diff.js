// narrate studio: the fix panel's diff against the job it fixes, and its segment edits (split,
// merge), as data: fix.js and fix-extras.js put it in the editor's words. The speech check's
// marks (heard.js) are here too. Pure (no DOM, no words): node's tests import it.

/** @typedef {{ text: string, seconds: number, voice?: string, rate?: string, pitch?: string, [k: string]: unknown }} Segment */
/** @typedef {{ index: number, start: number, end: number, screen_text?: string, name?: string, [k: string]: unknown }} Shot */

/**
 * Segments matched by text (the longest common run), the unmatched between paired in order:
 * [i, j] an old segment and a new one, null where one side has none.
 * @param {{ text: string }[]} a
 * @param {{ text: string }[]} b
 * @returns {[number | null, number | null][]}
 */
export function alignSegments(a, b) {
  const n = a.length, m = b.length, L = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i][j] = a[i].text === b[j].text ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  /** @type {[number | null, number | null][]} */
  const pairs = [];
  let i = 0, j = 0;
  /** @type {number[]} */
  let oa = [];
  /** @type {number[]} */
  let ob = [];
  const flush = () => {
    for (let k = 0; k < Math.max(oa.length, ob.length); k++) pairs.push([oa[k] === undefined ? null : oa[k], ob[k] === undefined ? null : ob[k]]);
    oa = []; ob = [];
  };
  while (i < n || j < m) {
    if (i < n && j < m && a[i].text === b[j].text) { flush(); pairs.push([i++, j++]); }
    else if (j >= m || (i < n && L[i + 1][j] >= L[i][j + 1])) oa.push(i++);
    else ob.push(j++);
  }
  flush();
  return pairs;
}

/**
 * A segment's rate and pitch changes: [what, before, after] ("" where it names none); [] when
 * they are the same.
 * @param {Segment} a
 * @param {Segment} b
 * @returns {["rate" | "pitch", string, string][]}
 */
export function voiceChanges(a, b) {
  /** @type {["rate" | "pitch", string, string][]} */
  const out = [];
  for (const k of /** @type {const} */ (["rate", "pitch"])) if ((a[k] || "") !== (b[k] || "")) out.push([k, a[k] || "", b[k] || ""]);
  return out;
}

/**
 * @typedef {object} SegmentChange
 * @property {number | null} i  the old segment's index (null: added)
 * @property {number | null} j  the new one's (null: removed)
 * @property {"added" | "removed" | "changed"} kind
 * @property {Segment | null} a
 * @property {Segment | null} b
 * @property {["rate" | "pitch", string, string][]} tone  its rate and pitch changes
 */
/**
 * What the panel's segments change of the job's: added, removed, or changed (text, seconds,
 * voice, rate, pitch); a segment the same in all of them is left out.
 * @param {Segment[]} old
 * @param {Segment[]} now
 * @returns {SegmentChange[]}
 */
export function segmentChanges(old, now) {
  /** @type {SegmentChange[]} */
  const out = [];
  for (const [i, j] of alignSegments(old, now)) {
    const a = i === null ? null : old[i], b = j === null ? null : now[j];
    const tone = a && b ? voiceChanges(a, b) : [];
    if (a && b && a.text === b.text && Number(a.seconds) === b.seconds && (a.voice || "") === (b.voice || "") && !tone.length) continue;
    out.push({ i, j, kind: !a ? "added" : !b ? "removed" : "changed", a, b, tone });
  }
  return out;
}

/**
 * @typedef {object} ShotChange
 * @property {"added" | "changed" | "removed"} kind
 * @property {Shot} shot  the panel's (removed: the job's)
 * @property {Shot | null} was  the job's (added: none)
 * @property {boolean} times  its start or end changed
 * @property {boolean} text  its on-screen text changed
 */
/**
 * The shots the panel adds, changes and removes, matched by their index; removed ones last.
 * @param {Shot[]} old
 * @param {Shot[]} now
 * @returns {ShotChange[]}
 */
export function shotChanges(old, now) {
  const before = new Map(old.map((s) => [s.index, s]));
  /** @type {ShotChange[]} */
  const out = [];
  for (const s of now) {
    const a = before.get(s.index);
    before.delete(s.index);
    if (!a) { out.push({ kind: "added", shot: s, was: null, times: true, text: true }); continue; }
    const times = Number(a.start) !== s.start || Number(a.end) !== s.end, text = (a.screen_text || "") !== s.screen_text;
    if (times || text) out.push({ kind: "changed", shot: s, was: a, times, text });
  }
  for (const a of before.values()) out.push({ kind: "removed", shot: a, was: a, times: false, text: false });
  return out;
}

/** Where a segment's text splits: the sentence or clause mark nearest its middle, else the middle. @param {string} text */
export function splitAt(text) {
  const mid = Math.floor(text.length / 2), marks = [...text.matchAll(/[。！？；，,.!?;]\s*/g)].map((m) => (m.index || 0) + m[0].length);
  const near = marks.filter((k) => k > 0 && k < text.length).sort((a, b) => Math.abs(a - mid) - Math.abs(b - mid))[0];
  return near || mid;
}

/** Two segments' texts as one: no space after Chinese or a full stop. @param {string} a @param {string} b */
export function joinTexts(a, b) {
  const glue = /[\u3400-\u9fff]$/.test(a) || /[。！？]$/.test(a) ? "" : " ";
  return a + glue + b;
}

/**
 * `text` cut into pieces, each of `parts` (in order, each found after the last) a piece of its
 * kind; what is between them plain (kind null). A part not found is passed over.
 * @param {string} text
 * @param {[string, string][]} parts  [piece, kind]
 * @returns {{ text: string, kind: string | null }[]}
 */
export function markSpans(text, parts) {
  /** @type {{ text: string, kind: string | null }[]} */
  const out = [];
  let at = 0;
  for (const [piece, kind] of parts) {
    const k = piece ? text.indexOf(piece, at) : -1;
    if (k < 0) continue;
    if (k > at) out.push({ text: text.slice(at, k), kind: null });
    out.push({ text: piece, kind });
    at = k + piece.length;
  }
  if (at < text.length) out.push({ text: text.slice(at), kind: null });
  return out;
}

/**
 * The pronunciation lines (word = reading, one a line; blank lines skipped) as a map, or the
 * first line that is not one.
 * @param {string} text
 * @returns {{ rules: Record<string, string>, bad: string | null }}
 */
export function pronunciations(text) {
  /** @type {Record<string, string>} */
  const rules = {};
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const at = line.indexOf("=");
    if (at < 1) return { rules, bad: line };
    rules[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return { rules, bad: null };
}
