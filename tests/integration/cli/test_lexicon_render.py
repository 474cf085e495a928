"""`narrate render --lexicon FILE.pls` as a user runs it: the file's 单 → shan4 is what espeak is
given (the manifest's spoken_text), and without it the default reading; a missing file is
refused by name before anything renders."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.helpers import narrate, read_manifest

PLS = """<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"
         alphabet="x-pinyin" xml:lang="zh-CN">
  <lexeme><grapheme>单</grapheme><phoneme>shan4</phoneme></lexeme>
</lexicon>
"""
SPEC = {"title": "单先生", "language": "zh", "segments": [{"text": "单先生来了。", "seconds": 3}]}


def test_render_reads_a_pls_file_named_by_lexicon(tmp_path: Path) -> None:
    script, pls = tmp_path / "s.json", tmp_path / "surnames.pls"
    script.write_text(json.dumps(SPEC, ensure_ascii=False), encoding="utf-8")
    pls.write_text(PLS, encoding="utf-8")
    given = {}
    runs: list[tuple[str, list[str | Path]]] = [("with", ["--lexicon", pls]), ("without", [])]
    for name, extra in runs:
        out = tmp_path / name
        proc = narrate("render", script, "--out", out, "--engine", "espeak", *extra)
        assert proc.returncode == 0, proc.stderr
        manifest = read_manifest(out)
        given[name] = manifest["segments"][0]["spoken_text"].split()[0]
    assert given == {"with": "shan4", "without": "dan1"}
    assert read_manifest(tmp_path / "with")["lexicons"][0]["name"] == "surnames.pls"
    proc = narrate("render", script, "--out", tmp_path / "x", "--lexicon", tmp_path / "no.pls")
    assert proc.returncode == 2 and "--lexicon" in proc.stderr and "no such file" in proc.stderr
    assert not (tmp_path / "x").exists()
