// narrate studio: the page in the editor's language. It is the browser's (zh first),
// switchable, and remembered in this browser; the static words are the elements'
// data-i18n="key" (text) and data-i18n-attr="attr:key;attr:key".
import { chooseLang, lookup, WORDS } from "./words.js";
import { set, state, subscribe } from "./store.js";

export const LANG_KEY = "narrate.lang";

/**
 * The key's words in the page's language, {0} {1} filled in.
 * @param {string} k
 * @param {...unknown} args
 */
export function t(k, ...args) { return lookup(state.lang, k, ...args); }

/** The language this browser chose before, or its own. */
export function initialLang() {
  const langs = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
  return chooseLang(localStorage.getItem(LANG_KEY), langs);
}

export function applyWords() {
  document.documentElement.lang = state.lang;
  for (const e of document.querySelectorAll("[data-i18n]")) e.textContent = t(/** @type {HTMLElement} */ (e).dataset.i18n || "");
  for (const e of document.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of (/** @type {HTMLElement} */ (e).dataset.i18nAttr || "").split(";")) {
      const [a, k] = pair.split(":");
      e.setAttribute(a, t(k));
    }
  }
}

/** @param {string} l */
export function setLang(l) {
  const lang = WORDS[l] ? l : "en";
  localStorage.setItem(LANG_KEY, lang);
  set({ lang });
}
// First of the language's subscribers (every view imports this module, so it subscribes
// before them): the static words are in place before a view redraws its own.
subscribe(["lang"], applyWords);

/** Numbers in the page's language: at most two decimals, no grouping. @param {number} s */
export function fmt(s) { return new Intl.NumberFormat(state.lang, { maximumFractionDigits: 2, useGrouping: false }).format(s); }
/** A share (0..1) as a percentage in the page's language. @param {number} x */
export function percent(x) { return new Intl.NumberFormat(state.lang, { style: "percent" }).format(x); }
/** A server timestamp (seconds since the epoch) in the page's language. @param {number} x */
export function when(x) { return new Date(x * 1000).toLocaleString(state.lang); }
