"""Readings every offline engine got wrong on scripts the front-end had not seen (issue 32):
a model name's hyphens, 调 meaning adjust, version wildcards, and English addresses, paths,
file names, ISO dates and years."""

from __future__ import annotations

import pytest

from service.adapters.text.pinyin import speech_tools
from service.domain.speech import front_end

TOOLS = speech_tools()


def zh(text: str) -> str:
    return " ".join(front_end(text, "zh", "pinyin", {}, TOOLS).text.split())


def en(text: str) -> str:
    return " ".join(front_end(text, "en", "pinyin", {}, TOOLS).text.split())


def test_a_model_names_hyphens_join_its_parts_and_make_no_range() -> None:
    said = zh("Qwen-2.5-72B 模型")
    assert "dao4" not in said  # 到: before, "Qwen 二点五到七百二十亿"
    assert said.startswith("Qwen er4 dian") and "qi1 bai3 er4 shi2 yi4" in said


def test_ranges_without_a_name_are_still_ranges() -> None:
    assert "dao4" in zh("需要 3-5 天")
    assert "dao4" in zh("1-2B 参数")


@pytest.mark.parametrize(
    ("text", "syllable"),
    [("音量调到 50%", "tiao2 dao4"), ("调高一点", "tiao2 gao1"), ("调大", "tiao2 da4"),
     ("调小", "tiao2 xiao3"), ("把阈值调低", "tiao2 di1")],
)  # fmt: skip
def test_tiao_before_a_direction_is_adjust(text: str, syllable: str) -> None:
    assert syllable in zh(text)


def test_diao_stays_where_it_means_transfer() -> None:
    assert "diao4 dao4" in zh("他被调到北京")
    assert "diao4 cha2" in zh("调查")


def test_a_version_wildcard_is_said_as_its_letter() -> None:
    assert "version three point X" in en("Works with v3.x today.")
    assert "V san1 dian3 X" in zh("兼容 v3.x。")
    assert "V er4 dian3 liu4" in zh("v2.6")


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("See example.org/docs today.", "See example dot org slash docs today."),
        ("Read https://arxiv.org/abs/2609.32577 now.", "arxiv dot org slash abs slash two six"),
        ("Files in /data/video-kb/scripts.", "slash data slash video dash"),
        ("Open README.md first.", "Open README dot m d first."),
        ("Edit config.yaml.", "Edit config dot yaml."),
    ],
)
def test_addresses_paths_and_file_names_are_read_with_dot_and_slash(text: str, want: str) -> None:
    assert want in en(text)


def test_abbreviations_and_fractions_are_not_addresses() -> None:
    assert "dot" not in en("Use e.g. this, i.e. that, at 60 km/h and/or faster.")


def test_an_iso_date_and_a_year_as_a_narrator_says_them() -> None:
    assert "December first, twenty twenty-six" in en("Due 2026-12-01.")
    assert "in twenty twenty-six" in en("Released in 2026.")
    assert " to " not in en("Due 2026-12-01.")
