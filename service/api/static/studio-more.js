// narrate studio, the rest of the API on the page: the style picker with its libass still,
// download-all, batches (submit several scripts, follow them), the fix panel's segment
// structure (add/split/merge) and its diff against the parent, and SSE with a key.
"use strict";
Object.assign(WORDS.en, {
  style: "Subtitle style", styleStill: "Still of the style {0}, drawn as the burn-in draws it", styleDefault: "default",
  downloadAll: "Download all (zip)", master: "Master {0}", batchH: "Batch", batchFiles: "Several scripts at once (a batch)",
  batchSubmit: "Submit as a batch", batchNone: "Choose one or more script files first.", batchMeta: "{0} · {1} items · created {2}",
  batchItems: "Items", batchZip: "Download the batch (zip)", colName: "Name", colStage: "Stage", colJob: "Job", batchCancel: "Cancel the batch",
  batchRefused: "Refused: {0}", notSubmittedBatch: "The batch was not submitted:", split: "Split", merge: "Merge with next",
  remove: "Remove", addSeg: "Add a segment", diffH: "Changes against this job", diffNone: "No changes yet.",
  "diff.added": "added", "diff.removed": "removed", "diff.changed": "changed", diffSecs: "{0} s → {1} s", newText: "(new text)",
  fixBurn: "Burn subtitles into the picture", inBatch: " · in batch ",
});
Object.assign(WORDS["zh-CN"], {
  style: "字幕样式", styleStill: "样式 {0} 的静帧（与烧录时相同的绘制）", styleDefault: "默认",
  downloadAll: "全部下载（zip）", master: "母版 {0}", batchH: "批量任务", batchFiles: "一次提交多个脚本（批量）",
  batchSubmit: "作为批量提交", batchNone: "请先选择一个或多个脚本文件。", batchMeta: "{0} · {1} 项 · 创建于 {2}",
  batchItems: "各项", batchZip: "下载整批（zip）", colName: "名称", colStage: "阶段", colJob: "任务", batchCancel: "取消整批",
  batchRefused: "被拒绝：{0}", notSubmittedBatch: "批量未提交：", split: "拆分", merge: "与下一段合并",
  remove: "删除", addSeg: "添加一段", diffH: "与此任务相比的改动", diffNone: "尚无改动。",
  "diff.added": "新增", "diff.removed": "删除", "diff.changed": "修改", diffSecs: "{0} 秒 → {1} 秒", newText: "（新文字）",
  fixBurn: "把字幕烧录进画面", inBatch: " · 属于批量 ",
});
applyWords();

// --- SSE that can carry the key: EventSource cannot send Authorization, so with a key the
// stream is read with fetch() and parsed here (the same events, ids and retry).
function openStream(url, on, onerror) {
  if (!key() && window.EventSource) {
    const es = new EventSource(url);
    for (const [name, fn] of Object.entries(on)) es.addEventListener(name, (e) => fn(JSON.parse(e.data), e.lastEventId));
    es.onerror = () => { es.close(); onerror(); };
    return { close: () => es.close(), kind: "eventsource", get readyState() { return es.readyState; } };
  }
  const ctl = new AbortController();
  let closed = false, state = 0;  // EventSource's readyState: 0 connecting, 1 open, 2 closed
  (async () => {
    const r = await fetch(url, { headers: headers({ Accept: "text/event-stream" }), signal: ctl.signal });
    if (!r.ok || !r.body) throw new Error("HTTP " + r.status);
    state = 1;
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value.replace(/\r/g, "");
      let at;
      while ((at = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, at); buf = buf.slice(at + 2);
        let name = "message", data = "", id = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) name = line.slice(6).trim();
          else if (line.startsWith("data:")) data += (data ? "\n" : "") + line.slice(5).trim();
          else if (line.startsWith("id:")) id = line.slice(3).trim();
        }
        if (data && on[name]) on[name](JSON.parse(data), id);
      }
    }
  })().then(() => { state = 2; if (!closed) onerror(true); }, () => { state = 2; if (!closed) onerror(); });
  return { close: () => { closed = true; state = 2; ctl.abort(); }, kind: "fetch", get readyState() { return state; } };
}

