// narrate studio, the style picker: GET /v1/styles into the compose form's and the fix panel's
// selects, and the still of the chosen one as the burn-in draws it (the open job's video frame
// in the fix panel, a neutral frame of the chosen video's shape when composing).
import { api, artifactURL } from "./api.js";
import { $, el, field, player } from "./dom.js";
import { readDraft } from "./draft.js";
import { fixDiff } from "./fix.js";
import { t } from "./i18n.js";
import { burnedIn } from "./job.js";
import { set, state, subscribe } from "./store.js";

/** @typedef {import("./store.js").Json} Json */

export async function loadStyles() {
  try { set({ styles: (await api("/v1/styles")).styles }); } catch (_) { set({ styles: [] }); }
  for (const [id, keep] of [["style", field("style").value || readDraft().style || ""], ["fix-style", field("fix-style").value]]) {
    field(id).replaceChildren(el("option", { value: "", text: t("styleDefault") }),
      ...state.styles.filter((s) => s.name !== "default").map((s) => el("option", { value: s.name, title: s.description || null, text: s.name })));
    field(id).value = state.styles.some((s) => s.name === keep) ? keep : "";
  }
  still("style");
}
subscribe(["lang"], loadStyles);  // the selects' "default" option
/** The still of select `id`'s style (style, fix-style) under it. @param {string} id */
export async function still(id) {
  const name = field(id).value || "default", img = /** @type {HTMLImageElement} */ ($(id + "-still")), seq = state.stillSeq + 1;
  set({ stillSeq: seq });
  const q = new URLSearchParams({ width: "270" });
  if (id === "style" && state.videoLandscape) q.set("frame", "landscape");  // as the chosen video
  if (id === "fix-style" && state.job && state.source && state.source.has_video) {
    q.set("job", state.job.id);
    q.set("at", String(Math.round((player().currentTime || 1) * 10) / 10));
  }
  try {
    const u = await artifactURL(`/v1/styles/${encodeURIComponent(name)}/preview.png?${q}`);
    if (seq !== state.stillSeq && id === "style") return;
    img.src = u; img.alt = t("styleStill", name); img.dataset.style = name; img.hidden = false;
  } catch (_) { img.hidden = true; }
}
$("style").addEventListener("change", () => still("style"));
// The compose still's frame follows the chosen video's shape (a neutral frame of that shape).
$("video").addEventListener("change", () => {
  const f = field("video").files?.[0];
  if (!f) { set({ videoLandscape: false }); still("style"); return; }
  const v = document.createElement("video"), url = URL.createObjectURL(f);
  v.preload = "metadata";
  v.onloadedmetadata = () => { set({ videoLandscape: v.videoWidth > v.videoHeight }); URL.revokeObjectURL(url); still("style"); };
  v.onerror = () => URL.revokeObjectURL(url);
  v.src = url;
});
$("fix-style").addEventListener("change", () => { still("fix-style"); fixDiff(); });
$("fix-burn").addEventListener("change", fixDiff);

/** What the fix panel changes of the parent's options (style, burn-in); {} when nothing. @param {Json} opts @returns {Json} */
export function fixOptionChanges(opts) {
  /** @type {Json} */
  const out = {};
  const style = field("fix-style").value, burn = field("fix-burn").checked;
  const was = styleName(opts);
  // The parent's own style overrides are kept; only the preset changes.
  if (style !== was) out.style = style ? (opts.style && typeof opts.style === "object" ? Object.assign({}, opts.style, { preset: style }) : style) : null;
  if (burn !== burnedIn(opts)) out.burn_in = burn;
  return out;
}
/** The style preset the options name (their own, or their preset's). @param {Json} opts @returns {string} */
function styleName(opts) {
  const st = opts.style || (opts.preset_values && opts.preset_values.style) || "";
  return (typeof st === "object" ? st.preset : st) || "";
}
/** @param {Json} opts  the parent's options */
export function fixOptionsShow(opts) {
  const name = styleName(opts);
  field("fix-style").value = state.styles.some((s) => s.name === name) ? name : "";
  field("fix-burn").checked = burnedIn(opts);
  $("fix-style-still").hidden = true;
  if (state.source) still("fix-style");
}
