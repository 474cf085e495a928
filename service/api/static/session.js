// narrate studio, signing in: the key saved in this browser (none is needed on a machine that
// serves only itself), and what this key sees: its jobs, the voices and its presets.
import { api, key, KEY } from "./api.js";
import { closeBatch } from "./batch.js";
import { $, el, field } from "./dom.js";
import { DRAFT, draftVideo, readDraft } from "./draft.js";
import { t } from "./i18n.js";
import { closeJob } from "./job.js";
import { loadJobs } from "./jobs.js";
import { set, state } from "./store.js";
import { loadVoices } from "./voices.js";

$("signin").addEventListener("submit", (e) => {
  e.preventDefault();
  const k = field("key").value.trim();
  if (k) localStorage.setItem(KEY, k); else localStorage.removeItem(KEY);
  field("key").value = "";
  signedIn();
});
$("signout").addEventListener("click", signOutHere);
/** Signed out here, or in another tab of this studio (tabs.js): nothing of the tenant's work stays on the page. */
export function signOutHere() {
  localStorage.removeItem(KEY);
  localStorage.removeItem(DRAFT); draftVideo(null); closeBatch();
  if (location.hash && location.hash !== "#/new") history.replaceState(null, "", "#/new");
  closeJob(); $("compose").hidden = false;
  $("job-list").replaceChildren();
  /** @type {HTMLFormElement} */ ($("job-form")).reset(); $("parsed").replaceChildren(); $("form-error").textContent = "";
  $("video-name").textContent = ""; $("timeline").replaceChildren(); $("fix-list").replaceChildren();
  for (const u of state.urls) URL.revokeObjectURL(u);
  set({ urls: [], job: null, source: null, manifest: null, subs: null }); $("cues").replaceChildren();
  signedIn();
}
export async function signedIn() {
  $("who").textContent = key() ? t("whoKey") : t("whoNone");
  await Promise.all([loadJobs(), loadVoices(), loadPresets()]);
}
/** The presets this key sees (shipped and its own), each with its description as a tooltip. */
async function loadPresets() {
  /** @type {import("./store.js").Json[]} */
  let ps = [];
  try { ps = await api("/v1/presets"); } catch (_) { /* none */ }
  const keep = field("preset").value || readDraft().preset || "";
  field("preset").replaceChildren(el("option", { value: "", text: t("presetNone") }),
    ...ps.map((p) => el("option", { value: p.name, title: p.description || null, text: p.name + (p.kind === "saved" ? " ★" : "") })));
  field("preset").value = ps.some((p) => p.name === keep) ? keep : "";
}
