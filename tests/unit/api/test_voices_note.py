"""/v1/voices carries a voice's note: kokoro's provenance (Apache-2.0; trained partly on
synthetic audio from commercial TTS; two voices with a regional accent)."""

from __future__ import annotations

from pathlib import Path

from tests.support.fleet import make_fleet


def test_the_voice_list_says_where_kokoros_voices_come_from(tmp_path: Path) -> None:
    fleet = make_fleet(tmp_path)
    with fleet.client() as c:
        voices = c.get("/v1/voices", params={"language": "zh"}).json()
    kokoro = {v["id"]: v for v in voices if v["engine"] == "kokoro"}
    assert "zf_xiaoxiao" in kokoro and "synthetic audio" in kokoro["zf_xiaoxiao"]["note"]
    assert "regional accent" in kokoro["zf_xiaoni"]["note"]
