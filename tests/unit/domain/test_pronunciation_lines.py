"""A script's pronunciation line (读音: word=pinyin; ...) that cannot be read is refused naming
what is wrong and its line, for each way an entry can be wrong. How the CLI reports it (exit
2, for parse and render alike) is tests/integration/tts/test_speech.py's."""

from __future__ import annotations

import pytest

from service.domain.errors import ScriptError
from service.domain.script import parse_script


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("读音: 行=xing9", "'行': 'xing9' is not pinyin"),
        ("读音: =háng", "has an empty word"),
        ("读音: 行", "'行' is not word=pronunciation"),
    ],
)
def test_a_bad_entry_is_refused_naming_what_and_where(line: str, message: str) -> None:
    with pytest.raises(ScriptError) as refused:
        parse_script(f"[段 1 · 5 秒] 一个 50 行的函数\n\n{line}\n")
    said = str(refused.value)
    assert "pronunciations" in said and message in said and "line 3" in said
