// narrate studio: the voices (GET /v1/voices) in the compose form's and the fix panel's
// pickers, following the script's language, and a voice heard before any render.
import { api, artifactURL } from "./api.js";
import { $, el, field, player } from "./dom.js";
import { readDraft } from "./draft.js";
import { t } from "./i18n.js";
import { set, state } from "./store.js";

export async function loadVoices() {
  try { set({ voices: await api("/v1/voices") }); } catch (e) { set({ voices: [] }); }
  scriptVoices(field("voice").value || readDraft().voice || "");
}
/**
 * The compose form follows the script's language: its voices, and the Traditional track's
 * choice for a Chinese script only.
 * @param {string} [voice]
 */
export function scriptVoices(voice = field("voice").value) {
  const lang = scriptLanguage();
  fillVoices(field("voice"), voice, lang, t("voiceDefault"));
  $("traditional-box").hidden = lang !== "zh";
}
/** The script's language: the JSON's own, the last check's, or Chinese when it has a Han character. */
export function scriptLanguage() {
  const text = field("script").value;
  const m = text.match(/"language"\s*:\s*"([a-zA-Z-]+)"/);
  if (m) return m[1].slice(0, 2).toLowerCase();
  if (!text.trim()) return state.parsed ? state.parsed.spec.language || "zh" : "zh";
  return /[\u3400-\u9fff]/.test(text) ? "zh" : "en";
}
/**
 * The voices that speak `language`, grouped by locale (the main one first), with gender and engine.
 * @param {HTMLSelectElement | HTMLInputElement} select
 * @param {string} value
 * @param {string} language
 * @param {string} blank  the no-voice option's words
 */
export function fillVoices(select, value, language, blank) {
  const vs = state.voices.filter((v) => !language || v.language === language);
  const main = language === "en" ? "en-US" : "zh-CN";
  /** @type {Map<string, import("./store.js").Json[]>} */
  const groups = new Map();
  for (const v of vs) { const loc = v.locale || v.language; if (!groups.has(loc)) groups.set(loc, []); groups.get(loc)?.push(v); }
  const order = [...groups.keys()].sort((a, b) => Number(b === main) - Number(a === main) || a.localeCompare(b));
  /** @param {string} g */
  const gender = (g) => t("gender." + g);
  select.replaceChildren(el("option", { value: "", text: blank }), ...order.map((loc) => el("optgroup", { label: loc },
    ...(groups.get(loc) || []).map((v) => el("option", { value: v.id, selected: v.id === value,
      text: `${v.name || v.id} · ${gender(v.gender)} · ${v.engine}${v.default ? " · " + t("voiceDefault") : ""}` })))));
  select.value = vs.some((v) => v.id === value) ? value : "";
}
/** What "default" speaks in `lang`: its default voice, edge's first. @param {string} lang @returns {string | undefined} */
export function defaultVoice(lang) {
  return (state.voices.find((v) => v.default && v.language === lang && v.engine === "edge")
    || state.voices.find((v) => v.default && v.language === lang) || {}).id;
}
/**
 * Hear voice `id` say `text` (none: the server's sample line) at `rate` and `pitch` (a
 * segment's '+10%', '-2Hz'), before any render: GET /v1/voices/{id}/sample. `msg` says how it went.
 * @param {string | undefined} id
 * @param {HTMLElement} msg
 * @param {{ text?: string, rate?: string, pitch?: string, note?: string }} [how]
 */
export async function audition(id, msg, { text, rate, pitch, note } = {}) {
  if (!id) return;
  const q = new URLSearchParams();
  if (text) q.set("text", text);
  if (rate) q.set("rate", rate);
  if (pitch) q.set("pitch", pitch);
  msg.textContent = t("auditionLoading");
  try {
    if (state.audition) state.audition.pause();
    player().pause();  // one thing heard at a time
    const heard = new Audio(await artifactURL(`/v1/voices/${encodeURIComponent(id)}/sample?${q}`));
    set({ audition: heard });
    await heard.play();
    msg.textContent = t("auditionPlaying", id) + (note || "");
  } catch (e) { msg.textContent = t("auditionFailed", /** @type {Error} */ (e).message); }
}
$("audition").addEventListener("click", () => audition(field("voice").value || defaultVoice(scriptLanguage()), $("audition-msg")));
$("script").addEventListener("input", () => {
  clearTimeout(state.langTimer);
  set({ langTimer: window.setTimeout(() => scriptVoices(), 300) });
});
