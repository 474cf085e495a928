// The studio's VTT reading (service/api/static/vtt.js): what the page draws over the picture.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseVTT } from "../../service/api/static/vtt.js";

const FILE = `WEBVTT

STYLE
::cue(.narration) { color: #fff; }
::cue(.qualifiers) { color: #ff0; font-size: 80%; }

1
00:00:01.000 --> 00:00:03.500 line:88%,end position:50% size:90%
<c.narration>你好，&lt;世界&gt; &amp; 朋友</c>

2
00:01:02.250 --> 00:01:04.000
<c.qualifiers>结果来自论文自报</c>
`;

test("a cue's times, settings, class and plain lines", () => {
  const { styles, cues } = parseVTT(FILE);
  assert.deepEqual(styles, { narration: "color: #fff;", qualifiers: "color: #ff0; font-size: 80%;" });
  assert.equal(cues.length, 2);
  assert.deepEqual([cues[0].start, cues[0].end], [1, 3.5]);
  assert.deepEqual(cues[0].settings, { line: "88%,end", position: "50%", size: "90%" });
  assert.equal(cues[0].cls, "narration");
  assert.deepEqual(cues[0].lines, ["你好，<世界> & 朋友"]);
  assert.deepEqual([cues[1].start, cues[1].cls], [62.25, "qualifiers"]);
});

test("CRLF line ends read as LF; a block without a timing line is no cue", () => {
  const { cues } = parseVTT("WEBVTT\r\n\r\nNOTE just a note\r\n\r\n00:00.000 --> 00:02.000\r\nHello");
  assert.equal(cues.length, 1);
  assert.deepEqual([cues[0].start, cues[0].end, cues[0].cls, cues[0].lines], [0, 2, "narration", ["Hello"]]);
});

test("a word-by-word cue's pieces carry each word's onset, across its lines", () => {
  const vtt = "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<c.narration>Tests <00:00:01.500>only <00:00:02.000>check\nwhat <00:00:03.000>someone</c>\nan untimed line\n";
  const [cue] = parseVTT(vtt).cues;
  assert.deepEqual(cue.pieces[0].map((p) => [p.text, p.at, p.timed]), [["Tests ", 1, true], ["only ", 1.5, true], ["check", 2, true]]);
  // the second line starts at the onset the first ended on
  assert.deepEqual(cue.pieces[1].map((p) => [p.text, p.at]), [["what ", 2], ["someone", 3]]);
  assert.deepEqual(cue.pieces[2].map((p) => [p.text, p.timed]), [["an untimed line", false]]);
});

test("an emphasised keyword is a piece of its own, marked", () => {
  const [cue] = parseVTT("WEBVTT\n\n00:00.000 --> 00:03.000\n压到 <c.emphasis>2 比特</c> 还不掉点").cues;
  assert.deepEqual(cue.pieces[0].map((p) => [p.text, p.emph]), [["压到 ", false], ["2 比特", true], [" 还不掉点", false]]);
  assert.deepEqual(cue.lines, ["压到 2 比特 还不掉点"]);
});
