"""Script text (the studio Markdown format, or a JSON spec) -> JobSpec, and JobSpec -> Markdown.

The Markdown format (see examples/): a title line ``标题:``, narration segments
``[段 N · S 秒 LABEL · 说话人: NAME · 语速: +10%] TEXT`` (trailing settings: 说话人/speaker,
声音/voice, 语速/rate, 音调/pitch, 音量/volume), speakers ``说话人: 旁白A=zh-CN-YunxiNeural;
旁白B=…``, a qualifier line ``字幕层叠加限定语: a; b; c`` and a shot list
``镜头 N · NAME · A-Bs - 时长:… - 屏幕文字:… - 画面元素:… - 运动方式:…``, a hook title
``钩子: TEXT · 3 秒`` (or ``Hook:``) and ``**关键词**`` emphasis in a segment's text. Spacing and
full-/half-width punctuation vary; unknown sections are ignored.
"""

from __future__ import annotations

import re
from typing import Literal, NotRequired, TypedDict

from service.domain.errors import ScriptError
from service.domain.spec import JobSpec, spec_from_data, spec_from_json
from service.domain.speech.lexicon import LexiconError, parse_entries, parse_line
from service.domain.text import detect_language


# The JSON job spec (what a JSON submission sends) that a Markdown script becomes:
# spec_from_data validates it, so a script's errors read as a JSON spec's.
class SegmentData(TypedDict):
    text: str
    seconds: float
    translation: NotRequired[str]
    label: NotRequired[str]
    speaker: NotRequired[str]
    voice: NotRequired[str]
    rate: NotRequired[str]
    pitch: NotRequired[str]
    volume: NotRequired[str]


class ShotData(TypedDict):
    index: int
    name: str
    start: float
    end: float
    screen_text: NotRequired[str]
    elements: NotRequired[str]
    motion: NotRequired[str]


class HookData(TypedDict):
    text: str
    seconds: NotRequired[float]


class SpecData(TypedDict):
    segments: list[SegmentData]
    qualifiers: list[str]
    shots: list[ShotData]
    title: NotRequired[str]
    language: NotRequired[str]
    qualifier_translations: NotRequired[list[str]]
    pronunciations: NotRequired[dict[str, str]]
    qualifier_display: NotRequired[str]
    hook: NotRequired[HookData]
    speakers: NotRequired[dict[str, str]]


