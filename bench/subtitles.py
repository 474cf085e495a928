"""Subtitle layout rule counts over the bundled examples (examples/*.md, examples/bilingual/),
rendered offline, on every track: the Simplified one, the Traditional one (zh-Hant, OpenCC
s2twp) for the Chinese examples, and the English lines of the bilingual ones (English rules).

Each example is rendered with espeak-ng when it is installed (``--timing model`` or no
espeak-ng: phrases timed by the syllable model at the spec's pace instead), and every
narration cue is read as an editor would, rule by rule. Prints counts per rule and example;
all zero is the aim. A rule about a break (number/unit, abbreviation, quotes and brackets)
reads across cue boundaries too.

    .venv/bin/python bench/subtitles.py [--timing espeak|model] [--show] [SCRIPT ...]

Also printed: Traditional cues whose text is not OpenCC's conversion of the Simplified cue
(laid out again: a converted line overflowed), and cues whose times differ between tracks.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.adapters.text.segmenter import tagged_words  # noqa: E402
from service.domain.script import parse_script  # noqa: E402
from service.domain.spec import JobSpec, RenderOptions  # noqa: E402
from service.domain.speech.en_tables import BINDING_ABBREVIATIONS as BINDING  # noqa: E402
from service.domain.subtitles import (  # noqa: E402
    NARRATION,
    Cue,
    Layout,
    TimedPhrase,
    narration_cues,
    settle,
)
from service.domain.text import (  # noqa: E402
    is_abbreviation,
    is_per_unit,
    reading_chars,
    split_phrases,
    syllables,
    width,
)
from service.domain.text.tables import (  # noqa: E402
    EN_ARTICLES,
    EN_PREPOSITIONS,
    EN_UNITS,
    FORWARD,
    LOCALIZERS,
    PARTICLES,
    UNITS,
)

RULES = [
    "lines over width",
    "lines opening on a particle",
    "lines ending on a forward-binding word",
    "lines ending in ，。、；：",
    "breaks inside 《》“”（）",
    "number/unit splits",
    "abbreviations taken for a sentence end",
    "unchained gaps",
    "cues over 9 cps",
    "half-width punctuation between hanzi",
    "cues over 2 lines",
    "cues over 7 s",
    "cues under 5/6 s",
]
_HANZI = re.compile(r"[\u3400-\u9fff]")
CLOSING = set("，。、；：？！」』）》”’,.;:?!)")
PAIRS = {"《": "》", "“": "”", "（": "）", "(": ")", "「": "」"}


def _model_timing(spec: JobSpec, layout: Layout) -> list[tuple[list[TimedPhrase], int, int]]:
    """Each segment's phrases timed by the syllable model, segments back to back: (phrases,
    the segment's start, its end)."""
    out = []
    t = 0
    for seg in spec.segments:
        phrases = []
        start = t
        for a, b in split_phrases(seg.text, layout.line_chars, tagged_words):
            d = max(150, round(syllables(seg.text[a:b], spec.language) / 4.5 * 1000))
            phrases.append(TimedPhrase(a, b, t, t + d))
            t += d + 200
        t = max(t, start + round(seg.seconds * 1000))
        out.append((phrases, start, t))
    return out


def _model_cues(spec: JobSpec, layout: Layout) -> list[Cue]:
    """Cues from phrases timed by the syllable model, segments back to back."""
    cues: list[Cue] = []
    for seg, (phrases, _, _) in zip(spec.segments, _model_timing(spec, layout), strict=True):
        cues += narration_cues(seg.text, phrases, layout)
    return settle(cues, layout)


def model_tracks(spec: JobSpec, layout: Layout) -> dict[str, list[Cue]]:
    """Every track of the example, narration cues only, timed by the syllable model: zh-Hans
    (or the English script's own), zh-Hant for Chinese, en for the translated lines."""
    from service.adapters.text.hant import OpenccConverter
    from service.domain.style import DEFAULT_STYLE
    from service.domain.subtitles import overlay_cues
    from service.domain.timeline import Slot, place_overlays
    from service.pipeline.results import JobPlan
    from service.pipeline.tracks import subtitle_tracks

    timing = _model_timing(spec, layout)
    timed = [phrases for phrases, _, _ in timing]
    slots = [Slot(start, end) for _, start, end in timing]
    cues: list[Cue] = []
    for k, (seg, phrases) in enumerate(zip(spec.segments, timed, strict=True)):
        following = next((p[0].start_ms for p in timed[k + 1 :] if p), None)
        cues += narration_cues(seg.text, phrases, layout, following)
    overlays = place_overlays(spec, slots)
    cues += overlay_cues([(o.text, o.start_ms, o.end_ms) for o in overlays], layout)
    options = RenderOptions(traditional="tw" if spec.language == "zh" else None)
    plan = JobPlan(spec=spec, options=options, voices=[], style=DEFAULT_STYLE)
    got = subtitle_tracks(plan, timed, overlays, cues, layout, OpenccConverter())
    out = {
        spec.language: got.main,
        **{k.removeprefix("subtitles."): v for k, v in got.others.items()},
    }
    return {k: [c for c in v if c.layer == NARRATION] for k, v in out.items()}


