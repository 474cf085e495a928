// narrate studio, two tabs of one studio stay in step without a reload: the `storage` event
// (fired in the other tabs of this origin when one writes localStorage) brings the compose
// draft, the job list's changes, the chosen video, the language and the key across.
"use strict";
const JOBS_BUMP = "narrate.jobs";
// This tab submitted, re-rendered or canceled something: its list, and the others', are read again.
function jobsChanged() {
  loadJobs();
  try { localStorage.setItem(JOBS_BUMP, `${Date.now()}:${Math.random()}`); } catch (_) { /* full */ }
}
// The draft another tab saved, but for the field this tab's editor is typing in.
function takeDraft() {
  const busy = document.hasFocus() && document.activeElement && "value" in document.activeElement
    && $("job-form").contains(document.activeElement) ? document.activeElement : null;
  const kept = busy ? busy.value : null;
  const d = readDraft();
  applyDraft(d);
  if (busy) busy.value = kept;
  scriptVoices(d.voice || $("voice").value);
  if ($("style").value !== (d.style || "") && typeof still === "function") still("style");
}
function takeDraftVideo() {
  idb("get", "video").then((file) => {
    const f = $("video").files[0];
    if (file && f && f.name === file.name && f.size === file.size) return;
    if (file) { const dt = new DataTransfer(); dt.items.add(file); $("video").files = dt.files; }
    else $("video").value = "";
    showVideo();
  }).catch(() => {});
}
window.addEventListener("storage", (e) => {
  if (e.storageArea !== localStorage) return;
  if (e.key === JOBS_BUMP) loadJobs();
  else if (e.key === DRAFT && e.newValue !== null) takeDraft();
  else if (e.key === DRAFT + ".video") takeDraftVideo();
  else if (e.key === LANG_KEY && e.newValue && e.newValue !== LANG) {
    $("lang").value = e.newValue; $("lang").dispatchEvent(new Event("change"));
  } else if (e.key === KEY) { if (e.newValue) signedIn(); else signOutHere(); }
});
