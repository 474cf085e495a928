"""A job spec written back in the studio Markdown format (what service/domain/script.py
parses), for the fields that format can hold: the studio's "fix" view and round-trip tests."""

from __future__ import annotations

from service.domain.emphasis import marked
from service.domain.spec import JobSpec
from service.domain.speech.lexicon import to_line


def _num(value: float) -> str:
    return f"{value:g}" if value == int(value) else repr(value)


def to_markdown(spec: JobSpec) -> str:
    """Write the spec in the studio Markdown format (the fields that format can hold)."""
    out = ["1. 标题与观众", ""]
    if spec.title:
        out.append(f"  • 标题:{spec.title}")
    out += [f"  • 语言:{spec.language}", "", "3. 口播稿", ""]
    if spec.hook:
        out += [f"钩子: {spec.hook.text} · {_num(spec.hook.seconds)} 秒", ""]
    if spec.speakers:
        out += ["说话人:" + "; ".join(f"{k}={v}" for k, v in spec.speakers.items()), ""]
    for i, seg in enumerate(spec.segments, 1):
        label = f" {seg.label}" if seg.label else ""
        for key, field in (
            ("说话人", "speaker"),
            ("声音", "voice"),
            ("语速", "rate"),
            ("音调", "pitch"),
            ("音量", "volume"),
        ):
            if getattr(seg, field):
                label += f" · {key}: {getattr(seg, field)}"
        text = marked(seg.text, seg.emphasis_spans)
        out.append(f"[段 {i} · {_num(seg.seconds)} 秒{label}] {text}")
        out += [f"译文: {seg.translation}", ""] if seg.translation else [""]
    if spec.qualifiers:
        out += ["字幕层叠加限定语:" + "；".join(spec.qualifiers) + "。", ""]
    if spec.qualifier_translations:
        out += ["限定语译文: " + "; ".join(spec.qualifier_translations), ""]
    if spec.qualifier_display != "one-by-one":
        out += ["限定语显示:累积", ""]
    if spec.pronunciations:
        out += ["读音:" + to_line(spec.pronunciations), ""]
    if spec.shots:
        out += ["4. 镜头分镜", ""]
        for shot in spec.shots:
            line = (
                f"  {shot.index}. 镜头 {shot.index} · {shot.name} · "
                f"{_num(shot.start)}-{_num(shot.end)}s - 时长:{_num(shot.end - shot.start)}s"
            )
            for key, field in (
                ("屏幕文字", "screen_text"),
                ("画面元素", "elements"),
                ("运动方式", "motion"),
            ):
                if getattr(shot, field):
                    line += f" - {key}:{getattr(shot, field)}"
            out += [line, ""]
    return "\n".join(out)
