"""POST /v1/audio/speech as a user of the official `openai` client meets it: base_url at a
real stack (uvicorn, Redis, the engines, ffmpeg), its key as the client's api_key. The audio
is decoded by ffmpeg and heard by the project's recogniser as the sentence that was sent,
in English and in Chinese; errors arrive as the client's own exceptions naming the field."""

from __future__ import annotations

import base64
import itertools
import subprocess
from collections.abc import Iterator

import httpx
import numpy as np
import openai
import pytest

from devtools.ocr import cer
from service.adapters.asr import WhisperRecogniser, fold_simplified
from service.voicepacks import kokoro
from tests.support.stack import Stack, start_stack

EN = "The quick brown fox jumps over the lazy dog."
ZH = "今天天气很好，我们去公园散步。"
RATE = 16000


@pytest.fixture(scope="module")
def recogniser() -> WhisperRecogniser:
    return WhisperRecogniser()


@pytest.fixture(scope="module")
def voiced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """A stack of its own with kokoro's pack in its data dir (the shared one has espeak and
    edge only): the voices a studio would point the client at."""
    data = tmp_path_factory.mktemp("kokoro-stack")
    kokoro.install(data, log=lambda line: None)  # hard links from the set-up's built pack
    s = start_stack(data, workers=1)
    yield s
    s.stop()


def client(stack: Stack, key: str | None = None) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=f"{stack.url}/v1", api_key=key or stack.keys["alpha"], max_retries=0, timeout=120
    )


def decoded(data: bytes) -> np.ndarray:
    """Any container ffmpeg reads, as mono float32 at 16 kHz (what the recogniser takes)."""
    out = subprocess.run(
        ["ffmpeg", "-hide_banner", "-loglevel", "error", "-i", "pipe:0",
         "-f", "f32le", "-ac", "1", "-ar", str(RATE), "pipe:1"],
        input=data, capture_output=True, check=True, timeout=60,
    )  # fmt: skip
    return np.frombuffer(out.stdout, np.float32)


def heard(recogniser: WhisperRecogniser, audio: np.ndarray, language: str) -> str:
    text = recogniser.transcribe(audio, RATE, language).text
    return fold_simplified(text) if language == "zh" else text


def test_the_openai_client_gets_english_it_can_hear(
    voiced: Stack, recogniser: WhisperRecogniser
) -> None:
    with client(voiced).audio.speech.with_streaming_response.create(
        model="kokoro", voice="alloy", input=EN, response_format="mp3"
    ) as response:
        assert response.headers["content-type"] == "audio/mpeg"
        assert response.headers["x-narrate-engine"] == "kokoro"
        assert response.headers["x-narrate-voice"] == "af_heart"  # alloy: kokoro's English default
        data = response.read()
    assert data[:3] == b"ID3" or data[0] == 0xFF  # an MP3 stream
    text = heard(recogniser, decoded(data), "en")
    assert cer(EN, text) < 0.1, text


def test_the_openai_client_gets_chinese_it_can_hear(
    voiced: Stack, recogniser: WhisperRecogniser
) -> None:
    speech = client(voiced).audio.speech.create(
        model="kokoro", voice="zf_xiaoxiao", input=ZH, response_format="opus"
    )
    data = speech.read()
    assert data[:4] == b"OggS"
    text = heard(recogniser, decoded(data), "zh")
    assert cer(ZH, text) < 0.15, text


def test_with_timestamps_times_every_character_and_word(voiced: Stack) -> None:
    body = {"model": "kokoro", "voice": "af_heart", "input": EN, "response_format": "wav"}
    r = httpx.post(
        f"{voiced.url}/v1/audio/speech/with-timestamps",
        json=body,
        headers={"Authorization": f"Bearer {voiced.keys['alpha']}"},
        timeout=120,
    )
    assert r.status_code == 200, r.text
    got = r.json()
    seconds = len(decoded(base64.b64decode(got["audio_base64"]))) / RATE
    alignment = got["alignment"]
    assert "".join(alignment["characters"]) == EN
    starts, ends = (
        alignment["character_start_times_seconds"],
        alignment["character_end_times_seconds"],
    )
    assert len(starts) == len(ends) == len(EN)
    assert starts == sorted(starts) and all(a <= b for a, b in zip(starts, ends, strict=True))
    words = got["words"]
    assert [w["word"].strip(" .") for w in words] == EN.rstrip(".").split()
    assert all(a["end"] <= b["start"] + 0.01 for a, b in itertools.pairwise(words))
    assert 0 < words[-1]["end"] <= seconds + 0.05


def test_errors_are_the_clients_own_exceptions_naming_the_field(stack: Stack) -> None:
    speech = client(stack).audio.speech
    with pytest.raises(openai.BadRequestError) as bad:
        speech.create(model="espeak", voice="alloy", input="x" * 4097)
    assert bad.value.param == "input" and bad.value.code == "string_above_max_length"
    assert "4096" in bad.value.message
    with pytest.raises(openai.BadRequestError) as bad:
        speech.create(model="tts-2", voice="alloy", input="hello")
    assert bad.value.param == "model"
    with pytest.raises(openai.BadRequestError) as bad:
        speech.create(model="espeak", voice="zf_xiaoxiao", input="hello")
    assert bad.value.param == "voice" and bad.value.code == "voice_model_mismatch"
    with pytest.raises(openai.AuthenticationError) as unknown:
        client(stack, "nk_not-a-key").audio.speech.create(model="espeak", voice="alloy", input="hi")
    assert unknown.value.code == "invalid_api_key"
