"""One job end to end through the ports: the door (door.py) -> synthesize + fit each segment
(segment.py) -> the finishing stages (stages.py: place, tracks, picture, mix, encode, mux,
exports, manifest). The CLI runs it in one process; the workers run ``render_segment`` per
segment and ``finalize`` once, with the same code."""

from service.pipeline.context import Handoff
from service.pipeline.core import Pipeline
from service.pipeline.manifest import Manifest, Rendered
from service.pipeline.results import (
    ARTIFACTS,
    JobPlan,
    Progress,
    SegmentResult,
    is_artifact,
    staged_artifacts,
)

__all__ = [
    "ARTIFACTS",
    "Handoff",
    "JobPlan",
    "Manifest",
    "Pipeline",
    "Progress",
    "Rendered",
    "SegmentResult",
    "is_artifact",
    "staged_artifacts",
]
