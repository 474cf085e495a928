// narrate studio, the speech check in the job view: the segments table marks the segments the
// recogniser heard otherwise (the manifest's speech_check), each flagged segment shows its
// script with what was heard under it, the differences marked on both lines, and one click
// re-renders the job with on_mismatch retry: the flagged segments are synthesised again (the
// next voice of their chain, or the same one slower) and the better reading kept; the others
// come from the TTS cache.
"use strict";
Object.assign(WORDS.en, {
  heardH: "Speech check", heardRetry: "Re-render the flagged segments",
  heardSummary: "{0} segments checked, {1} flagged, {2} not checkable.", heardNone: "Every checked segment was heard as written.",
  heardSeg: "Segment {0} · {1} {2}", heardScript: "Script", heardHeard: "Heard", heardNothing: "(nothing)",
  heardFlag: "heard otherwise", heardTake: "A recorded take: record it again (a re-render cannot change it).",
  heardRetrying: "Re-rendering the flagged segments…", heardMissing: "missing", heardExtra: "extra", heardChanged: "changed",
  "measure.cer": "character error rate", "measure.wer": "word error rate",
  colFlagged: "Speech check", batchFlagged: "{0} flagged ({1})",
});
Object.assign(WORDS["zh-CN"], {
  heardH: "语音校对", heardRetry: "重新生成被标记的段落",
  heardSummary: "已校对 {0} 段，标记 {1} 段，{2} 段无法校对。", heardNone: "所有已校对的段落都与文稿一致。",
  heardSeg: "第 {0} 段 · {1} {2}", heardScript: "文稿", heardHeard: "听到", heardNothing: "（什么也没听到）",
  heardFlag: "听到的不一致", heardTake: "这是录音：请重新录制（重新生成无法改变它）。",
  heardRetrying: "正在重新生成被标记的段落…", heardMissing: "漏读", heardExtra: "多读", heardChanged: "读错",
  "measure.cer": "字错误率", "measure.wer": "词错误率",
  colFlagged: "语音校对", batchFlagged: "标记 {0} 段（{1}）",
});
applyWords();

// `text` with each of `parts` (in order, each found after the last) marked as a difference.
function marked(text, parts) {
  const out = [];
  let at = 0;
  for (const [piece, kind] of parts) {
    const k = piece ? text.indexOf(piece, at) : -1;
    if (k < 0) continue;
    if (k > at) out.push(text.slice(at, k));
    out.push(el("mark", { class: "diff " + kind, "data-kind": kind, title: t("heard" + kind[0].toUpperCase() + kind.slice(1)), text: piece }));
    at = k + piece.length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}
function heardItem(seg, index, lang) {
  const c = seg.speech_check, rate = new Intl.NumberFormat(LANG, { style: "percent" }).format(c.error_rate || 0);
  const said = marked(seg.text, c.diff.filter((d) => d.kind !== "extra").map((d) => [d.said, d.kind]));
  const heard = marked(c.heard || c.transcript || "", c.diff.filter((d) => d.kind !== "missing").map((d) => [d.heard, d.kind]));
  const tongue = lang === "en" ? "en" : "zh-CN";
  return el("li", { class: "heard-seg", "data-segment": index },
    el("div", { class: "heard-head", text: t("heardSeg", index, t("measure." + c.measure), rate) }),
    el("div", { class: "said" }, el("span", { class: "muted", text: t("heardScript") }), el("span", { lang: tongue }, ...said)),
    el("div", { class: "heard" }, el("span", { class: "muted", text: t("heardHeard") }),
      c.transcript ? el("span", { lang: tongue }, ...heard) : el("span", { class: "muted", text: t("heardNothing") })),
    seg.take ? el("p", { class: "muted", text: t("heardTake") }) : null);
}
// Called by showJob: the table's rows and the list, from the manifest once it is loaded.
function markHeard() {
  const m = S.manifest, box = $("heard");
  const segs = m ? m.segments : [];
  const checks = segs.map((s) => s.speech_check).filter(Boolean);
  box.hidden = !checks.length;
  if (!checks.length) return;
  const flagged = segs.map((s, i) => [s, i + 1]).filter(([s]) => s.speech_check && s.speech_check.flagged);
  for (const row of $("seg-table").tBodies[0].rows) {
    const seg = segs[Number(row.dataset.index) - 1], bad = !!(seg && seg.speech_check && seg.speech_check.flagged);
    row.classList.toggle("flagged", bad);
    if (bad) row.cells[1].append(el("span", { class: "flag", "data-flag": "speech", text: " · " + t("heardFlag") }));
  }
  const done = checks.filter((c) => c.status === "checked").length;
  $("heard-summary").textContent = flagged.length
    ? t("heardSummary", done, flagged.length, checks.length - done) : t("heardNone");
  $("heard-list").replaceChildren(...flagged.map(([s, n]) => heardItem(s, n, m.language)));
  $("heard-retry").hidden = !flagged.some(([s]) => !s.take);
}
$("heard-retry").addEventListener("click", async () => {
  const btn = $("heard-retry");
  $("heard-msg").textContent = ""; btn.disabled = true; $("fix-msg").textContent = t("heardRetrying");
  try {
    const options = Object.assign({}, S.source.options || {}, { on_mismatch: "retry" });
    delete options.preset_values;
    const body = { spec: S.source.spec, options };
    const r = await api(`/v1/jobs/${S.job.id}/rerender`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    $("fix-msg").textContent = "";
    go(r.id); jobsChanged();
  } catch (e) { showProblems($("heard-msg"), t("notRerendered", ""), e); $("fix-msg").textContent = ""; }
  finally { btn.disabled = false; }
});
