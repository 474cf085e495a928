"""Script matching (剪映's 文稿匹配), pure: a whole-script take split among the segments by the
recogniser's timed words matched to the script. Both sides are compared as the speech check
compares them (service/domain/speech_compare.py: toneless syllables, words, numbers read
out), aligned as one sequence; each segment's share of the take runs from the first to the
last heard word aligned with its own words. Unlike the reference-and-DTW split
(service/pipeline/takes.py), a line the take skips gets no share (rather than stealing its
neighbours' audio), and a line read twice keeps its repeat (heard as extra words) instead
of shifting every segment after it."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from service.domain.speech import SpokenText
from service.domain.speech_compare import align, units_of


@dataclass(frozen=True, slots=True)
class Timed:
    """A piece of the transcript and when it was heard: ``start``/``end`` are offsets into the
    transcript's text, ``start_ms``/``end_ms`` into the take."""

    start: int
    end: int
    start_ms: int
    end_ms: int


@dataclass(frozen=True, slots=True)
class Share:
    """A segment's share of the take: its span (ms), the units (syllables or words) of its
    text, how many were heard as written, and the transcript's own text of the share."""

    start_ms: int
    end_ms: int
    units: int
    matched: int
    heard: str

    @property
    def matched_ratio(self) -> float:
        return self.matched / self.units if self.units else 1.0


def timed_pieces(texts: list[str]) -> list[tuple[int, int]]:
    """The (start, end) offsets of consecutive pieces of text joined as they are."""
    out, at = [], 0
    for text in texts:
        out.append((at, at + len(text)))
        at += len(text)
    return out


def _time(pieces: list[Timed], char: int, end: bool) -> int:
    """The time of character ``char`` of the transcript: its piece's start (or end)."""
    starts = [p.start for p in pieces]
    k = max(0, min(len(pieces) - 1, bisect.bisect_right(starts, char) - 1))
    return pieces[k].end_ms if end else pieces[k].start_ms


def match_script(segments: list[SpokenText], heard: SpokenText, pieces: list[Timed]) -> list[Share]:
    """Each segment's share of the take ``heard`` transcribes (its pieces timed). A heard
    word between two segments' words (a repeat, an aside) is the earlier segment's; a
    segment none of whose words were heard gets an empty span where the last one ended."""
    owner: list[int] = []
    ref: list[str] = []
    for k, spoken in enumerate(segments):
        keys = [u.key for u in units_of(spoken)]
        ref += keys
        owner += [k] * len(keys)
    hyp = units_of(heard)
    mine: list[list[int]] = [[] for _ in segments]  # heard units of each segment
    matched = [0] * len(segments)
    current = 0
    for op, i, j in align(ref, [u.key for u in hyp]):
        if i >= 0:
            current = owner[i]
            matched[current] += op == "="
        if j >= 0 and (i >= 0 or mine[current] or current == 0):
            mine[current].append(j)
        elif j >= 0:  # heard before any of this segment's words: the one before's repeat
            mine[max(0, current - 1)].append(j)
    out: list[Share] = []
    last = pieces[0].start_ms if pieces else 0
    for k, spoken in enumerate(segments):
        units = len(units_of(spoken))
        if not mine[k] or not pieces:
            out.append(Share(last, last, units, matched[k], ""))
            continue
        a, b = hyp[min(mine[k])].start, hyp[max(mine[k])].end
        start = max(last, _time(pieces, a, end=False))
        end = max(start, _time(pieces, b - 1, end=True))
        out.append(Share(start, end, units, matched[k], heard.source[a:b]))
        last = end
    return out