_DOT = r"[·・•]"
_COLON = r"[:：]"
# Every pattern is linear in its line: quantifiers are possessive (``*+``, ``?+``), so a
# failed attempt never retries another split of the same characters (a shot line with
# 2,000 spaces took 12.7 s with backtracking quantifiers), and a search attempt never runs
# past a character that ends its field (a dot, a "]"), so attempts do not overlap.
MAX_SCRIPT_CHARS = 1 << 20  # the API's 1 MiB body limit, in characters
MAX_SCRIPT_LINES = 20_000  # a real script has ~100
_SEGMENT_HEAD = re.compile(r"\[\s*+(?:段|Segment|Seg)\s*+\d++", re.I)
_SEGMENT = re.compile(
    rf"\[\s*+(?:段|Segment|Seg)\s*+(?P<n>\d++)\s*+(?:{_DOT}\s*+)?+(?P<secs>[^\s\]秒·・•]*+)\s*+"
    rf"(?:秒|(?:s|sec|seconds)(?=[\s\]·・•]))?+(?:\s*+{_DOT})?+\s*+(?P<label>[^\]]*+)\]\s*+"
    r"(?P<text>.*)",
    re.I,
)
_TITLE = re.compile(rf"^\s*+(?:[-*•]\s*+)?+(?:标题|Title)\s*+{_COLON}\s*+(?P<v>.+)$", re.I)
_LANGUAGE = re.compile(rf"^\s*+(?:[-*•]\s*+)?+(?:语言|Language)\s*+{_COLON}\s*+(?P<v>\S++)", re.I)
_QUALIFIERS = re.compile(
    rf"^\s*+(?:[-*•]\s*+)?+(?:字幕层叠加限定语|Qualifiers|Subtitle qualifiers)"
    rf"\s*+{_COLON}\s*+(?P<v>.*)$",
    re.I,
)
# A segment's supplied translation: a line under its paragraph (and the lines after it, up
# to the blank line); the qualifiers' translations, one per qualifier, on a line of their own.
_TRANSLATION = re.compile(rf"^\s*+(?:[-*•]\s*+)?+(?:译文|Translation)\s*+{_COLON}\s*+", re.I)
_QUALIFIER_TRANSLATIONS = re.compile(
    rf"^\s*+(?:[-*•]\s*+)?+(?:限定语译文|Qualifier translations)\s*+{_COLON}\s*+(?P<v>.*)$",
    re.I,
)
# A hook title, before the segments: ``钩子: 别把测试通过当铁板 · 3 秒`` (seconds optional).
_HOOK = re.compile(rf"^\s*+(?:[-*•]\s*+)?+(?:钩子|Hook)\s*+{_COLON}\s*+(?P<v>.+)$", re.I)
_HOOK_SECONDS = re.compile(rf"\s*+{_DOT}\s*+(?P<s>\d++(?:\.\d++)?+)\s*+(?:秒|s|sec|seconds)$", re.I)
_PRONUNCIATIONS = re.compile(
    rf"^\s*(?:[-*•]\s*)?(?:读音|Pronunciations?)\s*{_COLON}\s*(?P<v>.*)$", re.I
)
_QUALIFIER_DISPLAY = re.compile(
    rf"^\s*+(?:[-*•]\s*+)?+(?:限定语显示|Qualifier display)\s*+{_COLON}\s*+(?P<v>\S++)", re.I
)
_DISPLAY_WORDS = {
    "逐条": "one-by-one",
    "依次": "one-by-one",
    "one-by-one": "one-by-one",
    "累积": "accumulate",
    "叠加": "accumulate",
    "accumulate": "accumulate",
}
_SPEAKERS = re.compile(
    rf"^\s*+(?:[-*•]\s*+)?+(?:说话人|Speakers?)\s*+{_COLON}\s*+(?P<v>.*+)$", re.I
)
# A segment header's trailing "· key: value" parts say how it is spoken:
# [段 2 · 28 秒 机制 · 说话人: 旁白B · 语速: +10%]. Each part is matched on its own, anchored.
_SETTING = re.compile(
    rf"^\s*+(?P<k>说话人|Speaker|声音|Voice|语速|Rate|音调|Pitch|音量|Volume)\s*+{_COLON}"
    r"\s*+(?P<v>\S.*+)$",
    re.I,
)
Setting = Literal["speaker", "voice", "rate", "pitch", "volume"]
ShotField = Literal["screen_text", "elements", "motion"]
_SETTING_KEYS: dict[str, Setting] = {
    "说话人": "speaker",
    "speaker": "speaker",
    "声音": "voice",
    "voice": "voice",
    "语速": "rate",
    "rate": "rate",
    "音调": "pitch",
    "pitch": "pitch",
    "音量": "volume",
    "volume": "volume",
}
_DOT_SPLIT = re.compile(f"({_DOT})")
_SHOT = re.compile(
    rf"(?:镜头|Shot)\s*+(?P<n>\d++)\s*+{_DOT}\s*+(?P<name>[^·・•]*+){_DOT}\s*+"
    r"(?P<a>\d++(?:\.\d++)?+)\s*+[-–~至]\s*+(?P<b>\d++(?:\.\d++)?+)\s*+(?:s|秒)?+(?P<rest>.*)",
    re.I,
)
_SHOT_FIELDS: dict[str, ShotField | None] = {
    "时长": None,
    "Duration": None,
    "屏幕文字": "screen_text",
    "On-screen text": "screen_text",
    "画面元素": "elements",
    "Elements": "elements",
    "运动方式": "motion",
    "Motion": "motion",
}
_FIELD_SPLIT = re.compile(
    r"(?:^|\s)-\s*+(" + "|".join(re.escape(k) for k in _SHOT_FIELDS) + rf")\s*+{_COLON}\s*+",
    re.I,
)
_HEADING = re.compile(r"^\s*+(?:#++\s|\d++\s*+[.、]\s*+\S)")
_SECONDS_UNIT = re.compile(r"(?i)(?<=\d)(?:s|sec|seconds)$")


