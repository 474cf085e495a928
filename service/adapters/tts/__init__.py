"""TTS engines behind the TtsEngine port."""

from __future__ import annotations

from service.config import Settings
from service.ports import TtsEngine


def available_engines(settings: Settings) -> dict[str, TtsEngine]:
    from service.adapters.tts.espeak import EspeakEngine

    engines: dict[str, TtsEngine] = {"espeak": EspeakEngine()}
    return engines
