"""The style still's pieces as data: ffmpeg's argv, the frame a style is shown on, and the
key a still is cached and tagged by (the drawing itself: tests/integration/stack/test_style_preview.py)."""

from __future__ import annotations

from pathlib import Path

from service.adapters.ffmpeg.stills import BACKGROUND, still_args
from service.config import Settings
from service.domain.preview import LANDSCAPE, PORTRAIT, StillKey, frame_of, sample_cues
from service.domain.subtitles.cues import HOOK, NARRATION, OVERLAY, SCREEN


def test_the_argv_draws_at_the_frames_size_then_scales() -> None:
    s = Settings()
    bare = still_args(s, Path("/t/a.ass"), (1080, 1920), 540, None, 0.0)
    assert bare[bare.index("-i") + 1] == f"color=c={BACKGROUND}:s=1080x1920:d=1"
    graph = bare[bare.index("-vf") + 1]
    assert graph.index("scale=1080:1920") < graph.index("subtitles=") < graph.index("scale=540:")
    assert bare[-3:] == ["-c:v", "png", "pipe:1"] and "-frames:v" in bare
    on = still_args(s, Path("/t/a.ass"), (360, 640), 300, Path("/v/clip.mp4"), 2.5)
    assert on[on.index("-ss") + 1] == "2.500" and on.index("-ss") < on.index("-i")
    assert on[on.index("-i") + 1] == "/v/clip.mp4"


def test_a_style_is_shown_on_its_own_frame_with_every_layer() -> None:
    assert frame_of("landscape", None) == LANDSCAPE and frame_of("default", None) == PORTRAIT
    assert frame_of("default", "landscape") == LANDSCAPE
    assert frame_of("landscape", "portrait") == PORTRAIT
    cues = sample_cues("zh")
    assert [c.layer for c in cues] == [NARRATION, OVERLAY, SCREEN, HOOK] and len(cues[0].lines) == 2
    # The narration as a caption look draws it: one word spoken the whole time, a keyword.
    spoken = [w for w in cues[0].words if w.end_ms > w.start_ms]
    assert [w.text for w in spoken] == ["测试"] and cues[0].emphasis
    assert sample_cues("en")[0].lines != cues[0].lines and sample_cues("xx") == cues


def test_the_tag_changes_with_everything_the_still_depends_on() -> None:
    base = StillKey("ass", (1080, 1920), None, 0.0, 540)
    others = [
        StillKey("ass2", (1080, 1920), None, 0.0, 540),
        StillKey("ass", (1080, 1920), "j1", 0.0, 540),
        StillKey("ass", (1080, 1920), None, 0.5, 540),
        StillKey("ass", (1080, 1920), None, 0.0, 541),
    ]
    tags = {base.etag, *(k.etag for k in others)}
    assert len(tags) == 5 and base.etag == StillKey("ass", (1080, 1920), None, 0.0, 540).etag
    assert base.etag.startswith('"') and base.etag.endswith('"')
