// narrate studio: the page's words in zh-CN and English, the example scripts, and the lookup
// that fills a sentence's {0} {1}. Data and pure functions only (no DOM): node's tests
// import it, and tests/js/words.test.js checks that both languages have every key.

/** @typedef {Record<string, string>} Words */
/** The page's own words: the compose form, the job view, the fix panel. */
const CORE = {
  en: {
    skip: "Skip to content", apiKey: "API key", keyPlaceholder: "not needed on this machine", signIn: "Sign in",
    signOut: "Sign out", language: "Language", recentJobs: "Recent jobs", newJob: "New job",
    refreshJobs: "Refresh the job list", newJobH: "New job",
    scriptLabel: "Script (Markdown studio format or JSON) — paste, or drop a file here",
    openScript: "Open a script file", example: "Load the example script", guide: "Format guide",
    guideBody: "One segment per block: [段 N · SECONDS 秒 LABEL] then the text it says, e.g. [段 1 · 8 秒 开场] 你好。 (English: [Segment 1 · 8 s Intro] Hello.) Optional lines: 标题:TITLE, 说话人: A=voice; B=voice, 字幕层叠加限定语: one; two (the qualifiers, shown on the top layer), and a shot list (镜头 N · NAME · 0-6s - 屏幕文字:TEXT). Header parts: 说话人: A, 语速: +10%, 音调: -2Hz. JSON: {\"segments\": [{\"text\": …, \"seconds\": …}]}.",
    videoLabel: "Video (optional) — choose, or drop a file here", renderOptions: "Render options",
    engine: "Engine", asScript: "as the script says", engineAuto: "auto (edge, then kokoro, then espeak)",
    engineEdge: "edge", engineKokoro: "kokoro (offline)", engineEspeak: "espeak (offline)", voice: "Voice", voiceDefault: "default",
    overflow: "If a segment is too long", overflowFail: "fail", overflowSqueeze: "squeeze (speak faster)",
    overflowExtend: "extend (longer slot)", original: "Original audio", originalDrop: "drop",
    originalMix: "mix under the narration",
    traditional: "Traditional Chinese track", traditionalAuto: "auto (voice's locale)",
    traditionalTw: "Taiwan", traditionalHk: "Hong Kong", traditionalNone: "none", burn: "Burn subtitles into the picture",
    extendVideo: "Freeze the last frame if the narration is longer",
    exports: "Editor timelines: OTIO, FCPXML, FCP7 XML, EDL (with their media in timeline-package.zip)",
    check: "Check script", submit: "Submit job", uploadProgress: "Upload progress", job: "Job", cancel: "Cancel",
    jobProgress: "Job progress", segments: "Segments", colState: "State", colEngine: "Engine", colVoice: "Voice",
    colWorker: "Worker", colCalls: "TTS calls", ttsCached: "0 (cached)", ttsRefit: "{0} (one at the fitting rate)", preview: "Preview", timeline: "Timeline: segments and cues",
    downloads: "Downloads", burnedNote: "The subtitles are burned into this picture: the preview shows them as the export does.",
    fixH: "Fix and re-render",
    fixHelp: "Edit a segment's text, seconds, voice, rate or pitch, the qualifiers and the shots, then re-render: unchanged segments come from the TTS cache.",
    pronLabel: "Pronunciations for the whole script, one per line: word = pinyin (háng, dang4) or a respelling (G R P O)",
    rerender: "Re-render",
    noJobs: "No jobs yet.", untitled: "(untitled)", fixTag: " · fix", whoKey: "key saved in this browser",
    whoNone: "no key (works on this machine only)", keyRefused: "the saved key was refused and removed: this server needs none",
    signInPrompt: "Sign in: {0}", noSuchJob: "No such job here (deleted, or another key's).",
    scriptProblem: "The script has a problem:", notSubmitted: "Not submitted: {0}", uploading: "uploading {0}%",
    uploaded: "uploaded; checking…", uploadFailed: "The upload failed (network).",
    jobMeta: "id {0} · created {1}", fixOf: " · fix of ", jobEnded: "The job {0}: {1}",
    parsedHead: "Parsed: {0} · {1} · {2} segments · {3} s", parsedCaption: "Segments (pace in syllables per second / limit)",
    colLabel: "Label", colSeconds: "Seconds", colPace: "Pace", colText: "Text", tooFast: " too fast",
    qualifiers: "Qualifiers (top layer): ", shots: "Shots ({0})", segAria: "Segment {0}, {1} to {2} s: play its audio",
    cueAria: "Cue {0} s: {1}. Seek here", laneSegments: "segments", laneOverlay: "overlay (top)", laneSubs: "subtitles", laneWave: "narration", searchJobs: "Search jobs", filterState: "State", filterAll: "all", filterActive: "running or queued", noMatch: "No job matches.", preset: "Preset", presetNone: "none", music: "Music bed (optional)", musicLevel: "level (dB)", musicDuck: "duck under speech (dB)", videoShort: "The narration runs {0} s but the video lasts {1} s: tick “Freeze the last frame”, shorten the script, or choose a longer video.", engineRead: "The engine read: ", correct: "Correct the selected word", saveLex: "Also save them to a dictionary", lexPick: "Dictionary", lexNew: "a new dictionary", lexName: "the new dictionary's name",
    selectWord: "Select a word in the segment's text first.", dragPace: "{0} s · {1} syllables/s",
    segmentAudio: "Segment audio: {0}", download: "Download {0}", fixText: "Segment {0}{1} — text", seconds: "Seconds ",
    voiceLabel: "Voice ", jobsVoice: "job's voice", pronBad: "Pronunciation line \"{0}\": write word = reading",
    submitting: "submitting…", notRerendered: "Not re-rendered: {0}", line: "line {0}",
    "state.queued": "queued", "state.running": "running", "state.succeeded": "succeeded", "state.failed": "failed",
    "state.canceled": "canceled", "state.done": "done", "state.not run": "not run",
    "stage.encode": "encoding the picture {0}%", "stage.segment": "segment {0} of {1}", "stage.synthesize": "speaking the segments",
    "stage.finalize": "finishing", "stage.subtitles": "writing subtitles", "stage.loudness": "mixing and loudness",
    "stage.mux": "writing the video", "stage.done": "done",
    "field.segment": "Segment {0}", "field.text": "text", "field.seconds": "seconds", "field.voice": "voice",
    "field.speaker": "speaker", "field.rate": "rate", "field.pitch": "pitch", "field.start": "start",
    "field.max_pace": "pace limit", "field.on_overflow": "“If a segment is too long”", "field.engine": "engine",
    "field.title": "title", "field.language": "language", "field.video": "video", "field.music": "music",
    "field.script": "script", "field.qualifiers": "qualifiers", "field.pronunciations": "pronunciations",
    "code.pace.overflow": "{0}: {1} syllables in {2} s is {3} a second, over the limit of {4}: shorten the text, give it more seconds, or choose “squeeze” or “extend”.",
    "code.voice.unknown": "{0}: no such voice {1}.", "code.media.invalid": "{0}: {1}",
    "gender.female": "female", "gender.male": "male", "gender.": "", audition: "▶ Audition",
    auditionLoading: "fetching the sample…", auditionPlaying: "playing {0}", auditionFailed: "Audition: {0}",
    rateLabel: "Rate % ", pitchLabel: "Pitch Hz ",
    listen: "▶ Listen", listenAria: "Listen to segment {0} as typed", listenFirst: " (its first {0} characters)",
    fixQualifiers: "Qualifiers (the caveat lines on the top layer), one per line",
    fixShots: "Shots: times and on-screen text", shotName: "Shot {0}{1}", shotStart: "from (s) ", shotEnd: "to (s) ",
    shotText: "on-screen text ", addShot: "Add a shot", removeShot: "Remove shot {0}", diffRate: "rate {0} → {1}",
    diffPitch: "pitch {0} → {1}", diffNoValue: "none", diffQualifiers: "Qualifiers: {0} → {1}", diffShots: "Shots: {0}",
    diffShotsMore: "{0} changed", translationsDropped: " (their English translations no longer match and are left out)",
  },
  "zh-CN": {
    skip: "跳到正文", apiKey: "API 密钥", keyPlaceholder: "本机无需密钥", signIn: "登录", signOut: "退出",
    language: "语言", recentJobs: "最近的任务", newJob: "新建任务", refreshJobs: "刷新任务列表", newJobH: "新建任务",
    scriptLabel: "脚本（工作室 Markdown 格式或 JSON）——粘贴，或把文件拖到这里",
    openScript: "打开脚本文件", example: "载入示例脚本", guide: "格式说明",
    guideBody: "每段一块：[段 N · 秒数 秒 标签] 后接要读的文字，例如 [段 1 · 8 秒 开场] 你好。可选行：标题:标题文字；说话人: 旁白A=声音; 旁白B=声音；字幕层叠加限定语: 一条; 两条（限定语，显示在顶层）；分镜（镜头 N · 名称 · 0-6s - 屏幕文字:文字）。段头还可写 说话人: 旁白A、语速: +10%、音调: -2Hz。JSON 格式：{\"segments\": [{\"text\": …, \"seconds\": …}]}。",
    videoLabel: "视频（可选）——选择，或把文件拖到这里", renderOptions: "渲染选项", engine: "引擎", asScript: "按脚本",
    engineAuto: "自动（edge，再 kokoro，再 espeak）", engineEdge: "edge", engineKokoro: "kokoro（离线）", engineEspeak: "espeak（离线）", voice: "声音",
    voiceDefault: "默认", overflow: "段落超时时", overflowFail: "报错", overflowSqueeze: "加速（读快些）",
    overflowExtend: "延长（加长时段）", original: "原声", originalDrop: "去掉", originalMix: "混在旁白下",
    traditional: "繁体中文字幕", traditionalAuto: "自动（按声音的地区）", traditionalTw: "台湾", traditionalHk: "香港", traditionalNone: "不要",
    burn: "把字幕烧进画面", extendVideo: "旁白更长时定格最后一帧",
    exports: "剪辑时间线：OTIO、FCPXML、FCP7 XML、EDL（素材打包在 timeline-package.zip）",
    check: "检查脚本", submit: "提交任务", uploadProgress: "上传进度", job: "任务", cancel: "取消",
    jobProgress: "任务进度", segments: "段落", colState: "状态", colEngine: "引擎", colVoice: "声音",
    colWorker: "工作进程", colCalls: "TTS 调用", ttsCached: "0（缓存）", ttsRefit: "{0}（含按适配语速重读 1 次）", preview: "预览", timeline: "时间线：段落与字幕", downloads: "下载",
    burnedNote: "字幕已烧进画面：预览与导出一致。", fixH: "修改并重新渲染",
    fixHelp: "修改某段的文字、秒数、声音、语速或音调，以及限定语和分镜，然后重新渲染：未改动的段落直接取自 TTS 缓存。",
    pronLabel: "全稿读音，每行一条：词 = 拼音（háng、dang4）或拼读（G R P O）", rerender: "重新渲染",
    noJobs: "还没有任务。", untitled: "（无标题）", fixTag: " · 修改版", whoKey: "密钥已保存在本浏览器",
    whoNone: "未用密钥（仅本机可用）", keyRefused: "保存的密钥被拒绝，已删除：此服务器无需密钥",
    signInPrompt: "请登录：{0}", noSuchJob: "没有这个任务（已删除，或属于其他密钥）。",
    scriptProblem: "脚本有问题：", notSubmitted: "未提交：{0}", uploading: "上传中 {0}%", uploaded: "已上传，检查中…",
    uploadFailed: "上传失败（网络）。", jobMeta: "编号 {0} · 创建于 {1}", fixOf: " · 修改自 ", jobEnded: "任务{0}：{1}",
    parsedHead: "解析结果：{0} · {1} · {2} 段 · {3} 秒", parsedCaption: "段落（语速：每秒音节数 / 上限）",
    colLabel: "标签", colSeconds: "秒数", colPace: "语速", colText: "文字", tooFast: " 太快",
    qualifiers: "限定语（顶层）：", shots: "分镜（{0}）", segAria: "第 {0} 段，{1} 到 {2} 秒：播放这段音频",
    cueAria: "字幕 {0} 秒：{1}。跳到这里", laneSegments: "段落", laneOverlay: "限定语（顶层）", laneSubs: "字幕", laneWave: "旁白波形", searchJobs: "搜索任务", filterState: "状态", filterAll: "全部", filterActive: "运行中或排队", noMatch: "没有匹配的任务。", preset: "预设", presetNone: "无", music: "背景音乐（可选）", musicLevel: "音量（dB）", musicDuck: "人声时压低（dB）", videoShort: "旁白长 {0} 秒，视频只有 {1} 秒：请勾选“旁白更长时定格最后一帧”、缩短脚本，或换一个更长的视频。", engineRead: "引擎读作：", correct: "纠正选中的词", saveLex: "同时保存到发音词典", lexPick: "词典", lexNew: "新建词典", lexName: "新词典的名称", selectWord: "请先在段落文字里选中一个词。",
    dragPace: "{0} 秒 · 每秒 {1} 个音节",
    segmentAudio: "段落音频：{0}", download: "下载 {0}", fixText: "第 {0} 段{1}——文字", seconds: "秒数 ",
    voiceLabel: "声音 ", jobsVoice: "任务的声音", pronBad: "读音一行“{0}”：请写成 词 = 读音",
    submitting: "提交中…", notRerendered: "未重新渲染：{0}", line: "第 {0} 行",
    "state.queued": "排队中", "state.running": "运行中", "state.succeeded": "成功", "state.failed": "失败",
    "state.canceled": "已取消", "state.done": "完成", "state.not run": "未运行",
    "stage.encode": "正在编码画面 {0}%", "stage.segment": "第 {0}/{1} 段", "stage.synthesize": "正在朗读各段",
    "stage.finalize": "收尾中", "stage.subtitles": "正在写字幕", "stage.loudness": "正在混音与响度处理",
    "stage.mux": "正在写视频", "stage.done": "完成",
    "field.segment": "第 {0} 段", "field.text": "文字", "field.seconds": "秒数", "field.voice": "声音",
    "field.speaker": "说话人", "field.rate": "语速", "field.pitch": "音调", "field.start": "开始时间",
    "field.max_pace": "语速上限", "field.on_overflow": "“段落超时时”", "field.engine": "引擎", "field.title": "标题",
    "field.language": "语言", "field.video": "视频", "field.music": "音乐", "field.script": "脚本",
    "field.qualifiers": "限定语", "field.pronunciations": "读音",
    "code.pace.overflow": "{0}：{1} 个音节要在 {2} 秒内读完，每秒 {3} 个，超过上限 {4}：请缩短文字、增加秒数，或选“加速”或“延长”。",
    "code.voice.unknown": "{0}：没有 {1} 这个声音。", "code.media.invalid": "{0}：{1}",
    "gender.female": "女声", "gender.male": "男声", "gender.": "", audition: "▶ 试听",
    auditionLoading: "正在获取试听…", auditionPlaying: "正在播放 {0}", auditionFailed: "试听：{0}",
    rateLabel: "语速 % ", pitchLabel: "音调 Hz ",
    listen: "▶ 试听", listenAria: "按当前输入试听第 {0} 段", listenFirst: "（前 {0} 个字）",
    fixQualifiers: "限定语（顶层的提示行），每行一条",
    fixShots: "分镜：时间与屏幕文字", shotName: "镜头 {0}{1}", shotStart: "从（秒）", shotEnd: "到（秒）",
    shotText: "屏幕文字 ", addShot: "添加镜头", removeShot: "删除镜头 {0}", diffRate: "语速 {0} → {1}",
    diffPitch: "音调 {0} → {1}", diffNoValue: "无", diffQualifiers: "限定语：{0} → {1}", diffShots: "分镜：{0}",
    diffShotsMore: "改动 {0} 个", translationsDropped: "（条数变了，英文译文不再对应，已去掉）",
  },
};
/** The style picker, download-all, batches, the fix panel's structure and its diff. */
const MORE = {
  en: {
  style: "Subtitle style", styleStill: "Still of the style {0}, drawn as the burn-in draws it", styleDefault: "default",
  downloadAll: "Download all (zip)", master: "Master {0}", batchH: "Batch", batchFiles: "Several scripts at once (a batch)",
  batchSubmit: "Submit as a batch", batchNone: "Choose one or more script files first.", batchMeta: "{0} · {1} items · created {2}",
  batchItems: "Items", batchZip: "Download the batch (zip)", colName: "Name", colStage: "Stage", colJob: "Job", batchCancel: "Cancel the batch",
  batchRefused: "Refused: {0}", notSubmittedBatch: "The batch was not submitted:", split: "Split", merge: "Merge with next",
  remove: "Remove", addSeg: "Add a segment", diffH: "Changes against this job", diffNone: "No changes yet.",
  "diff.added": "added", "diff.removed": "removed", "diff.changed": "changed", diffSecs: "{0} s → {1} s", newText: "(new text)",
  fixBurn: "Burn subtitles into the picture", inBatch: " · in batch ",
  },
  "zh-CN": {
  style: "字幕样式", styleStill: "样式 {0} 的静帧（与烧录时相同的绘制）", styleDefault: "默认",
  downloadAll: "全部下载（zip）", master: "母版 {0}", batchH: "批量任务", batchFiles: "一次提交多个脚本（批量）",
  batchSubmit: "作为批量提交", batchNone: "请先选择一个或多个脚本文件。", batchMeta: "{0} · {1} 项 · 创建于 {2}",
  batchItems: "各项", batchZip: "下载整批（zip）", colName: "名称", colStage: "阶段", colJob: "任务", batchCancel: "取消整批",
  batchRefused: "被拒绝：{0}", notSubmittedBatch: "批量未提交：", split: "拆分", merge: "与下一段合并",
  remove: "删除", addSeg: "添加一段", diffH: "与此任务相比的改动", diffNone: "尚无改动。",
  "diff.added": "新增", "diff.removed": "删除", "diff.changed": "修改", diffSecs: "{0} 秒 → {1} 秒", newText: "（新文字）",
  fixBurn: "把字幕烧录进画面", inBatch: " · 属于批量 ",
  },
};
/** The speech check in the job view. */
const HEARD = {
  en: {
  heardH: "Speech check", heardRetry: "Re-render the flagged segments",
  heardSummary: "{0} segments checked, {1} flagged, {2} not checkable.", heardNone: "Every checked segment was heard as written.",
  heardSeg: "Segment {0} · {1} {2}", heardScript: "Script", heardHeard: "Heard", heardNothing: "(nothing)",
  heardFlag: "heard otherwise", heardTake: "A recorded take: record it again (a re-render cannot change it).",
  heardRetrying: "Re-rendering the flagged segments…", heardMissing: "missing", heardExtra: "extra", heardChanged: "changed",
  "measure.cer": "character error rate", "measure.wer": "word error rate",
  colFlagged: "Speech check", batchFlagged: "{0} flagged ({1})",
  },
  "zh-CN": {
  heardH: "语音校对", heardRetry: "重新生成被标记的段落",
  heardSummary: "已校对 {0} 段，标记 {1} 段，{2} 段无法校对。", heardNone: "所有已校对的段落都与文稿一致。",
  heardSeg: "第 {0} 段 · {1} {2}", heardScript: "文稿", heardHeard: "听到", heardNothing: "（什么也没听到）",
  heardFlag: "听到的不一致", heardTake: "这是录音：请重新录制（重新生成无法改变它）。",
  heardRetrying: "正在重新生成被标记的段落…", heardMissing: "漏读", heardExtra: "多读", heardChanged: "读错",
  "measure.cer": "字错误率", "measure.wer": "词错误率",
  colFlagged: "语音校对", batchFlagged: "标记 {0} 段（{1}）",
  },
};
/** @type {Record<string, Words>} */
export const WORDS = {
  en: { ...CORE.en, ...MORE.en, ...HEARD.en },
  "zh-CN": { ...CORE["zh-CN"], ...MORE["zh-CN"], ...HEARD["zh-CN"] },
};
/** @type {Record<string, string>} */
export const EXAMPLES = {
  "zh-CN": "  • 标题:KV 缓存压到 2 比特还不掉点?\n\n[段 1 · 16 秒 冲突] 长上下文推理最贵的不是算力,而是 KV 缓存——一百二十八 K 的上下文,光缓存就能吃掉一张显卡的一半显存。直接压到 2 比特?精度通常会崩。\n\n[段 2 · 24 秒 机制] 这篇工作的做法是按注意力头分组:先用少量校准数据找出对误差最敏感的头,这些头保留 8 比特;其余的头用 2 比特加逐通道缩放;再把量化误差在相邻 token 之间做补偿,让注意力分数的偏差不会累积。\n\n[段 3 · 14.5 秒 结果] 在 Llama 系列模型上,128K 上下文的显存占用下降约一半,长文档问答的精度损失不到一个百分点,吞吐提升接近两倍。\n\n[段 4 · 8 秒 收尾] 如果你在做长上下文服务,这是值得先试的一步。\n\n字幕层叠加限定语:结果来自论文自报;仅测试 Llama 系列;吞吐依赖具体 kernel 实现;未给出开源代码。\n",
  en: "{\"title\": \"Tests that lie\", \"language\": \"en\", \"segments\": [\n  {\"text\": \"A green test suite feels like proof. It is not.\", \"seconds\": 6, \"label\": \"hook\"},\n  {\"text\": \"Tests only check what someone thought to ask; the bug lives in what nobody asked.\", \"seconds\": 8, \"label\": \"point\"},\n  {\"text\": \"Read the diff, not just the checkmark.\", \"seconds\": 5, \"label\": \"close\"}\n], \"qualifiers\": [\"an opinion, not a study\"]}\n",
};

/**
 * The key's words in `lang` (else English, else the key itself), {0} {1} filled in.
 * @param {string} lang
 * @param {string} k
 * @param {...unknown} args
 * @returns {string}
 */
export function lookup(lang, k, ...args) {
  const s = (WORDS[lang] && WORDS[lang][k]) || WORDS.en[k] || k;
  return s.replace(/\{(\d)\}/g, (_, i) => (args[+i] === undefined ? "" : String(args[+i])));
}

/**
 * The editor's language: the one saved in this browser, else the browser's first zh or en,
 * else Chinese (a Chinese-first product).
 * @param {string | null} saved
 * @param {readonly string[]} languages
 * @returns {string}
 */
export function chooseLang(saved, languages) {
  if (saved && WORDS[saved]) return saved;
  for (const l of languages) { if (/^zh/i.test(l)) return "zh-CN"; if (/^en/i.test(l)) return "en"; }
  return "zh-CN";
}