def _strip_annotation(value: str) -> str:
    """Drop a trailing parenthesised note: "(≤18 字)", "(14 chars · …)". String operations,
    not a regex: a search for spaces then "(" retried at every space is quadratic in them."""
    value = value.strip()
    if value.endswith((")", "）")):
        open_at = max(value.rfind("("), value.rfind("（"))
        inner = value[open_at + 1 : -1]
        if open_at >= 0 and not any(c in inner for c in "（()）"):
            return value[:open_at].strip()
    return value


def _segment_marker(line: str) -> re.Match[str] | None:
    """The first segment marker on the line. Once a marker's head is found, the rest of the
    pattern can only fail for want of a closing "]", so one anchored match decides."""
    head = _SEGMENT_HEAD.search(line)
    if head is None or line.find("]", head.end()) < 0:
        return None
    return _SEGMENT.match(line, head.start())


def _segment_blocks(lines: list[str]) -> list[tuple[int, re.Match[str], list[str]]]:
    """Each segment marker with its continuation lines (up to a blank line or the next marker)."""
    blocks: list[tuple[int, re.Match[str], list[str]]] = []
    current: list[str] | None = None
    for lineno, line in enumerate(lines, 1):
        m = _segment_marker(line)
        if m:
            current = [m.group("text")]
            blocks.append((lineno, m, current))
        elif (
            current is not None
            and line.strip()
            and not _HEADING.match(line)
            and not (
                _QUALIFIERS.match(line)
                or _QUALIFIER_TRANSLATIONS.match(line)
                or _PRONUNCIATIONS.match(line)
                or _SPEAKERS.match(line)
                or _QUALIFIER_DISPLAY.match(line)
                or _HOOK.match(line)
                or _SHOT.search(line)
            )
        ):
            current.append(line.strip())
        else:
            current = None
    return blocks


def _header_settings(label: str) -> tuple[str, dict[Setting, str]]:
    """Split a header's label from its trailing ``· key: value`` settings."""
    pieces = _DOT_SPLIT.split(label)
    settings: dict[Setting, str] = {}
    while pieces and (m := _SETTING.match(pieces[-1])):
        key = _SETTING_KEYS[m.group("k").lower()]
        if key in settings:
            raise ValueError(f"names {m.group('k')} twice")
        settings[key] = m.group("v").strip()
        del pieces[-2:]  # the setting and the dot before it (or just it, first in the label)
    return "".join(pieces).strip(), settings


def _speakers(value: str, lineno: int) -> dict[str, str]:
    """``旁白A=zh-CN-YunxiNeural; 旁白B=zh-CN-XiaoxiaoNeural``."""
    out: dict[str, str] = {}
    for item in re.split(r"[;；]", value):
        if not item.strip():
            continue
        name, eq, voice = item.replace("＝", "=").partition("=")
        if not eq or not name.strip() or not voice.strip():
            raise ScriptError(
                f"expected NAME=VOICE, got {item.strip()!r:.60} (line {lineno})", "speakers"
            )
        out[name.strip()] = voice.strip()
    return out


def _hook(value: str) -> HookData:
    """``text`` or ``text · 3 秒``."""
    m = _HOOK_SECONDS.search(value)
    if m is None:
        return {"text": value.strip()}
    return {"text": value[: m.start()].strip(), "seconds": float(m.group("s"))}


def _check_size(text: str) -> None:
    if len(text) > MAX_SCRIPT_CHARS:
        raise ScriptError(
            f"the script is {len(text)} characters, over the limit of {MAX_SCRIPT_CHARS}"
        )


def _shot(m: re.Match[str]) -> ShotData:
    """A shot-list line: index, name, start-end, then its fields."""
    shot: ShotData = {
        "index": int(m.group("n")),
        "name": m.group("name").strip(),
        "start": float(m.group("a")),
        "end": float(m.group("b")),
    }
    parts = _FIELD_SPLIT.split(m.group("rest"))
    for key, value in zip(parts[1::2], parts[2::2], strict=False):
        canon = next(k for k in _SHOT_FIELDS if k.lower() == key.lower())
        field = _SHOT_FIELDS[canon]
        if field:
            value = value.strip()
            shot[field] = _strip_annotation(value) if field == "screen_text" else value
    return shot