// --- the style picker: GET /v1/styles, and the still of the chosen one (the open job's
// video frame in the fix panel, a neutral frame when composing) -----------------------------
S.styles = [];
async function loadStyles() {
  try { S.styles = (await api("/v1/styles")).styles; } catch (_) { S.styles = []; }
  for (const [id, keep] of [["style", $("style").value || readDraft().style || ""], ["fix-style", $("fix-style").value]]) {
    $(id).replaceChildren(el("option", { value: "", text: t("styleDefault") }),
      ...S.styles.filter((s) => s.name !== "default").map((s) => el("option", { value: s.name, title: s.description || null, text: s.name })));
    $(id).value = S.styles.some((s) => s.name === keep) ? keep : "";
  }
  still("style");
}
let stillSeq = 0;
async function still(id) {
  const name = $(id).value || "default", img = $(id + "-still"), seq = ++stillSeq;
  const q = new URLSearchParams({ width: "270" });
  if (id === "style" && S.videoLandscape) q.set("frame", "landscape");  // as the chosen video
  if (id === "fix-style" && S.job && S.source && S.source.has_video) {
    q.set("job", S.job.id);
    const v = $("player"); q.set("at", String(Math.round((v.currentTime || 1) * 10) / 10));
  }
  try {
    const u = await artifactURL(`/v1/styles/${encodeURIComponent(name)}/preview.png?${q}`);
    if (seq !== stillSeq && id === "style") return;
    img.src = u; img.alt = t("styleStill", name); img.dataset.style = name; img.hidden = false;
  } catch (_) { img.hidden = true; }
}
$("style").addEventListener("change", () => still("style"));
// The compose still's frame follows the chosen video's shape (a neutral frame of that shape).
$("video").addEventListener("change", () => {
  const f = $("video").files[0];
  if (!f) { S.videoLandscape = false; still("style"); return; }
  const v = document.createElement("video"), url = URL.createObjectURL(f);
  v.preload = "metadata";
  v.onloadedmetadata = () => { S.videoLandscape = v.videoWidth > v.videoHeight; URL.revokeObjectURL(url); still("style"); };
  v.onerror = () => URL.revokeObjectURL(url);
  v.src = url;
});
$("fix-style").addEventListener("change", () => { still("fix-style"); fixDiff(); });
$("fix-burn").addEventListener("change", fixDiff);

// What the fix panel changes of the parent's options (style, burn-in); {} when nothing.
function fixOptionChanges(opts) {
  const out = {}, style = $("fix-style").value, burn = $("fix-burn").checked;
  const was = styleName(opts);
  // The parent's own style overrides are kept; only the preset changes.
  if (style !== was) out.style = style ? (opts.style && typeof opts.style === "object" ? Object.assign({}, opts.style, { preset: style }) : style) : null;
  if (burn !== burnedIn(opts)) out.burn_in = burn;
  return out;
}
function styleName(opts) {
  const st = opts.style || (opts.preset_values && opts.preset_values.style) || "";
  return (typeof st === "object" ? st.preset : st) || "";
}
function fixOptionsShow(opts) {
  const name = styleName(opts);
  $("fix-style").value = S.styles.some((s) => s.name === name) ? name : "";
  $("fix-burn").checked = burnedIn(opts);
  $("fix-style-still").hidden = true;
  if (S.source) still("fix-style");
}