def _srt_cues(path: Path) -> list[Cue]:
    """A track's narration cues read back from its SRT (positioned cues are other layers);
    in a bilingual Chinese track the lines without hanzi are the translation's."""
    import srt

    out = []
    for c in srt.parse(path.read_text(encoding="utf-8")):
        if c.content.startswith("{\\an"):
            continue
        lines = c.content.split("\n")
        own = [ln for ln in lines if _HANZI.search(ln)] if "zh-Hant" in path.name else lines
        theirs = [ln for ln in lines if ln not in own]
        ms = (round(c.start.total_seconds() * 1000), round(c.end.total_seconds() * 1000))
        out.append(Cue(*ms, tuple(own), NARRATION, tuple(theirs)))
    return out


def _espeak_tracks(path: Path) -> dict[str, list[Cue]] | None:
    """Render with the real pipeline and espeak-ng (Chinese with ``traditional: tw``); None
    when espeak-ng is missing. The Simplified cues from the manifest, the others from their
    SRT files."""
    if shutil.which("espeak-ng") is None:
        return None
    from service import wiring
    from service.config import Settings

    spec = parse_script(path.read_text(encoding="utf-8"))
    pipeline = wiring.pipeline(Settings())
    options = RenderOptions(engine="espeak", traditional="tw" if spec.language == "zh" else None)
    plan = pipeline.door.plan(spec, options)
    with tempfile.TemporaryDirectory() as tmp:
        rendered = pipeline.render(plan, Path(tmp) / "out")
        tracks: dict[str, list[Cue]] = {
            spec.language: [
                Cue(
                    round(c["start"] * 1000),
                    round(c["end"] * 1000),
                    tuple(c["text"].split("\n")),
                    0,
                    tuple((c.get("translation") or "").split("\n")) if c.get("translation") else (),
                )
                for c in rendered.manifest.model_dump()["cues"]
                if c["layer"] == NARRATION
            ]
        }
        for name in ("zh-Hant", "en"):
            if (Path(tmp) / "out" / f"subtitles.{name}.srt").is_file():
                tracks[name] = _srt_cues(Path(tmp) / "out" / f"subtitles.{name}.srt")
    return tracks


def count(cues: list[Cue], layout: Layout, show: bool = False) -> Counter[str]:
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
    # Lines in order across cues: (line, ends its cue); a rule about a break reads both sides.
    lines = [(line, n + 1 == len(c.lines)) for c in cues for n, line in enumerate(c.lines)]
    for k, (line, last) in enumerate(lines):
        prev = lines[k - 1][0] if k else ""
        if width(line, layout.language) > layout.line_chars:
            hit("lines over width", line)
        _pairs(line, [x for x, _ in lines[k + 1 :]], layout, hit)
        if layout.language == "zh":
            _zh_lines(line, prev, hit)
        else:
            _en_lines(line, prev, last, hit)
    return got


def _pairs(line: str, rest: list[str], layout: Layout, hit: Callable[[str, str], None]) -> None:
    """A quote or bracket opened on this line and closed on a later one, though it fits one."""
    stack: list[int] = []
    for i, c in enumerate(line):
        if c in PAIRS:
            stack.append(i)
        elif stack and c == PAIRS[line[stack[-1]]]:
            stack.pop()
    joiner = "" if layout.language == "zh" else " "
    for o in stack:
        after = joiner.join(rest)
        close = after.find(PAIRS[line[o]])
        if close >= 0:
            whole = line[o:] + joiner + after[: close + 1]
            if width(whole, layout.language) <= layout.line_chars:
                hit("breaks inside 《》“”（）", whole)


