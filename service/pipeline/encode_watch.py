"""The picture encode's progress as a job stage: ``encode NN%`` (the share of frames
encoded so far) and the bar between the narration's mix and the mux."""

from __future__ import annotations

from service.domain.job import SYNTH_SHARE
from service.pipeline.results import Progress
from service.ports import Check, Encoding

ENCODE_START, ENCODE_END = SYNTH_SHARE + 0.1, 0.97  # the picture encode's share of the bar


def encode_watch(encoding: Encoding, progress: Progress, check: Check | None) -> Check:
    """What the picture encode calls every quarter second: ``check`` (it raises for a
    canceled job, which stops every ffmpeg at once), then, as the share of frames encoded
    grows, the stage ``encode NN%`` and the bar between the mix and the mux."""
    said = [-1]

    def watch() -> None:
        if check is not None:
            check()
        done = encoding.fraction()
        if int(done * 100) != said[0]:
            said[0] = int(done * 100)
            progress(ENCODE_START + (ENCODE_END - ENCODE_START) * done, f"encode {said[0]}%")

    return watch
