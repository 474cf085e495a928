"""The style stills' adapters (service/jobs/previews.py): ffmpeg's libass, the styles file,
the jobs' storage. Apart from wiring.py so the API's app picks them in one line."""

from __future__ import annotations

from service.adapters.stills import FfmpegStills
from service.adapters.styles import styles_data
from service.config import Settings
from service.jobs import JobService
from service.jobs.previews import StylePreviews


def style_previews(settings: Settings, jobs: JobService) -> StylePreviews:
    return StylePreviews(
        lambda: styles_data(settings), FfmpegStills(settings), jobs.storage, settings.font_name
    )
