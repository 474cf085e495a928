// narrate studio: small pure formatting helpers (no DOM, no words): node's tests import them.

/** Seconds as m:ss (a timeline tick, a video's length). @param {number} x */
export function clock(x) { const m = Math.floor(x / 60), s = Math.round(x % 60); return `${m}:${String(s).padStart(2, "0")}`; }

/** Text in the script's words: Chinese unless it has no Han character. @param {string | null | undefined} s */
export function textLang(s) { return s && /[\u3400-\u9fff]/.test(s) ? "zh-CN" : null; }

/** '+10%' -> "10", '-2Hz' -> "-2", none -> "" (a number input's value). @param {unknown} v */
export function signedNumber(v) { const m = String(v || "").match(/^([+-]?\d+)/); return m ? String(Number(m[1])) : ""; }

/**
 * A number input's value as a segment's rate or pitch ("10", "%" -> '+10%'); null when it is
 * empty or not a number (the segment names none).
 * @param {string} x
 * @param {string} unit
 * @returns {string | null}
 */
export function signedValue(x, unit) {
  const v = x.trim();
  if (v === "" || !isFinite(Number(v))) return null;
  return (Number(v) >= 0 ? "+" : "") + Math.round(Number(v)) + unit;
}

/** To a tenth (seconds in the fix panel). @param {number} x */
export const tenth = (x) => Math.round(x * 10) / 10;
