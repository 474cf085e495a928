"""Subtitle layout rule counts over the bundled examples (examples/*.md), rendered offline.

Each example is rendered with espeak-ng when it is installed (``--timing model`` or no
espeak-ng: phrases timed by the syllable model at the spec's pace instead), and every
narration cue is read as an editor would, rule by rule. Prints counts per rule and example;
all zero is the aim.

    .venv/bin/python bench/subtitles.py [--timing espeak|model] [--show] [SCRIPT ...]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.adapters.segmenter import tagged_words  # noqa: E402
from service.domain.script import parse_script  # noqa: E402
from service.domain.subtitles import (  # noqa: E402
    NARRATION,
    Cue,
    Layout,
    TimedPhrase,
    narration_cues,
    settle,
)
from service.domain.text import (  # noqa: E402
    EN_ARTICLES,
    EN_PREPOSITIONS,
    FORWARD,
    LOCALIZERS,
    PARTICLES,
    UNITS,
    reading_chars,
    split_phrases,
    syllables,
    width,
)

RULES = [
    "lines over width",
    "lines opening on a particle",
    "lines ending on a forward-binding word",
    "number/unit splits",
    "unchained gaps",
    "cues over 9 cps",
    "half-width punctuation between hanzi",
    "cues over 2 lines",
    "cues over 7 s",
    "cues under 5/6 s",
]
_HANZI = re.compile(r"[\u3400-\u9fff]")
CLOSING = set("，。、；：？！」』）》”’,.;:?!)")


def _model_cues(spec, layout: Layout) -> list[Cue]:  # type: ignore[no-untyped-def]
    """Cues from phrases timed by the syllable model, segments back to back."""
    cues: list[Cue] = []
    t = 0
    for seg in spec.segments:
        phrases = []
        start = t
        for a, b in split_phrases(seg.text, layout.line_chars, tagged_words):
            d = max(150, round(syllables(seg.text[a:b], spec.language) / 4.5 * 1000))
            phrases.append(TimedPhrase(a, b, t, t + d))
            t += d + 200
        cues += narration_cues(seg.text, phrases, layout)
        t = max(t, start + round(seg.seconds * 1000))
    return settle(cues, layout)


def _espeak_cues(path: Path) -> list[Cue] | None:
    """Render with the real pipeline and espeak-ng; None when espeak-ng is missing."""
    if shutil.which("espeak-ng") is None:
        return None
    from service import wiring
    from service.config import Settings
    from service.domain.spec import RenderOptions

    spec = parse_script(path.read_text(encoding="utf-8"))
    pipeline = wiring.pipeline(Settings())
    options = RenderOptions(engine="espeak")  # type: ignore[call-arg]
    plan = pipeline.plan(spec, options)
    with tempfile.TemporaryDirectory() as tmp:
        rendered = pipeline.render(plan, Path(tmp) / "out")
    return [
        Cue(round(c["start"] * 1000), round(c["end"] * 1000), tuple(c["text"].split("\n")), 0)
        for c in rendered.manifest.model_dump()["cues"]
        if c["layer"] == NARRATION
    ]


def count(cues: list[Cue], layout: Layout, show: bool = False) -> Counter[str]:
    zh = layout.language == "zh"
    got: Counter[str] = Counter()

    def hit(rule: str, what: str) -> None:
        got[rule] += 1
        if show:
            print(f"  {rule}: {what}")

    frame = 1000 / layout.fps
    for i, cue in enumerate(cues):
        dur = cue.end_ms - cue.start_ms
        if len(cue.lines) > layout.max_lines:
            hit("cues over 2 lines", cue.text)
        if dur > layout.max_ms + 1:
            hit("cues over 7 s", cue.text)
        if dur < layout.min_ms - 1:
            hit("cues under 5/6 s", cue.text)
        if reading_chars(cue.text) / max(dur / 1000, 0.001) > layout.max_cps + 1e-6:
            hit("cues over 9 cps", f"{cue.text!r} {dur} ms")
        if i + 1 < len(cues):
            gap = cues[i + 1].start_ms - cue.end_ms
            if gap <= 500 and abs(gap - 2 * frame) > 1:
                hit("unchained gaps", f"{gap} ms after {cue.text!r}")
        for n, line in enumerate(cue.lines):
            if width(line, layout.language) > layout.line_chars:
                hit("lines over width", line)
            if zh and re.search(r"[\u3400-\u9fff] ?[,?!:;] ?[\u3400-\u9fff]", line):
                hit("half-width punctuation between hanzi", line)
            prev = cue.lines[n - 1] if n else (cues[i - 1].lines[-1] if i else "")
            if zh:
                head = re.findall(r"^[\u3400-\u9fff]+", line)
                first = tagged_words(head[0])[0][0] if head else ""
                if first in PARTICLES or first in LOCALIZERS or line[0] in CLOSING:
                    hit("lines opening on a particle", line)
                # The line's last word, as the tagger cuts it (指向 is not 向).
                tail = re.findall(r"[\u3400-\u9fff]+$", line)
                atoms = [w for w, _ in tagged_words(tail[0])] if tail else []
                if atoms and atoms[-1] in FORWARD:
                    hit("lines ending on a forward-binding word", line)
                if (
                    prev
                    and re.search(r"[0-9一二三四五六七八九十两]$", prev)
                    and line.startswith(tuple(UNITS))
                ):
                    hit("number/unit splits", f"{prev} / {line}")
            else:
                words = line.split()
                if (
                    words
                    and words[-1].lower() in EN_ARTICLES | EN_PREPOSITIONS
                    and n + 1 < len(cue.lines)
                ):
                    hit("lines ending on a forward-binding word", line)
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timing", choices=["espeak", "model"], default="espeak")
    ap.add_argument("--show", action="store_true", help="print every violation")
    ap.add_argument("scripts", nargs="*", type=Path, help="scripts (default: examples/*.md)")
    args = ap.parse_args()
    total: Counter[str] = Counter()
    names = args.scripts or sorted(ROOT.glob("examples/*.md"))
    table = []
    for path in names:
        spec = parse_script(path.read_text(encoding="utf-8"))
        layout = Layout.for_spec(spec, tagged_words)
        cues = _espeak_cues(path) if args.timing == "espeak" else None
        source = "espeak"
        if cues is None:
            cues, source = _model_cues(spec, layout), "model"
        if args.show:
            print(f"{path.name} ({source}, {len(cues)} cues)")
        got = count(cues, layout, args.show)
        total += got
        table.append((path.name, source, len(cues), got))
    print(f"{'rule':40s}" + "".join(f"{n[:14]:>16s}" for n, *_ in table) + f"{'total':>8s}")
    for rule in RULES:
        row = "".join(f"{got[rule]:>16d}" for *_, got in table)
        print(f"{rule:40s}{row}{total[rule]:>8d}")
    print(f"{'cues':40s}" + "".join(f"{n:>16d}" for _, _, n, _ in table))
    print(f"{'timing':40s}" + "".join(f"{s:>16s}" for _, s, _, _ in table))


if __name__ == "__main__":
    main()
