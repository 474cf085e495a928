// narrate studio: the few DOM helpers every view uses. Elements are made with el() (the CSP
// forbids style attributes: `style` goes through the CSSOM) and found by id with $() and its
// typed kin: the page's ids are fixed (index.html), so a lookup is not checked for null.

/** @param {string} id */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** A form control's element (input, select, textarea: value, checked, files). @param {string} id */
export const field = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
/** @param {string} id */
export const table = (id) => /** @type {HTMLTableElement} */ (document.getElementById(id));
/** @param {string} id */
export const button = (id) => /** @type {HTMLButtonElement} */ (document.getElementById(id));
/** The preview's player. */
export const player = () => /** @type {HTMLVideoElement} */ (document.getElementById("player"));

/** @typedef {string | number | boolean | null | undefined | ((e: any) => void)} AttrValue */
/**
 * An element: attributes (`text` its text, `on…` a listener, `style` its CSS; null, undefined
 * and false left out, true as ""), then its children (null and undefined left out).
 * @param {string} tag
 * @param {Record<string, AttrValue>} [attrs]
 * @param {...(Node | string | null | undefined)} kids
 * @returns {HTMLElement}
 */
export function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v === null || v === undefined ? "" : String(v);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), /** @type {EventListener} */ (v));
    else if (k === "style") e.style.cssText = String(v);  // CSSOM: the CSP forbids style attributes
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}
