"""POST /v1/audio/speech on the in-memory wiring (espeak, real ffmpeg): each format's
container, the headers saying who spoke, OpenAI-shaped errors naming the field, the API
keys read from Bearer, and the tenant's per-minute limit counting speech requests."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from service.domain.openai_speech import SpeechError
from service.ports import Speech, TtsRequest
from tests.support.fleet import make_fleet

EN: dict[str, Any] = {"model": "espeak", "input": "Hello there. Goodbye.", "voice": "alloy"}
MAGIC = {"mp3": (b"ID3", b"\xff"), "opus": (b"OggS",), "flac": (b"fLaC",), "wav": (b"RIFF",),
         "aac": (b"\xff",)}  # fmt: skip


@pytest.mark.parametrize("fmt", ["mp3", "opus", "aac", "flac", "wav", "pcm"])
def test_each_format_is_its_container(tmp_path: Path, fmt: str) -> None:
    with make_fleet(tmp_path).client("any-key") as c:
        r = c.post("/v1/audio/speech", json={**EN, "response_format": fmt})
    assert r.status_code == 200, r.text
    assert r.headers["x-narrate-engine"] == "espeak" and r.headers["x-narrate-voice"] == "en-us"
    if fmt == "pcm":  # raw s16le at 24 kHz: two sentences are well over half a second
        assert r.headers["content-type"] == "audio/pcm" and len(r.content) > 24000
    else:
        assert r.content.startswith(MAGIC[fmt]), r.content[:8]


def test_openai_voice_names_take_the_engines_default_for_the_inputs_language(
    tmp_path: Path,
) -> None:
    with make_fleet(tmp_path).client() as c:
        zh = c.post("/v1/audio/speech", json={**EN, "input": "你好。", "voice": "nova"})
        en = c.post("/v1/audio/speech", json={**EN, "voice": "nova", "speed": 3.0,
                                               "instructions": "whisper"})  # fmt: skip
    assert zh.headers["x-narrate-voice"] == "cmn-latn-pinyin"
    assert en.headers["x-narrate-voice"] == "en-us"
    assert (
        en.headers["x-narrate-speed"] == "2" and en.headers["x-narrate-instructions"] == "ignored"
    )


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({**EN, "model": "tts-9"}, "model", "model_not_found"),
        ({**EN, "input": "x" * 4097}, "input", "string_above_max_length"),
        ({**EN, "voice": "nobody"}, "voice", "voice_not_found"),
        ({**EN, "voice": "af_heart"}, "voice", "voice_model_mismatch"),
        ({**EN, "response_format": "ogg"}, "response_format", "invalid_value"),
        ({**EN, "input": "。。。"}, "input", "invalid_value"),
    ],
)
def test_bad_requests_answer_openais_error_naming_the_field(
    tmp_path: Path, body: dict[str, Any], param: str, code: str
) -> None:
    with make_fleet(tmp_path).client() as c:
        r = c.post("/v1/audio/speech", json=body)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert (error["param"], error["code"], error["type"]) == (param, code, "invalid_request_error")


def test_a_body_that_is_not_json_is_named(tmp_path: Path) -> None:
    with make_fleet(tmp_path).client() as c:
        r = c.post(
            "/v1/audio/speech", content=b"{nope", headers={"content-type": "application/json"}
        )
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_json"


def test_a_body_far_over_the_longest_input_is_refused_unread(tmp_path: Path) -> None:
    with make_fleet(tmp_path, speech_max_chars=100).client() as c:
        r = c.post("/v1/audio/speech", json={**EN, "input": "x" * 200_000})
    assert r.status_code == 413
    assert (
        r.json()["error"]["code"] == "request_too_large" and r.json()["error"]["param"] == "input"
    )


def test_keys_are_read_from_bearer_where_they_are_required(tmp_path: Path) -> None:
    f = make_fleet(tmp_path, require_keys=True)
    key = f.keys.create("alpha")
    with f.client() as anon, f.client("nk_wrong") as wrong, f.client(key) as right:
        missing, bad = (
            anon.post("/v1/audio/speech", json=EN),
            wrong.post("/v1/audio/speech", json=EN),
        )
        good = right.post("/v1/audio/speech", json=EN)
    for r in (missing, bad):
        assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_api_key"
        assert r.headers["www-authenticate"] == "Bearer"
    assert good.status_code == 200


def test_speech_requests_count_against_the_tenants_per_minute_limit(tmp_path: Path) -> None:
    f = make_fleet(tmp_path, require_keys=True, submissions_per_minute=2)
    keys = f.keys
    alpha, beta = keys.create("alpha"), keys.create("beta")
    with f.client(alpha) as a, f.client(beta) as b:
        assert [a.post("/v1/audio/speech", json=EN).status_code for _ in range(2)] == [200, 200]
        over = a.post("/v1/audio/speech", json=EN)
        other = b.post("/v1/audio/speech", json=EN)
    assert over.status_code == 429 and int(over.headers["retry-after"]) >= 1
    error = over.json()["error"]
    assert (
        error["code"] == "rate_limit_exceeded"
        and "NARRATE_SUBMISSIONS_PER_MINUTE" in error["message"]
    )
    assert other.status_code == 200  # beta has its own


def test_with_timestamps_aligns_the_whole_input(tmp_path: Path) -> None:
    with make_fleet(tmp_path).client() as c:
        r = c.post("/v1/audio/speech/with-timestamps", json={**EN, "response_format": "wav"})
    got = r.json()
    assert base64.b64decode(got["audio_base64"])[:4] == b"RIFF"
    assert got["alignment"]["characters"] == list(EN["input"])
    ends = got["alignment"]["character_end_times_seconds"]
    assert ends == sorted(ends) and ends[-1] > 0.5
    assert [w["word"].strip() for w in got["words"]] == [
        "Hello there.",
        "Goodbye.",
    ]  # espeak: phrases
    assert got["words"][1]["start"] >= got["words"][0]["end"]


def test_a_tenants_dictionary_named_in_the_request_changes_what_the_engine_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = make_fleet(tmp_path, require_keys=True)
    keys = f.keys
    alpha, beta = keys.create("alpha"), keys.create("beta")
    given: list[str] = []
    engine = f.service.pipeline.engines["espeak"]
    real = engine.synthesize

    def spy(request: TtsRequest) -> Speech:
        given.append(request.text)
        return real(request)

    monkeypatch.setattr(engine, "synthesize", spy)
    rule = {"grapheme": "单", "kind": "pinyin", "value": "shan4"}
    body = {**EN, "input": "单先生来了。", "voice": "cmn-latn-pinyin"}
    with f.client(alpha) as a, f.client(beta) as b:
        lid = a.post("/v1/lexicons", json={"name": "names", "rules": [rule]}).json()["id"]
        plain = a.post("/v1/audio/speech", json=body)
        named = a.post("/v1/audio/speech", json={**body, "lexicons": [lid]})
        other = b.post("/v1/audio/speech", json={**body, "lexicons": [lid]})
    assert plain.status_code == named.status_code == 200
    assert "shan4" not in given[0] and "shan4" in given[1], given
    assert other.status_code == 400  # alpha's dictionary does not exist for beta
    assert other.json()["error"]["param"] == "lexicons"
    assert other.json()["error"]["code"] == "lexicon_not_found"


def test_a_tenant_speaks_at_most_its_running_limit_at_once_and_slots_are_bounded(
    tmp_path: Path,
) -> None:
    f = make_fleet(tmp_path, max_running_jobs=1, speech_concurrency=1, speech_wait=0.05)
    desk = f.app.state.speech
    with desk.slot("alpha"):
        with pytest.raises(SpeechError) as own, desk.slot("alpha"):
            pass
        with pytest.raises(SpeechError) as busy, desk.slot("beta"):
            pass
    assert own.value.status == 429 and "--max-running" in own.value.message
    assert busy.value.code == "server_busy" and "NARRATE_SPEECH_CONCURRENCY" in busy.value.message
    with desk.slot("beta"):  # both let go: the next request speaks
        assert desk.speaking == {"alpha": 0, "beta": 1}