def _segment(
    n: int, lineno: int, m: re.Match[str], body: list[str], speakers: dict[str, str]
) -> SegmentData:
    """Segment ``n`` from its header match (seconds, label, trailing settings) and its
    text lines; ``声音:`` naming one of ``speakers`` means that speaker."""
    raw = _SECONDS_UNIT.sub("", m.group("secs").strip())
    try:
        seconds = float(raw)
    except ValueError:
        shown = repr(raw) if raw else "nothing"
        raise ScriptError(
            f"must be a number, got {shown} (line {lineno})", f"segment {n} seconds"
        ) from None
    said = next((k for k, x in enumerate(body) if k and _TRANSLATION.match(x)), len(body))
    seg: SegmentData = {"text": " ".join(x for x in body[:said] if x), "seconds": seconds}
    if said < len(body):  # 译文: the rest of the paragraph
        seg["translation"] = " ".join([_TRANSLATION.sub("", body[said]), *body[said + 1 :]])
    try:
        label, settings = _header_settings(m.group("label"))
    except ValueError as exc:
        raise ScriptError(f"{exc} (line {lineno})", f"segment {n}") from None
    if label:
        seg["label"] = label
    voice = settings.get("voice")
    if voice is not None and voice in speakers:
        settings["speaker"] = settings.pop("voice")  # 声音: 旁白B names a speaker
    for key, value in settings.items():
        seg[key] = value
    if not seg["text"].strip():
        raise ScriptError(f"has no text (line {lineno})", f"segment {n}")
    return seg


def parse_markdown(text: str) -> JobSpec:
    _check_size(text)
    if not text.strip():
        raise ScriptError("the script is empty")
    lines = text.splitlines()
    if len(lines) > MAX_SCRIPT_LINES:
        raise ScriptError(
            f"the script has {len(lines)} lines, over the limit of {MAX_SCRIPT_LINES}"
        )
    data: SpecData = {"segments": [], "qualifiers": [], "shots": []}
    for lineno, line in enumerate(lines, 1):
        if "title" not in data and (m := _TITLE.match(line)):
            data["title"] = _strip_annotation(m.group("v"))
        elif "language" not in data and (m := _LANGUAGE.match(line)):
            data["language"] = m.group("v").lower()
        elif m := _QUALIFIERS.match(line):
            items = re.split(r"[;；]", m.group("v"))
            data["qualifiers"] += [
                q.strip().rstrip("。.").strip() for q in items if q.strip(" 。.")
            ]
        elif m := _QUALIFIER_TRANSLATIONS.match(line):
            items = re.split(r"[;；]", m.group("v"))
            data.setdefault("qualifier_translations", []).extend(
                q.strip() for q in items if q.strip()
            )
        elif m := _PRONUNCIATIONS.match(line):
            try:
                entries = parse_line(m.group("v"))
                parse_entries(entries)
            except LexiconError as exc:
                raise ScriptError(f"{exc} (line {lineno})", "pronunciations") from None
            data.setdefault("pronunciations", {}).update(entries)
        elif m := _QUALIFIER_DISPLAY.match(line):
            word = m.group("v").lower()
            if word not in _DISPLAY_WORDS:
                raise ScriptError(
                    f"expected 逐条 (one-by-one) or 累积 (accumulate), got {word!r:.40} "
                    f"(line {lineno})",
                    "qualifier_display",
                )
            data["qualifier_display"] = _DISPLAY_WORDS[word]
        elif "hook" not in data and (m := _HOOK.match(line)):
            data["hook"] = _hook(m.group("v"))
        elif m := _SPEAKERS.match(line):
            data.setdefault("speakers", {}).update(_speakers(m.group("v"), lineno))
        elif m := _SHOT.search(line):
            data["shots"].append(_shot(m))
    for lineno, m, body in _segment_blocks(lines):
        data["segments"].append(
            _segment(len(data["segments"]) + 1, lineno, m, body, data.get("speakers", {}))
        )
    if not data["segments"]:
        raise ScriptError(
            "no narration segments found; expected lines like '[段 1 · 20 秒 冲突] 文本'"
        )
    if "language" not in data:
        data["language"] = detect_language(" ".join(s["text"] for s in data["segments"]))
    return spec_from_data(data)


def parse_script(text: str, filename: str = "") -> JobSpec:
    """A script of either kind: JSON when it looks like JSON (or is named .json)."""
    _check_size(text)
    if filename.lower().endswith(".json") or text.lstrip().startswith("{"):
        return spec_from_json(text)
    return parse_markdown(text)
