"""Word-by-word captions in a render: the main track's narration cues with their words,
timed from each fitted segment's engine boundaries (``SegmentResult.words``)."""

from __future__ import annotations

from service.domain.subtitles import Cue, Layout, with_emphasis, with_words
from service.pipeline.manifest import Placed
from service.pipeline.results import JobPlan


def word_cues(plan: JobPlan, placed: Placed, cues: list[Cue], layout: Layout) -> list[Cue]:
    """``cues`` with their emphasised keywords; with each narration cue's words too unless
    the captions are static."""
    texts = [s.text for s in plan.spec.segments]
    cues = with_emphasis(cues, texts, [s.emphasis_spans for s in plan.spec.segments])
    if plan.style.captions == "static":
        return cues
    bounds = [r.words for r in placed.results]
    return with_words(cues, texts, bounds, [s.start_ms for s in placed.slots], layout)
