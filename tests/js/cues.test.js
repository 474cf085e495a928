// How the preview lays out a cue and draws its words (service/api/static/cues.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { cueCss, waveColumns, wordLook } from "../../service/api/static/cues.js";

test("a cue's box: the bottom edge at its line, centred on its position, its font the look's share of the height", () => {
  assert.equal(cueCss({}, {}, 1000, 0), "left:0%;width:100%;font-size:33.30px;bottom:12%;");
  assert.equal(cueCss({ line: "10%,start", position: "30%", size: "40%" }, { size: 0.05 }, 640, 0), "left:10%;width:40%;font-size:32.00px;top:10%;");
  assert.equal(cueCss({ line: "50%,center" }, {}, 100, 48), "left:0%;width:100%;font-size:14.00px;top:50%;transform:translateY(-50%);");
});

test("each caption mode draws the word being spoken as the ASS does", () => {
  const look = { highlight_color: "#ff0", box_color: "#00f", emphasis_color: "#f00", emphasis_scale: 1.2 };
  const spoken = { at: 2, text: "now", timed: true, emph: false }, later = { at: 3, text: "later", timed: true, emph: false };
  assert.deepEqual(wordLook(spoken, "highlight", look, 2.5, spoken), { css: "color:#ff0", cls: "word" });
  assert.deepEqual(wordLook(spoken, "pop", look, 2.5, spoken), { css: "color:#ff0", cls: "word pop" });
  assert.deepEqual(wordLook(spoken, "box", look, 2.5, spoken).css, "background:#00f;box-shadow:0 0 0 .12em #00f;border-radius:.12em");
  assert.deepEqual(wordLook(later, "reveal", look, 2.5, spoken), { css: "visibility:hidden", cls: "word" });
  assert.deepEqual(wordLook(later, "highlight", look, 2.5, spoken), { css: "", cls: "word" });
  assert.deepEqual(wordLook(spoken, "static", look, 2.5, spoken), { css: "", cls: "word" });
  assert.deepEqual(wordLook({ ...later, emph: true }, "static", look, 0, undefined), { css: "color:#f00;font-size:1.2em", cls: "word" });
});

test("the waveform's columns: each pixel the lowest and highest peak of its bins", () => {
  const wave = { min: [-1, -3, 0, -2], max: [2, 1, 4, 0], bin_seconds: 1 };
  assert.deepEqual(waveColumns(wave, 4, 2), [[-3, 2], [-2, 4]]);
  assert.deepEqual(waveColumns(wave, 4, 8).length, 8);  // wider than the bins: a bin a pixel pair
  assert.deepEqual(waveColumns(wave, 8, 4), [[-3, 2], [-2, 4]]);  // the narration ends halfway
});
