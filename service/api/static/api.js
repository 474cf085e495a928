// narrate studio: the page talks only to this server's /v1 API. The key (if any) is saved in
// this browser and sent as a bearer token; artifacts and event streams, which a <video> or an
// EventSource cannot send it with, are fetched with it.
import { $ } from "./dom.js";
import { t } from "./i18n.js";
import { takeEvents } from "./sse.js";
import { set, state } from "./store.js";

/** @typedef {import("./store.js").Json} Json */
/** @typedef {import("./store.js").Stream} Stream */
/** @typedef {Error & { status?: number, items?: import("./problems.js").Problem[] | null }} ApiError */

export const KEY = "narrate.key";
export function key() { return localStorage.getItem(KEY) || ""; }
/** @param {Record<string, string>} [extra] @returns {Record<string, string>} */
export function headers(extra) {
  const h = Object.assign({}, extra || {});
  if (key()) h.Authorization = "Bearer " + key();
  return h;
}
/** An error body's words: FastAPI's detail, or every 422 problem's. @param {Json | null} body @param {number} status */
export function detail(body, status) {
  if (!body) return "HTTP " + status;
  const d = body.detail;
  if (typeof d === "string") return d;
  if (Array.isArray(d)) return d.map((x) => x.msg).join("\n");  // 422: [{code, msg, loc}], msg names the field
  return "HTTP " + status;
}
/** An ApiError from an answer that was not ok. @param {Json | null} body @param {number} status @returns {ApiError} */
export function apiError(body, status) {
  /** @type {ApiError} */
  const e = new Error(detail(body, status));
  e.status = status;
  e.items = body && Array.isArray(body.detail) ? body.detail : null;  // 422: every problem, with its code and loc
  return e;
}

/**
 * The API's JSON answer (or its text, with `text`), the key sent; an ApiError when not ok.
 * @param {string} path
 * @param {RequestInit & { text?: boolean, headers?: Record<string, string> }} [opts]
 * @returns {Promise<any>}
 */
export async function api(path, opts) {
  opts = opts || {};
  let r = await fetch(path, Object.assign({}, opts, { headers: headers(opts.headers) }));
  if (r.status === 401 && key()) {
    // A saved key this server refuses: a server that needs none (loopback) still answers
    // without it, and the key is forgotten; otherwise the editor is asked to sign in.
    const bare = await fetch(path, Object.assign({}, opts, { headers: Object.assign({}, opts.headers || {}) }));
    if (bare.status !== 401) {
      localStorage.removeItem(KEY);
      $("who").textContent = t("keyRefused");
      r = bare;
    }
  }
  let body = null;
  const ct = r.headers.get("content-type") || "";
  if (ct.includes("json")) body = await r.json();
  else if (opts.text && r.ok) body = await r.text();
  if (r.status === 401) { $("who").textContent = t("signInPrompt", detail(body, r.status)); }
  if (!r.ok) throw apiError(body, r.status);
  return body;
}
/** POST a JSON body. @param {string} path @param {unknown} body */
export function postJSON(path, body) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}
/** A URL a <video>, <img> or <audio> can load: with a key, the artifact fetched as a blob. @param {string} path */
export async function artifactURL(path) {
  if (!key()) return path;
  const r = await fetch(path, { headers: headers() });
  if (!r.ok) throw new Error("could not load " + path + ": HTTP " + r.status);
  const u = URL.createObjectURL(await r.blob());
  set({ urls: [...state.urls, u] });
  return u;
}

/**
 * SSE that can carry the key: without one an EventSource; with one the stream is read with
 * fetch() and parsed here (the same events, ids and retry). `onerror` once it ends (true: the
 * server closed it), unless it was closed here.
 * @param {string} url
 * @param {Record<string, (data: any, id: string) => void>} on
 * @param {(ended?: boolean) => void} onerror
 * @returns {Stream}
 */
export function openStream(url, on, onerror) {
  if (!key() && window.EventSource) {
    const es = new EventSource(url);
    for (const [name, fn] of Object.entries(on)) es.addEventListener(name, (e) => fn(JSON.parse(e.data), e.lastEventId));
    es.onerror = () => { es.close(); onerror(); };
    return { close: () => es.close(), kind: "eventsource", get readyState() { return es.readyState; } };
  }
  const ctl = new AbortController();
  let closed = false, ready = 0;  // EventSource's readyState: 0 connecting, 1 open, 2 closed
  (async () => {
    const r = await fetch(url, { headers: headers({ Accept: "text/event-stream" }), signal: ctl.signal });
    if (!r.ok || !r.body) throw new Error("HTTP " + r.status);
    ready = 1;
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const { events, rest } = takeEvents(buf + value.replace(/\r/g, ""));
      buf = rest;
      for (const ev of events) if (ev.data && on[ev.name]) on[ev.name](JSON.parse(ev.data), ev.id);
    }
  })().then(() => { ready = 2; if (!closed) onerror(true); }, () => { ready = 2; if (!closed) onerror(); });
  return { close: () => { closed = true; ready = 2; ctl.abort(); }, kind: "fetch", get readyState() { return ready; } };
}
