// narrate studio: the compose form's draft, saved in this browser as it is edited (the video
// in IndexedDB), restored at load, and taken from another tab that saved one (tabs.js).
import { field } from "./dom.js";
import { set, state } from "./store.js";

export const DRAFT = "narrate.draft";
const FIELDS = ["engine", "voice", "overflow", "traditional", "original", "preset", "music-level", "music-duck", "style"];
const CHECKS = ["burn", "extend-video", "exports"];

/** @returns {Record<string, any>} */
export function readDraft() { try { return JSON.parse(localStorage.getItem(DRAFT) || "{}") || {}; } catch (_) { return {}; } }
export function saveDraft() {
  const f = field("video").files?.[0];
  /** @type {Record<string, string | boolean>} */
  const d = { script: field("script").value, name: state.scriptName, video: f ? `${f.name}:${f.size}` : "" };
  for (const f of FIELDS) d[f] = field(f).value;
  for (const f of CHECKS) d[f] = field(f).checked;
  try { localStorage.setItem(DRAFT, JSON.stringify(d)); } catch (_) { /* storage full: no draft */ }
}
/** A saved draft into the compose form (at load, and when another tab saves one). @param {Record<string, any>} d */
export function applyDraft(d) {
  if (typeof d.script === "string") field("script").value = d.script;
  if (d.name) set({ scriptName: d.name });
  for (const f of FIELDS) if (typeof d[f] === "string") field(f).value = d[f];
  for (const f of CHECKS) if (typeof d[f] === "boolean") field(f).checked = d[f];
}
/** The draft and its video back in the form; `show` says what video it has. @param {() => void} show */
export function restoreDraft(show) {
  applyDraft(readDraft());
  idb("get", "video").then((file) => {
    if (!file || field("video").files?.length) return;
    const dt = new DataTransfer(); dt.items.add(file); field("video").files = dt.files; show();
  }).catch(() => {});
}
/**
 * The draft's video in IndexedDB: read, stored or removed.
 * @param {"get" | "put" | "delete"} op
 * @param {string} name
 * @param {File | null} [value]
 * @returns {Promise<File | null>}
 */
export function idb(op, name, value) {
  return new Promise((ok, no) => {
    if (!window.indexedDB) { ok(null); return; }
    const open = indexedDB.open("narrate", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("draft");
    open.onerror = () => no(open.error);
    open.onsuccess = () => {
      const tx = open.result.transaction("draft", op === "get" ? "readonly" : "readwrite");
      const store = tx.objectStore("draft");
      const r = op === "get" ? store.get(name) : op === "put" ? store.put(value, name) : store.delete(name);
      tx.oncomplete = () => { open.result.close(); ok(r.result === undefined ? null : /** @type {File} */ (r.result)); };
      tx.onerror = () => no(tx.error);
    };
  });
}
/** Stored, then announced (the other tabs read it from IndexedDB when the write is done). @param {File | null} file */
export function draftVideo(file) {
  idb(file ? "put" : "delete", "video", file).then(() => {
    try { localStorage.setItem(DRAFT + ".video", `${file ? file.name + ":" + file.size : ""}@${Date.now()}`); } catch (_) { /* full */ }
  }).catch(() => {});
}
