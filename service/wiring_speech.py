"""The composition root's part for speech on request (POST /v1/audio/speech, the MCP
server's tools share the job service): which synthesis desk and which stream encoder."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.config import Settings
from service.ports import StreamEncoder

if TYPE_CHECKING:
    from service.jobs import JobService
    from service.jobs.speech import SpeechDesk


def speech_desk(settings: Settings, jobs: JobService) -> SpeechDesk:
    """The API's own pipeline (engines behind the shared TTS cache) and the tenants' quotas."""
    from service.jobs.speech import SpeechDesk

    return SpeechDesk(
        jobs.pipeline,
        jobs.quotas,
        settings.speech_concurrency,
        settings.speech_wait,
        jobs.lexicons,
    )


def stream_encoder(settings: Settings) -> StreamEncoder:
    from service.adapters.stream_encode import FfmpegStreamEncoder

    return FfmpegStreamEncoder(settings.ffmpeg, settings.ffmpeg_timeout)
