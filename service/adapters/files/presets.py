"""The shipped job presets (voices/presets.json), read once per path and validated as a job's
options are."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TypedDict

from service.config import Settings
from service.domain.presets import Preset, check_name, preset_from_data


def presets_file(settings: Settings) -> Path:
    return settings.voices_file.parent / "presets.json"


class PresetsFile(TypedDict):
    presets: dict[str, object]  # name -> its options, each validated by preset_from_data


@lru_cache(maxsize=4)
def _read(path: Path) -> dict[str, Preset]:
    data: PresetsFile = json.loads(path.read_text(encoding="utf-8"))
    return {
        check_name(name): preset_from_data(entry, f"{path.name} {name}")
        for name, entry in data["presets"].items()
    }


def load_presets(settings: Settings) -> dict[str, Preset]:
    """The shipped presets by name, validated as a job's options are."""
    return dict(_read(presets_file(settings)))
