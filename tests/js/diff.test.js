// The fix panel's diff and segment edits (service/api/static/diff.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { alignSegments, joinTexts, markSpans, pronunciations, segmentChanges, shotChanges, splitAt } from "../../service/api/static/diff.js";

/** @param {...string} texts */
const segs = (...texts) => texts.map((text) => ({ text, seconds: 3 }));

test("segments are matched by text; the unmatched between are paired in order", () => {
  assert.deepEqual(alignSegments(segs("a", "b", "c"), segs("a", "c")), [[0, 0], [1, null], [2, 1]]);
  assert.deepEqual(alignSegments(segs("a", "c"), segs("a", "b", "c")), [[0, 0], [null, 1], [1, 2]]);
  // an edited segment: the old and the new text side by side
  assert.deepEqual(alignSegments(segs("a", "b", "c"), segs("a", "B", "c")), [[0, 0], [1, 1], [2, 2]]);
  assert.deepEqual(alignSegments([], segs("x")), [[null, 0]]);
});

test("unchanged segments are left out; text, seconds, voice, rate and pitch are changes", () => {
  const old = [{ text: "a", seconds: 3 }, { text: "b", seconds: 4, rate: "+10%" }, { text: "c", seconds: 2 }];
  const now = [{ text: "a", seconds: 3 }, { text: "b", seconds: 4, pitch: "-2Hz" }, { text: "c", seconds: 2.5 }, { text: "d", seconds: 1 }];
  const got = segmentChanges(old, now);
  assert.deepEqual(got.map((c) => [c.i, c.j, c.kind]), [[1, 1, "changed"], [2, 2, "changed"], [null, 3, "added"]]);
  assert.deepEqual(got[0].tone, [["rate", "+10%", ""], ["pitch", "", "-2Hz"]]);
  assert.deepEqual(segmentChanges(old, old.map((s) => ({ ...s }))), []);
  assert.deepEqual(segmentChanges(old, [old[0]]).map((c) => c.kind), ["removed", "removed"]);
});

test("a segment's seconds are compared as numbers (the spec may hold a string)", () => {
  assert.deepEqual(segmentChanges([{ text: "a", seconds: /** @type {any} */ ("3") }], [{ text: "a", seconds: 3 }]), []);
});

test("shots: added, changed (times, text), removed last", () => {
  const old = [{ index: 1, start: 0, end: 3, screen_text: "one" }, { index: 2, start: 3, end: 6, screen_text: "two" }, { index: 3, start: 6, end: 9 }];
  const now = [{ index: 1, start: 0, end: 3, screen_text: "one" }, { index: 2, start: 3, end: 7, screen_text: "TWO" }, { index: 4, start: 9, end: 12, screen_text: "" }];
  const got = shotChanges(old, now);
  assert.deepEqual(got.map((c) => [c.kind, c.shot.index, c.times, c.text]), [["changed", 2, true, true], ["added", 4, true, true], ["removed", 3, false, false]]);
});

test("a split falls on the sentence mark nearest the middle, else the middle", () => {
  const text = "第一句话。第二句话很长很长。第三句。";  // marks after 5 and 14 characters, the middle 9
  assert.equal(text.slice(0, splitAt(text)), "第一句话。");
  assert.equal(splitAt("abcdefgh"), 4);
  assert.equal(splitAt("One. Two three four."), 5);
});

test("merged texts: no space after Chinese or a full stop, one otherwise", () => {
  assert.equal(joinTexts("你好", "世界"), "你好世界");
  assert.equal(joinTexts("你好。", "Hi"), "你好。Hi");
  assert.equal(joinTexts("Hello", "there."), "Hello there.");
});

test("the speech check's marks: each part found after the last, the rest plain", () => {
  assert.deepEqual(markSpans("abcabc", [["b", "changed"], ["b", "missing"], ["zz", "extra"], ["", "extra"]]), [
    { text: "a", kind: null }, { text: "b", kind: "changed" }, { text: "ca", kind: null }, { text: "b", kind: "missing" }, { text: "c", kind: null }]);
  assert.deepEqual(markSpans("", [["x", "missing"]]), []);
});

test("pronunciation lines: word = reading; the first line that is not one is named", () => {
  assert.deepEqual(pronunciations("行 = háng\n\n GRPO = G R P O \n"), { rules: { 行: "háng", GRPO: "G R P O" }, bad: null });
  assert.equal(pronunciations("行 = háng\n= nothing\n").bad, "= nothing");
  assert.equal(pronunciations("no equals").bad, "no equals");
});
