// narrate studio, two tabs of one studio stay in step without a reload: the `storage` event
// (fired in the other tabs of this origin when one writes localStorage) brings the compose
// draft, the job list's changes, the chosen video, the language and the key across.
import { KEY } from "./api.js";
import { showVideo } from "./compose.js";
import { $, field } from "./dom.js";
import { applyDraft, DRAFT, idb, readDraft } from "./draft.js";
import { LANG_KEY } from "./i18n.js";
import { JOBS_BUMP, loadJobs } from "./jobs.js";
import { signedIn, signOutHere } from "./session.js";
import { state } from "./store.js";
import { still } from "./styles.js";
import { scriptVoices } from "./voices.js";

// The draft another tab saved, but for the field this tab's editor is typing in.
function takeDraft() {
  const active = /** @type {HTMLInputElement | null} */ (document.activeElement);
  const busy = document.hasFocus() && active && "value" in active && $("job-form").contains(active) ? active : null;
  const kept = busy ? busy.value : null;
  const d = readDraft();
  applyDraft(d);
  if (busy && kept !== null) busy.value = kept;
  scriptVoices(d.voice || field("voice").value);
  if (field("style").value !== (d.style || "")) still("style");
}
function takeDraftVideo() {
  idb("get", "video").then((file) => {
    const f = field("video").files?.[0];
    if (file && f && f.name === file.name && f.size === file.size) return;
    if (file) { const dt = new DataTransfer(); dt.items.add(file); field("video").files = dt.files; }
    else field("video").value = "";
    showVideo();
  }).catch(() => {});
}
window.addEventListener("storage", (e) => {
  if (e.storageArea !== localStorage) return;
  if (e.key === JOBS_BUMP) loadJobs();
  else if (e.key === DRAFT && e.newValue !== null) takeDraft();
  else if (e.key === DRAFT + ".video") takeDraftVideo();
  else if (e.key === LANG_KEY && e.newValue && e.newValue !== state.lang) {
    field("lang").value = e.newValue; $("lang").dispatchEvent(new Event("change"));
  } else if (e.key === KEY) { if (e.newValue) signedIn(); else signOutHere(); }
});
