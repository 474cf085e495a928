"""Script matching (文稿匹配): a whole-script take split among the segments by the recogniser's
timed words matched to the script, robust to a skipped line and a line read twice."""

from __future__ import annotations

from service.adapters.text.pinyin import speech_tools
from service.domain.script_match import Share, Timed, match_script, timed_pieces
from service.domain.speech import front_end

TOOLS = speech_tools()
LINES = ["我们把权重压到四比特。", "速度提高了一倍。", "显存也省了一半。"]


def heard(pieces: list[tuple[str, int, int]], language: str = "zh") -> list[Share]:
    """``pieces``: (text, start ms, end ms) as the recogniser times its words."""
    spans = timed_pieces([p[0] for p in pieces])
    timed = [Timed(a, b, p[1], p[2]) for (a, b), p in zip(spans, pieces, strict=True)]
    said = front_end("".join(p[0] for p in pieces), language, "pinyin", {}, TOOLS)
    lines = LINES if language == "zh" else EN
    meant = [front_end(t, language, "pinyin", {}, TOOLS) for t in lines]
    return match_script(meant, said, timed)


def chars(text: str, start: int, step: int = 200) -> list[tuple[str, int, int]]:
    return [(c, start + k * step, start + (k + 1) * step) for k, c in enumerate(text)]


def test_each_line_gets_the_time_of_its_own_words_written_otherwise() -> None:
    # Traditional-free but with a digit: 4 比特 reads as 四比特.
    pieces = chars("我们把权重压到4比特", 0) + chars("速度提高了一倍", 3000)
    pieces += chars("显存也省了一半", 6000)
    shares = heard(pieces)
    assert [(s.start_ms, s.end_ms) for s in shares] == [(0, 2000), (3000, 4400), (6000, 7400)]
    assert all(s.matched == s.units for s in shares)
    assert shares[1].heard == "速度提高了一倍"


def test_a_skipped_line_gets_no_audio_and_its_neighbours_keep_theirs() -> None:
    shares = heard(chars("我们把权重压到四比特", 0) + chars("显存也省了一半", 3000))
    assert shares[0].end_ms == 2000 and shares[1].matched == 0
    assert shares[1].end_ms == shares[1].start_ms  # nothing of the take
    assert (shares[2].start_ms, shares[2].end_ms, shares[2].matched) == (3000, 4400, 7)


def test_a_line_read_twice_keeps_its_repeat_and_the_next_line_is_not_shifted() -> None:
    pieces = chars("我们把权重压到四比特", 0) + chars("速度提高了一倍", 3000)
    pieces += chars("速度提高了一倍", 5000) + chars("显存也省了一半", 8000)
    shares = heard(pieces)
    assert (shares[1].start_ms, shares[1].end_ms) == (3000, 6400)  # both readings
    assert shares[1].heard == "速度提高了一倍速度提高了一倍"
    assert (shares[2].start_ms, shares[2].end_ms) == (8000, 9400)


EN = ["We compressed the weights to four bits.", "The speed doubled."]


def test_english_words_with_numbers_as_digits() -> None:
    words = [" We", " compressed", " the", " weights", " to", " 4", " bits.", " The", " speed"]
    pieces = [(w, k * 300, k * 300 + 250) for k, w in enumerate(words)]
    pieces.append((" doubled.", 3000, 3500))
    shares = heard(pieces, "en")
    assert (shares[0].start_ms, shares[0].end_ms) == (0, 2050)
    assert (shares[1].start_ms, shares[1].end_ms) == (2100, 3500)
    assert [s.matched for s in shares] == [7, 3]
