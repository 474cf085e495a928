from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.errors import ScriptError
from service.domain.markdown import to_markdown
from service.domain.script import parse_markdown, parse_script
from service.domain.spec import JobSpec, Segment, Shot, json_schema, spec_from_data
from tests.support.data import BUNDLED_EXAMPLE, GAGAR_EXAMPLE, ROOT


def test_parses_the_studio_example() -> None:
    spec = parse_script(GAGAR_EXAMPLE.read_text(encoding="utf-8"))
    assert spec.title == "GRPO 别把测试通过当铁板"
    assert spec.language == "zh"
    assert [(s.seconds, s.label) for s in spec.segments] == [
        (20, "冲突"),
        (28, "机制"),
        (13, "结果"),
    ]
    assert spec.segments[0].text.startswith("代码 Agent 的 RL")
    assert spec.segments[2].text.endswith("三件套。")
    assert len(spec.qualifiers) == 5
    assert spec.qualifiers[0] == "abstract 未给出具体百分点"
    assert spec.qualifiers[-1] == "arXiv v1 release_age > 48h 越界"
    assert [s.index for s in spec.shots] == [1, 2, 3, 4, 5, 6, 7]
    risk = spec.shots[5]
    assert (risk.name, risk.start, risk.end) == ("风险卡", 70, 85)
    assert "限定语" in risk.elements
    assert spec.shots[0].screen_text == "GRPO 别把测试通过当铁板"


def test_parses_the_bundled_example() -> None:
    spec = parse_script(BUNDLED_EXAMPLE.read_text(encoding="utf-8"))
    assert [s.seconds for s in spec.segments] == [16, 24, 14.5, 8]
    assert len(spec.qualifiers) == 4 and len(spec.shots) == 5


@pytest.mark.parametrize(
    "line",
    [
        "[段 1 · 18.5 秒 冲突] 你好世界",
        "[段1・18.5秒 冲突]你好世界",
        "[段 1 ・ 18.5秒冲突] 你好世界",
        "[段 1 · 18.5 秒 · 冲突] 你好世界",
    ],
)
def test_segment_marker_spacing_and_width_vary(line: str) -> None:
    spec = parse_markdown(line)
    assert spec.segments == [Segment(text="你好世界", seconds=18.5, label="冲突")]


def test_qualifier_separators_and_unknown_sections() -> None:
    text = "# 随便什么章节\n未知: 行\n[段 1 · 3 秒] 文本\n字幕层叠加限定语：甲；乙;丙。\n5. 其他\n- whatever"
    spec = parse_markdown(text)
    assert spec.qualifiers == ["甲", "乙", "丙"]
    assert len(spec.segments) == 1


def test_english_script() -> None:
    spec = parse_markdown(
        "Title: Why tests lie\n[Segment 1 · 6s Hook] Passing tests are not quality."
    )
    assert spec.language == "en" and spec.title == "Why tests lie"
    assert spec.segments[0].seconds == 6


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "empty"),
        ("   \n\n", "empty"),
        ("# 标题\n只有一些字,没有段落", "no narration segments"),
        ("[段 1 · 3 秒] 好\n[段 2 · abc 秒] 坏", "segment 2 seconds: must be a number, got 'abc'"),
        ("[段 1 · 3 秒] 好\n[段 2 · 0 秒] 坏", "segment 2 seconds: Input should be greater than 0"),
        ("[段 1 · -2 秒] 坏", "segment 1 seconds: Input should be greater than 0 (got -2.0)"),
        ("[段 1 · 3 秒]", "segment 1: has no text"),
    ],
)
def test_bad_scripts_name_the_problem(text: str, needle: str) -> None:
    with pytest.raises(ScriptError) as err:
        parse_script(text)
    assert needle in str(err.value)


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"segments": []}, "segments: List should have at least 1 item"),
        ({"segments": [{"text": "x", "seconds": "soon"}]}, "segment 1 seconds"),
        (
            {"segments": [{"text": "x", "seconds": 2}, {"text": " ", "seconds": 2}]},
            "segment 2 text: must not be empty",
        ),
        ({"segments": [{"text": "x", "seconds": 2}], "language": "fr"}, "language"),
        ({"segments": [{"text": "a\x00b", "seconds": 2}]}, "control character"),
        (
            {
                "segments": [{"text": "x", "seconds": 2}],
                "overlays": [{"text": "t", "start": 3, "end": 1}],
            },
            "overlay 1",
        ),
        ({"segments": [{"text": "x", "seconds": 2}], "colour": "red"}, "colour"),
    ],
)
def test_bad_json_specs_name_the_field(data: dict[str, object], needle: str) -> None:
    with pytest.raises(ScriptError) as err:
        spec_from_data(data)
    assert needle in str(err.value)


