// The page's words (service/api/static/words.js), the pure helpers that say things
// (problems.js, format.js), the SSE reader (sse.js) and the store (store.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { chooseLang, EXAMPLES, lookup, WORDS } from "../../service/api/static/words.js";
import { fieldName, plainWords, problemLine, problemText, stageName } from "../../service/api/static/problems.js";
import { clock, signedNumber, signedValue, textLang } from "../../service/api/static/format.js";
import { takeEvents } from "../../service/api/static/sse.js";
import { set, state, subscribe } from "../../service/api/static/store.js";

/** @param {string} k @param {...unknown} a */
const en = (k, ...a) => lookup("en", k, ...a);

test("both languages have every key, and the same {n} slots", () => {
  assert.deepEqual(Object.keys(WORDS["zh-CN"]).sort(), Object.keys(WORDS.en).sort());
  const slots = (/** @type {string} */ s) => [...s.matchAll(/\{\d\}/g)].map((m) => m[0]).sort().join();
  for (const k of Object.keys(WORDS.en)) assert.equal(slots(WORDS["zh-CN"][k]), slots(WORDS.en[k]), k);
  assert.ok(EXAMPLES.en.startsWith("{") && EXAMPLES["zh-CN"].includes("[段 1"));
});

test("lookup fills the slots; a missing key falls back to English, then to the key", () => {
  assert.equal(lookup("zh-CN", "uploading", 42), "上传中 42%");
  assert.equal(lookup("en", "heardSummary", 3, 1), "3 segments checked, 1 flagged,  not checkable.");
  assert.equal(lookup("fr", "signIn"), "Sign in");
  assert.equal(lookup("zh-CN", "no.such.key"), "no.such.key");
});

test("the language: saved, else the browser's first zh or en, else Chinese", () => {
  assert.equal(chooseLang("en", ["zh-TW"]), "en");
  assert.equal(chooseLang("fr", ["de", "en-GB", "zh"]), "en");
  assert.equal(chooseLang(null, ["zh-HK"]), "zh-CN");
  assert.equal(chooseLang(null, ["de"]), "zh-CN");
});

test("a problem in the form's words, with its line", () => {
  const item = { loc: ["body", "segments", 1, "text"], msg: "segment 2 text: empty (line 7)", code: "x" };
  assert.equal(fieldName(item.loc, en), "Segment 2 · text");
  assert.equal(problemText(item, en), "Segment 2 · text: empty");
  assert.equal(problemLine(item, ""), 7);
  const script = "标题:x\n\n[段 1 · 3 秒] 一\n\n[段 2 · 3 秒] 二";
  assert.equal(problemLine({ loc: ["segments", 1, "seconds"], msg: "too short" }, script), 5);
  assert.equal(problemLine({ loc: ["title"], msg: "too long" }, script), null);
  const pace = { code: "pace.overflow", loc: ["segments", 0], msg: "segment 1: 40 syllables in 5 s needs 8.0 syllables/s, over the limit fit.max_pace=5.5" };
  assert.equal(problemText(pace, en), "Segment 1: 40 syllables in 5 s is 8.0 a second, over the limit of 5.5: shorten the text, give it more seconds, or choose “squeeze” or “extend”.");
  assert.equal(plainWords("options on_overflow must be fail", en), "“If a segment is too long” must be fail");
});

test("stages in the editor's words", () => {
  assert.equal(stageName("encode 42%", en), "encoding the picture 42%");
  assert.equal(stageName("segment 2/5", en), "segment 2 of 5");
  assert.equal(stageName("mux", en), "writing the video");
  assert.equal(stageName("warming up", en), "warming up");
});

test("formatting: clock, the script's language, signed rate and pitch", () => {
  assert.deepEqual([clock(0), clock(59.6), clock(125)], ["0:00", "0:60", "2:05"]);
  assert.deepEqual([textLang("你好 there"), textLang("hello"), textLang("")], ["zh-CN", null, null]);
  assert.deepEqual([signedNumber("+10%"), signedNumber("-2Hz"), signedNumber(undefined)], ["10", "-2", ""]);
  assert.deepEqual([signedValue("10", "%"), signedValue(" -2.4 ", "Hz"), signedValue("", "%"), signedValue("x", "%")], ["+10%", "-2Hz", null, null]);
});

test("server-sent events: whole blocks read, the rest kept for the next chunk", () => {
  const { events, rest } = takeEvents("event: status\nid: 3\ndata: {\"a\":1}\n\ndata: one\ndata: two\n\nevent: seg");
  assert.deepEqual(events, [{ name: "status", data: "{\"a\":1}", id: "3" }, { name: "message", data: "one\ntwo", id: "" }]);
  assert.equal(rest, "event: seg");
  assert.deepEqual(takeEvents(rest + "ment\ndata: {}\n\n").events, [{ name: "segment", data: "{}", id: "" }]);
});

test("the store tells the subscribers of the keys that changed, in order, once each", () => {
  /** @type {string[]} */
  const heard = [];
  const off1 = subscribe(["jobId"], (s) => heard.push("first " + s.jobId));
  const off2 = subscribe(["jobId", "batchId"], (s) => heard.push("second " + s.jobId));
  set({ jobId: "j1", batchId: "b1" });
  set({ jobId: "j1" });  // no change: nobody is told
  set({ drawn: "x" });  // nobody subscribed to it
  off1();
  set({ batchId: "b2" });
  off2();
  set({ jobId: null, batchId: null, drawn: "" });
  assert.deepEqual(heard, ["first j1", "second j1", "second j1"]);
  assert.equal(state.jobId, null);
});
