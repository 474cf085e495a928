"""Short English pages (``subtitles.max_words_per_cue``): each cue at most that many words,
the English rules kept (no page ends on an article; a number stays with its unit), the
pages covering the text in order and timed inside their phrase."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.errors import ScriptError
from service.domain.spec import JobSpec, Segment, spec_from_data
from service.domain.subtitles import Layout, TimedPhrase, narration_cues
from service.domain.subtitles.pages import page_words, pages
from service.domain.text import analyse, split_phrases
from service.domain.text.tables import EN_ARTICLES

TEXT = (
    "The tests pass, but the model still costs 40 GB of memory and the team waits "
    "3.5 ms per token on the new cluster."
)


def _phrases(text: str) -> list[TimedPhrase]:
    spans = split_phrases(text, 42, None, language="en")
    return [TimedPhrase(a, b, i * 1500, i * 1500 + 1400) for i, (a, b) in enumerate(spans)]


def _layout(limit: int) -> Layout:
    spec = JobSpec(language="en", segments=[Segment(text="x", seconds=1)])
    spec = spec.model_copy(
        update={"subtitles": spec.subtitles.model_copy(update={"max_words_per_cue": limit})}
    )
    return Layout.for_spec(spec)


@pytest.mark.parametrize("limit", [2, 3, 4])
def test_each_cue_holds_at_most_the_words_asked_and_keeps_the_english_rules(limit: int) -> None:
    got = pages(TEXT, _phrases(TEXT), limit, "en")
    cues = narration_cues(TEXT, got, _layout(limit))
    an = analyse(TEXT, "en")
    assert "".join(TEXT[p.start : p.end] for p in got) == TEXT  # every word, in order
    for cue in cues:
        words = cue.text.split()
        assert 1 <= len(words) <= limit, cue.text
        assert words[-1].lower() not in EN_ARTICLES, cue.text  # no page ends on "the"
    shown = [c.text for c in cues]
    assert any("40 GB" in t for t in shown) and any("3.5 ms" in t for t in shown)
    for a, b in itertools.pairwise(got):
        assert a.end == b.start and a.start_ms <= a.end_ms <= b.start_ms
    assert all(len(page_words(an, p.start, p.end)) <= limit for p in got)


@given(
    st.lists(
        st.sampled_from(["the", "a", "model", "runs", "40", "GB", "fast", "of", "cost"]),
        min_size=3,
        max_size=14,
    )
)
def test_pages_never_exceed_the_limit(words: list[str]) -> None:
    text = " ".join(words) + "."
    got = pages(text, [TimedPhrase(0, len(text), 0, 3000)], 3, "en")
    an = analyse(text, "en")
    assert "".join(text[p.start : p.end] for p in got) == text
    assert all(len(page_words(an, p.start, p.end)) <= 3 for p in got)


@pytest.mark.parametrize("limit", [1, 5])
def test_a_limit_outside_two_to_four_is_refused(limit: int) -> None:
    with pytest.raises(ScriptError, match="max_words_per_cue"):
        spec_from_data(
            {"language": "en", "segments": [{"text": "Hi.", "seconds": 1}],
             "subtitles": {"max_words_per_cue": limit}}
        )  # fmt: skip
