"""The subtitle style presets file (voices/styles.json) and how a job's style resolves."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from service.config import Settings
from service.domain.spec import JobSpec
from service.domain.style import PresetData, Style, StylesData, presets_table, resolve


@lru_cache(maxsize=4)
def _read(path: Path) -> StylesData:
    data: StylesData = json.loads(path.read_text(encoding="utf-8"))
    return data


def styles_file(settings: Settings) -> Path:
    return settings.voices_file.parent / "styles.json"


def styles_data(settings: Settings) -> StylesData:
    """The presets file as read (``resolve`` takes it so)."""
    return _read(styles_file(settings))


def load_styles(settings: Settings) -> dict[str, PresetData]:
    """Every preset by name: the built-in default first."""
    return presets_table(_read(styles_file(settings)))


def job_style(settings: Settings, spec: JobSpec) -> Style:
    """The job's resolved style; a ScriptError naming ``style preset`` for an unknown one."""
    return resolve(_read(styles_file(settings)), spec.style, settings.font_name)


class StylesFile:
    """The Styles port over the presets file of ``settings``."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def job_style(self, spec: JobSpec) -> Style:
        return job_style(self.settings, spec)
