"""The style presets' stills for the docs (docs/screenshots/style-<preset>.png): each drawn as
GET /v1/styles/{name}/preview.png draws it (service/jobs/previews.py: the sample cues, the
ASS writer, ffmpeg's subtitles filter), on the neutral background, 270 px wide.

    .venv/bin/python -m devtools.stills [PRESET ...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from service.adapters.ffmpeg.stills import FfmpegStills
from service.adapters.files.styles import styles_file
from service.config import ROOT, get_settings
from service.domain.preview import frame_of, sample_cues
from service.domain.style import StylesData, StyleSpec, presets_table, resolve
from service.domain.subtitles.writers import Canvas, write_ass

WIDTH = 270
OUT = ROOT / "docs" / "screenshots"


def still(name: str, data: StylesData, stills: FfmpegStills, font: str) -> Path:
    """Draw one preset's still into docs/screenshots."""
    style = resolve(data, StyleSpec(preset=name), font)
    size = frame_of(name, None)
    language = "en" if name.startswith("shorts") else "zh"
    ass = write_ass(sample_cues(language), Canvas(size[0], size[1], font, language, style))
    path = OUT / f"style-{name}.png"
    path.write_bytes(stills.draw(ass, size, WIDTH, None, 0.5))
    return path


def main(argv: list[str]) -> int:
    settings = get_settings()
    data = json.loads(styles_file(settings).read_text(encoding="utf-8"))
    names = argv or list(presets_table(data))
    stills = FfmpegStills(settings)
    for name in names:
        print(f"wrote {still(name, data, stills, settings.font_name).relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