def test_invalid_json_is_a_script_error() -> None:
    with pytest.raises(ScriptError, match="not valid JSON"):
        parse_script('{"segments": [', "job.json")


def test_json_schema_is_published() -> None:
    schema = json_schema()
    assert set(schema["properties"]) >= {
        "title",
        "language",
        "voice",
        "engine",
        "segments",
        "qualifiers",
        "overlays",
        "shots",
        "fit",
        "subtitles",
    }
    json.dumps(schema)


# -- round trip: spec -> Markdown -> spec ------------------------------------------------
_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyzGRPO", min_size=1, max_size=8)
_hanzi = st.text(alphabet="代码测试通过质量奖励优势排序轨迹模型显存", min_size=1, max_size=12)
_piece = st.one_of(
    _hanzi,
    _word,
    st.sampled_from(["，", "。", "；", "、", "——", " ", "50", "1.02T", "sum-preserving"]),
)
_text = (
    st.lists(_piece, min_size=1, max_size=12)
    .map(lambda xs: "".join(xs).strip())
    .filter(lambda t: bool(t) and t[0] not in "，。；、—" and t[-1] not in "，。；、—")
)
_seconds = st.one_of(
    st.integers(1, 120).map(float), st.decimals("0.5", "99.5", places=1).map(float)
)
_label = st.one_of(st.none(), st.sampled_from(["冲突", "机制", "结果", "Hook"]))
_qualifier = st.lists(st.one_of(_hanzi, _word), min_size=1, max_size=4).map(lambda xs: " ".join(xs))


@st.composite
def specs(draw: st.DrawFn) -> JobSpec:
    segments = draw(
        st.lists(
            st.builds(Segment, text=_text, seconds=_seconds, label=_label), min_size=1, max_size=5
        )
    )
    shots = []
    t = 0.0
    for i in range(draw(st.integers(0, 4))):
        d = float(draw(st.integers(1, 20)))
        shots.append(
            Shot(
                index=i + 1,
                name=draw(_hanzi),
                start=t,
                end=t + d,
                screen_text=draw(_text),
                elements=draw(_text),
                motion=draw(_hanzi),
            )
        )
        t += d
    return JobSpec(
        title=draw(st.one_of(st.just(""), _hanzi)),
        language=draw(st.sampled_from(["zh", "en"])),
        segments=segments,
        qualifiers=draw(st.lists(_qualifier, max_size=5)),
        shots=shots,
    )


@settings(deadline=None)
@given(specs())
def test_markdown_round_trip(spec: JobSpec) -> None:
    assert parse_markdown(to_markdown(spec)) == spec


def test_example_round_trips() -> None:
    spec = parse_script(GAGAR_EXAMPLE.read_text(encoding="utf-8"))
    assert parse_markdown(to_markdown(spec)) == spec


def test_published_schema_file_is_current() -> None:
    """docs/jobspec.schema.json is what `narrate schema` prints; regenerate it when the spec changes."""
    path = ROOT / "docs" / "jobspec.schema.json"
    assert json.loads(path.read_text(encoding="utf-8")) == json_schema()


def test_published_manifest_schema_file_is_current() -> None:
    """docs/manifest.schema.json is what `narrate schema --manifest` prints; regenerate it when
    the manifest changes (tests/integration/cli/test_render.py checks a render's manifest.json against it)."""
    from service.pipeline.manifest import manifest_schema

    path = ROOT / "docs" / "manifest.schema.json"
    assert json.loads(path.read_text(encoding="utf-8")) == manifest_schema()