def _zh_lines(line: str, prev: str, hit: Callable[[str, str], None]) -> None:
    if re.search(r"[\u3400-\u9fff] ?[,?!:;] ?[\u3400-\u9fff]", line):
        hit("half-width punctuation between hanzi", line)
    if line[-1:] in set("，。、；：,;:"):
        hit("lines ending in ，。、；：", line)
    head = re.findall(r"^[\u3400-\u9fff]+", line)
    first = tagged_words(head[0])[0][0] if head else ""
    if first in PARTICLES or first in LOCALIZERS or line[0] in CLOSING:
        hit("lines opening on a particle", line)
    # The line's last word, as the tagger cuts it (指向 is not 向).
    tail = re.findall(r"[\u3400-\u9fff]+$", line)
    atoms = [w for w, _ in tagged_words(tail[0])] if tail else []
    if atoms and atoms[-1] in FORWARD:
        hit("lines ending on a forward-binding word", line)
    if prev and re.search(r"[0-9一二三四五六七八九十两]$", prev) and line.startswith(tuple(UNITS)):
        hit("number/unit splits", f"{prev} / {line}")


def _en_lines(line: str, prev: str, last: bool, hit: Callable[[str, str], None]) -> None:
    words = line.split()
    if words and words[-1].lower() in EN_ARTICLES | EN_PREPOSITIONS and not last:
        hit("lines ending on a forward-binding word", line)
    before = prev.split()[-1] if prev.split() else ""
    first = words[0].rstrip(",.;:") if words else ""
    # A number cut from its unit or per-unit, or an amount cut after its sign ($ | 41.5B).
    unit = first in EN_UNITS or first.lower() in EN_UNITS or is_per_unit(first)
    if before and ((before[-1].isdigit() and unit) or before[-1] in "$€£¥~≈<>≤≥"):
        hit("number/unit splits", f"{prev} / {line}")
    # An abbreviation read as a sentence end: "U.S. | cloud", "Dr. | Chen", "e.g. | on".
    if is_abbreviation(before) and first and (not first[0].isupper() or before in BINDING):
        hit("abbreviations taken for a sentence end", f"{prev} / {line}")


def track_layout(name: str, layout: Layout) -> Layout:
    """The rules a track is read by: a translation's by the English ones."""
    if name == "en" and layout.language != "en":
        return replace(layout, language="en", line_chars=42, max_lines=2)
    return layout


def conversion_checks(tracks: dict[str, list[Cue]]) -> tuple[int, int]:
    """(Traditional cues whose text is not OpenCC's conversion of the Simplified cue,
    cues whose times differ from the Simplified track's)."""
    from service.adapters.text.hant import OpenccConverter

    if "zh-Hant" not in tracks:
        return 0, 0
    convert = OpenccConverter().convert
    simp, hant = tracks["zh"], tracks["zh-Hant"]
    relaid = sum(1 for a, b in zip(simp, hant, strict=False) if b.text != convert(a.text, "tw"))
    times = [(c.start_ms, c.end_ms) for c in simp] != [(c.start_ms, c.end_ms) for c in hant]
    return relaid, int(times) + abs(len(simp) - len(hant))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timing", choices=["espeak", "model"], default="espeak")
    ap.add_argument("--show", action="store_true", help="print every violation")
    ap.add_argument("scripts", nargs="*", type=Path, help="scripts (default: the examples)")
    args = ap.parse_args()
    total: Counter[str] = Counter()
    names = args.scripts or sorted(ROOT.glob("examples/*.md")) + sorted(
        ROOT.glob("examples/bilingual/*.md")
    )
    table = []
    notes = []
    for path in names:
        spec = parse_script(path.read_text(encoding="utf-8"))
        layout = Layout.for_spec(spec, tagged_words)
        tracks = _espeak_tracks(path) if args.timing == "espeak" else None
        source = "espeak"
        if tracks is None:
            tracks, source = model_tracks(spec, layout), "model"
        for name, cues in tracks.items():
            folder = "" if path.parent.name == "examples" else f"{path.parent.name[:2]}:"
            label = f"{folder}{path.stem[:10]}/{name}"
            if args.show:
                print(f"{label} ({source}, {len(cues)} cues)")
            got = count(cues, track_layout(name, layout), args.show)
            total += got
            table.append((label, source, len(cues), got))
        relaid, mistimed = conversion_checks(tracks)
        if "zh-Hant" in tracks:
            notes.append(f"{path.stem}: zh-Hant cues laid out again {relaid}, mistimed {mistimed}")
    print(f"{'rule':40s}" + "".join(f"{n[:17]:>18s}" for n, *_ in table) + f"{'total':>8s}")
    for rule in RULES:
        row = "".join(f"{got[rule]:>18d}" for *_, got in table)
        print(f"{rule:40s}{row}{total[rule]:>8d}")
    print(f"{'cues':40s}" + "".join(f"{n:>18d}" for _, _, n, _ in table))
    print(f"{'timing':40s}" + "".join(f"{s:>18s}" for _, s, _, _ in table))
    print("\n".join(notes))


if __name__ == "__main__":
    main()
