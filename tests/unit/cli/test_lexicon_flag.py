"""``--lexicon``: ids into the options `narrate submit` sends (repeatable, in order), and PLS
files read by `narrate render`, which has no tenant's dictionaries to name."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.cli.console import lexicon_files, render_options
from service.cli.main import build_parser
from service.domain.errors import ScriptError

PLS = """<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"
         alphabet="x-pinyin" xml:lang="zh-CN">
  <lexeme><grapheme>单</grapheme><phoneme>shan4</phoneme></lexeme>
</lexicon>
"""


def test_submit_sends_each_lexicon_named_in_order() -> None:
    args = build_parser().parse_args(
        ["submit", "s.md", "--lexicon", "abc123", "--lexicon", "def456"]
    )
    options = render_options(args).model_dump(mode="json", exclude_unset=True)
    assert options == {"lexicons": ["abc123", "def456"]}
    bad = build_parser().parse_args(["submit", "s.md", "--lexicon", "Not/An-Id"])
    with pytest.raises(ScriptError, match="--lexicon"):
        render_options(bad)


def test_render_reads_pls_files_and_names_a_missing_or_bad_one(tmp_path: Path) -> None:
    good = tmp_path / "surnames.pls"
    good.write_text(PLS, encoding="utf-8")
    [used] = lexicon_files([str(good)])
    assert (used.name, used.version, used.entries) == ("surnames.pls", 1, {"单": "shan4"})
    with pytest.raises(ScriptError, match="--lexicon: nope: no such file"):
        lexicon_files(["nope"])
    bad = tmp_path / "bad.pls"
    bad.write_text(PLS.replace("shan4", "shan"), encoding="utf-8")
    with pytest.raises(ScriptError, match=r"bad.pls: the PLS file, line 4: '单': 'shan' is not"):
        lexicon_files([str(bad)])