// --- downloads: every artifact, grouped by master, and the whole job as one zip -------------
function saveAs(path, name) {
  return async () => {
    try {
      const a = el("a", { href: await artifactURL(path), download: name }); document.body.append(a); a.click(); a.remove();
    } catch (e) { $("job-error").textContent = e.message; }
  };
}
function downloadsGrouped(job) {
  const base = "/v1/jobs/" + job.id + "/artifacts/";
  const packaged = job.artifacts.includes("timeline-package.zip");
  const listed = job.artifacts.filter((n) => !(packaged && n.startsWith("segments/")));
  const item = (n, label) => el("li", {}, el("button", { type: "button", "data-name": n, onclick: saveAs(base + n, n.replace(/\//g, "-")), text: t("download", label || n) }));
  const masters = new Map();
  for (const n of listed) {
    const m = n.match(/^masters\/([^/]+)\/(.+)$/);
    if (m) { if (!masters.has(m[1])) masters.set(m[1], []); masters.get(m[1]).push([n, m[2]]); }
  }
  $("download-all").onclick = saveAs(`/v1/jobs/${job.id}/artifacts.zip`, `${job.id}.zip`);
  $("downloads").replaceChildren(...listed.filter((n) => !n.startsWith("masters/")).map((n) => item(n)));
  $("masters").replaceChildren(...[...masters.entries()].map(([name, files]) => el("div", { class: "master", "data-master": name },
    el("h4", { text: t("master", name) }), el("ul", { class: "downloads" }, ...files.map(([n, f]) => item(n, f))))));
}

// --- batches: several scripts in one request; #/batches/<id> follows its events ------------
$("batch-submit").addEventListener("click", async () => {
  const files = [...$("batch-files").files];
  $("batch-error").textContent = "";
  if (!files.length) { $("batch-error").textContent = t("batchNone"); return; }
  const fd = new FormData();
  for (const f of files) fd.append("script", f, f.name);
  const o = options(); delete o.music_level; delete o.music_duck;
  fd.append("options", JSON.stringify(o));
  $("batch-submit").disabled = true;
  try {
    const b = await api("/v1/batches", { method: "POST", body: fd });
    location.hash = "#/batches/" + b.id; jobsChanged();
  } catch (e) { showProblems($("batch-error"), t("notSubmittedBatch"), e); }
  finally { $("batch-submit").disabled = false; }
});
function closeBatch() {
  if (S.batchStream) S.batchStream.close();
  if (S.batchTimer) clearTimeout(S.batchTimer);
  S.batchStream = null; S.batchTimer = null; S.batchId = null; $("batch").hidden = true;
}
async function openBatch(id) {
  stopPolling(); closeBatch(); S.jobId = null; S.batchId = id;
  $("compose").hidden = true; $("job").hidden = true; $("batch").hidden = false;
  $("batch-error-view").textContent = ""; delete $("batch").dataset.stream; S.batchNoStream = false;
  await readBatch(id);
  $("batch-h").focus();
}
async function readBatch(id) {
  let b;
  try { b = await api("/v1/batches/" + id); } catch (e) {
    if (id !== S.batchId) return;
    $("batch-error-view").textContent = e.status === 404 ? t("noSuchJob") : e.message;
    if (e.status !== 404 && e.status !== 401) S.batchTimer = setTimeout(() => readBatch(id), 2000);
    return;
  }
  if (id !== S.batchId) return;
  showBatch(b);
  for (const it of b.items) listed({ id: it.job, status: it.status });  // the job list agrees
  if (TERMINAL.includes(b.status)) { loadJobs(); if (S.batchStream) S.batchStream.close(); S.batchStream = null; return; }
  if (S.batchStream) return;
  if (S.batchNoStream) { S.batchTimer = setTimeout(() => readBatch(id), 800); return; }
  let pending = false;
  const changed = () => {
    if (pending || id !== S.batchId) return;
    pending = true; setTimeout(() => { pending = false; if (id === S.batchId) readBatch(id); }, 100);
  };
  S.batchStream = openStream(`/v1/batches/${id}/events`, { item: changed, completed: changed }, () => {
    S.batchStream = null;
    if (id !== S.batchId) return;
    S.batchNoStream = true; readBatch(id);
  });
  $("batch").dataset.stream = S.batchStream.kind;
}
function showBatch(b) {
  $("batch").dataset.id = b.id; $("batch").dataset.status = b.status;
  $("batch-meta").textContent = t("batchMeta", b.id, b.items.length, when(b.created));
  $("batch-progress").value = b.progress;
  $("batch-status").replaceChildren(el("span", { class: "state " + b.status, "data-state": b.status, text: t("state." + b.status) }),
    ` · ${new Intl.NumberFormat(LANG, { style: "percent" }).format(b.progress)}`);
  $("batch-cancel").hidden = TERMINAL.includes(b.status);
  keyed($("batch-items").tBodies[0], b.items.map((it) => el("tr", { "data-key": it.job, "data-job": it.job, "data-state": it.status },
    el("td", { text: it.name, lang: textLang(it.name) }),
    el("td", { class: "state " + it.status, "data-state": it.status, text: t("state." + it.status) }),
    el("td", { text: it.stage && !TERMINAL.includes(it.status) ? stageName(it.stage) : (it.error ? plainWords(it.error.message) : "") }),
    el("td", {}, el("a", { href: "#/jobs/" + it.job, text: it.job.slice(0, 8) })),
    // the segments the speech check flagged (studio-heard.js shows them in the job view)
    el("td", { class: (it.flagged || []).length ? "flag" : "", "data-flagged": (it.flagged || []).length,
      text: (it.flagged || []).length ? t("batchFlagged", it.flagged.length, it.flagged.join(", ")) : "" }))));
  $("batch-refused").replaceChildren(...(b.refused || []).map((r) => el("li", { text: t("batchRefused", r.name || "") })));
  $("batch-zip").onclick = saveAs(`/v1/batches/${b.id}/artifacts.zip`, `${b.id}.zip`);
  $("batch-zip").hidden = !b.items.some((it) => it.artifacts.length);
}
$("batch-cancel").addEventListener("click", async () => {
  try { await api("/v1/batches/" + S.batchId, { method: "DELETE" }); } catch (e) { $("batch-error-view").textContent = e.message; }
  readBatch(S.batchId); jobsChanged();
});

// --- the fix panel's structure: add, split, merge, remove; and the diff before re-rendering
function fixSegments() {
  return [...document.querySelectorAll("#fix-list .fixseg")].map((box, i) => {
    const base = JSON.parse(box.dataset.seg || "{}");
    const out = Object.assign({}, base, { text: $(`fix-text-${i}`).value, seconds: parseFloat($(`fix-secs-${i}`).value) });
    const v = $(`fix-voice-${i}`).value;
    if (v) out.voice = v; else delete out.voice;
    for (const [k, unit] of [["rate", "%"], ["pitch", "Hz"]]) {
      const x = $(`fix-${k}-${i}`).value.trim();
      if (x === "" || !isFinite(Number(x))) delete out[k]; else out[k] = (Number(x) >= 0 ? "+" : "") + Math.round(Number(x)) + unit;
    }
    return out;
  });
}
// The panel drawn again from what it holds now (a restructure, a language switch): the
// segments `segs`, and the qualifiers, shots, pronunciations and options as typed; the
// segments `changed(i)` names stay marked.
function fixRedraw(segs, changed) {
  const spec = Object.assign({}, S.source.spec, fixExtras(S.source.spec), { segments: segs });
  const keep = ["fix-pron", "fix-overflow", "fix-engine", "fix-style"].map((id) => [id, $(id).value]), burn = $("fix-burn").checked;
  fixForm(spec);
  for (const [id, v] of keep) $(id).value = v;
  $("fix-burn").checked = burn; still("fix-style");
  document.querySelectorAll("#fix-list .fixseg").forEach((box, i) => { if (changed(i)) box.classList.add("changed"); });
  fixDiff();
}
function restructure(change) {
  const segs = fixSegments();
  change(segs);
  fixRedraw(segs, () => true);
}
// A language switch: the panel's words change, not what the editor typed in it.
function fixRelabel() {
  if (!S.source || $("fix-list").dataset.job !== S.jobId) return;  // not drawn for this job yet
  const was = [...document.querySelectorAll("#fix-list .fixseg")].map((box) => box.classList.contains("changed"));
  fixRedraw(fixSegments(), (i) => was[i]);
}
function splitAt(text) {
  const mid = Math.floor(text.length / 2), marks = [...text.matchAll(/[。！？；，,.!?;]\s*/g)].map((m) => m.index + m[0].length);
  const near = marks.filter((k) => k > 0 && k < text.length).sort((a, b) => Math.abs(a - mid) - Math.abs(b - mid))[0];
  return near || mid;
}
function fixTools(box, i, n) {
  const r = (x) => Math.round(x * 10) / 10;
  const split = () => restructure((segs) => {
    const s = segs[i], at = splitAt(s.text), half = r(s.seconds / 2);
    segs.splice(i, 1, Object.assign({}, s, { text: s.text.slice(0, at).trim(), seconds: half }),
      Object.assign({}, s, { text: s.text.slice(at).trim() || t("newText"), seconds: r(s.seconds - half), label: undefined, start: undefined }));
  });
  const merge = () => restructure((segs) => {
    const a = segs[i], b = segs[i + 1], glue = /[\u3400-\u9fff]$/.test(a.text) || /[。！？]$/.test(a.text) ? "" : " ";
    segs.splice(i, 2, Object.assign({}, a, { text: a.text + glue + b.text, seconds: r(a.seconds + b.seconds) }));
  });
  const remove = () => restructure((segs) => segs.splice(i, 1));
  box.append(el("div", { class: "row tools" },
    el("button", { type: "button", class: "split", "data-index": i, onclick: split, text: t("split") }),
    i + 1 < n ? el("button", { type: "button", class: "merge", "data-index": i, onclick: merge, text: t("merge") }) : null,
    n > 1 ? el("button", { type: "button", class: "remove", "data-index": i, onclick: remove, text: t("remove") }) : null));
}
$("fix-add").addEventListener("click", () => restructure((segs) => segs.push({ text: t("newText"), seconds: 3 })));
// Segments matched by text (the longest common run), the unmatched between paired in order.
function alignSegments(a, b) {
  const n = a.length, m = b.length, L = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i][j] = a[i].text === b[j].text ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const pairs = [];
  let i = 0, j = 0, oa = [], ob = [];
  const flush = () => {
    for (let k = 0; k < Math.max(oa.length, ob.length); k++) pairs.push([oa[k] === undefined ? null : oa[k], ob[k] === undefined ? null : ob[k]]);
    oa = []; ob = [];
  };
  while (i < n || j < m) {
    if (i < n && j < m && a[i].text === b[j].text) { flush(); pairs.push([i++, j++]); }
    else if (j >= m || (i < n && L[i + 1][j] >= L[i][j + 1])) oa.push(i++);
    else ob.push(j++);
  }
  flush();
  return pairs;
}
function fixDiff() {
  if (!S.source || !$("fix-list").children.length) return;
  const old = S.source.spec.segments, now = fixSegments(), rows = [];
  for (const [i, j] of alignSegments(old, now)) {
    const a = i === null ? null : old[i], b = j === null ? null : now[j];
    const tone = a && b ? voiceChanges(a, b) : [];
    if (a && b && a.text === b.text && Number(a.seconds) === b.seconds && (a.voice || "") === (b.voice || "") && !tone.length) continue;
    const kind = !a ? "added" : !b ? "removed" : "changed", lang = textLang((a || b).text);
    const text = a && b && a.text !== b.text ? [el("del", { lang, text: a.text }), " → ", el("ins", { lang, text: b.text })]
      : [el("span", { lang, text: (b || a).text })];
    if (tone.length) text.push(el("span", { class: "muted", text: " · " + tone.join(" · ") }));
    const secs = a && b ? (Number(a.seconds) !== b.seconds ? t("diffSecs", fmt(a.seconds), fmt(b.seconds)) : fmt(b.seconds) + " s")
      : fmt((b || a).seconds) + " s";
    rows.push(el("tr", { "data-kind": kind },
      el("td", { text: `${i === null ? "–" : i + 1} → ${j === null ? "–" : j + 1}` }), el("td", { text: t("diff." + kind) }),
      el("td", {}, ...text), el("td", { text: secs })));
  }
  const opts = fixOptionChanges(S.source.options || {});
  const optText = Object.entries(opts).map(([k, v]) => `${k === "style" ? t("style") : t("fixBurn")}: ${v === null ? t("styleDefault") : k === "style" ? $("fix-style").value : v}`)
    .concat(extrasDiff(S.source.spec));
  $("fix-diff").replaceChildren(...[el("h4", { text: t("diffH") }),
    rows.length ? el("div", { class: "scroll" }, el("table", { id: "diff-table" },
      el("thead", {}, el("tr", {}, ...["#", t("colState"), t("colText"), t("colSeconds")].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, ...rows))) : null,
    ...optText.map((x) => el("p", { text: x })),
    !rows.length && !optText.length ? el("p", { class: "muted", text: t("diffNone") }) : null].filter(Boolean));
}
$("fix-list").addEventListener("input", fixDiff);
$("fix-list").addEventListener("change", fixDiff);

S.morePending = Promise.resolve().then(loadStyles);
