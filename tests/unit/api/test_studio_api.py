"""The studio's API, in-process: what the page shows is what the job will do."""

from __future__ import annotations

import io
import wave
from pathlib import Path

from tests.support.fleet import make_fleet


def test_a_checked_extend_script_gives_the_length_it_will_have(tmp_path: Path) -> None:
    """``extend`` lengthens an overflowing segment and pushes the next back: the checked
    total is the laid-out length, not the sum of the seconds asked for."""
    fleet = make_fleet(tmp_path)
    script = "[段 1 · 1 秒] " + "长" * 20 + "。\n\n[段 2 · 3 秒] 好。\n"
    with fleet.client() as c:
        r = c.post(
            "/v1/scripts:parse", json={"script": script, "options": {"on_overflow": "extend"}}
        )
        assert r.status_code == 200, r.text
        body = r.json()
        first = body["segments"][0]
        assert first["overflows"]
        assert body["duration"] > 4 + 1  # 20 syllables cannot be said in 1 s
        assert abs(body["duration"] - (first["syllables"] / first["max_pace"] + 3)) < 0.05


def test_unchanged_segments_cost_no_call_when_edge_is_unreachable(tmp_path: Path) -> None:
    """Edge refuses every connection: each segment falls back to espeak. Re-rendered with
    one segment changed, the others come from the cache: their failed edge attempts are not
    TTS calls."""
    fleet = make_fleet(tmp_path, edge_wss_url="ws://127.0.0.1:9/", edge_attempts=1)
    spec = {
        "language": "zh",
        "segments": [
            {"text": "代码测试通过以后,再做优化。", "seconds": 3},
            {"text": "评分员对轨迹排序。", "seconds": 3},
        ],
        "options": {"engine": "auto"},
    }
    with fleet.client() as c:
        parent = c.post("/v1/jobs", json=spec).json()["id"]
        fleet.work()
        first = c.get(f"/v1/jobs/{parent}").json()
        assert first["status"] == "succeeded", first["error"]
        assert [s["engine"] for s in first["segments"]] == ["espeak", "espeak"]
        assert all(s["tts_calls"] > 0 for s in first["segments"])  # espeak's passes
        edited = c.get(f"/v1/jobs/{parent}/source").json()["spec"]
        edited["segments"][1]["text"] = "评分员对轨迹重新排序。"
        child_id = c.post(f"/v1/jobs/{parent}/rerender", json={"spec": edited}).json()["id"]
        fleet.work()
        child = c.get(f"/v1/jobs/{child_id}").json()
        assert child["status"] == "succeeded", child["error"]
        calls = [s["tts_calls"] for s in child["segments"]]
        assert calls[0] == 0 and calls[1] > 0, calls


def test_a_voice_is_auditioned_through_the_engines_and_their_cache(tmp_path: Path) -> None:
    """GET /v1/voices/{id}/sample: a WAV in that voice, from the TTS cache the second time;
    an edge voice with edge unreachable falls back to the offline voice, as a job would;
    an unknown voice is a 404, a long text or a bad rate a 422."""
    import io
    import wave

    fleet = make_fleet(tmp_path, edge_wss_url="ws://127.0.0.1:9/", edge_attempts=1)
    with fleet.client() as c:
        first = c.get("/v1/voices/cmn-latn-pinyin/sample", params={"rate": "+20%"})
        assert first.status_code == 200, first.text
        assert first.headers["content-type"] == "audio/wav"
        with wave.open(io.BytesIO(first.content)) as w:
            assert w.getnframes() / w.getframerate() > 1.0  # a sentence
        assert first.headers["x-narrate-engine"] == "espeak"
        again = c.get("/v1/voices/cmn-latn-pinyin/sample", params={"rate": "+20%"})
        assert again.headers["x-narrate-cached"] == "1" and again.content == first.content
        etag = again.headers["etag"]
        assert (
            c.get(
                "/v1/voices/cmn-latn-pinyin/sample",
                params={"rate": "+20%"},
                headers={"If-None-Match": etag},
            ).status_code
            == 304
        )
        edge = c.get("/v1/voices/zh-CN-XiaoxiaoNeural/sample", params={"text": "你好。"})
        assert edge.status_code == 200, edge.text
        assert edge.headers["x-narrate-engine"] == "espeak"  # fell back, as a segment would
        assert c.get("/v1/voices/nope/sample").status_code == 404
        assert c.get("/v1/voices/en-us/sample", params={"text": "x" * 61}).status_code == 422
        assert c.get("/v1/voices/en-us/sample", params={"rate": "fast"}).status_code == 422


def test_the_waveform_is_the_narrations_peaks_per_10_ms_computed_once(tmp_path: Path) -> None:
    import io
    import wave

    import numpy as np

    fleet = make_fleet(tmp_path)
    spec = {"segments": [{"text": "代码测试通过以后,再做优化。", "seconds": 3}]}
    with fleet.client() as c:
        job_id = c.post("/v1/jobs", json={**spec, "options": {"engine": "espeak"}}).json()["id"]
        assert c.get(f"/v1/jobs/{job_id}/waveform").status_code == 404  # no narration yet
        fleet.work()
        r = c.get(f"/v1/jobs/{job_id}/waveform")
        assert r.status_code == 200, r.text
        body = r.json()
        with wave.open(
            io.BytesIO(c.get(f"/v1/jobs/{job_id}/artifacts/narration.wav").content)
        ) as w:
            rate = w.getframerate()
            x = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.int64)
        step = round(rate * 0.01)
        assert body["bin_seconds"] == 0.01 and len(body["max"]) == -(-len(x) // step)
        k = int(np.argmax(np.abs(x))) // step  # the loudest bin, checked against the samples
        assert body["max"][k] == round(x[k * step : (k + 1) * step].max() * 1000 / 32768)
        assert body["min"][k] == round(x[k * step : (k + 1) * step].min() * 1000 / 32768)
        assert all(lo <= hi for lo, hi in zip(body["min"], body["max"], strict=True))
        assert max(body["max"]) > 100  # speech, not silence
        cached = list((fleet.settings.data_dir).rglob("waveform-*"))
        assert len(cached) == 1  # computed once, kept in the shared cache
        assert c.get(f"/v1/jobs/{job_id}/waveform").content == r.content
        assert fleet.client("nobody").get(f"/v1/jobs/{job_id}/waveform").status_code in (401, 404)


def test_an_audition_never_tells_one_tenant_what_another_had_spoken(tmp_path: Path) -> None:
    """A sample of a tenant's own text is cached for that tenant: another asking for the
    same phrase gets it synthesised afresh (``X-Narrate-Cached: 0``, an engine call),
    never a hit that says the first tenant spoke it; the first tenant's own repeat hits."""
    fleet = make_fleet(tmp_path, require_keys=True)
    keys = fleet.keys
    alpha, beta = keys.create("alpha"), keys.create("beta")
    params = {"text": "the merger closes on friday"}
    path = "/v1/voices/cmn-latn-pinyin/sample"
    with fleet.client(alpha) as a, fleet.client(beta) as b:
        assert a.get(path, params=params).headers["x-narrate-cached"] == "0"
        assert b.get(path, params=params).headers["x-narrate-cached"] == "0"
        assert a.get(path, params=params).headers["x-narrate-cached"] == "1"
        # the shared sample line is no one's secret: it stays one cache entry for all
        a.get(path)
        assert b.get(path).headers["x-narrate-cached"] == "1"


def test_one_segment_is_heard_as_the_narration_has_it(tmp_path: Path) -> None:
    """GET /v1/jobs/{id}/segments/{n}/audio: segment n's slot of narration.wav as a WAV of
    its own, as long as the manifest says; 404 before the narration exists or past the
    last segment, naming how many there are."""
    fleet = make_fleet(tmp_path)
    spec = {
        "language": "zh",
        "segments": [
            {"text": "代码测试通过。", "seconds": 2},
            {"text": "再做优化。", "seconds": 3},
        ],
    }
    with fleet.client() as c:
        job_id = c.post("/v1/jobs", json=spec).json()["id"]
        early = c.get(f"/v1/jobs/{job_id}/segments/1/audio")
        assert early.status_code == 404 and "no narration yet" in early.text
        fleet.work()
        manifest = c.get(f"/v1/jobs/{job_id}/artifacts/manifest.json").json()
        second = manifest["segments"][1]
        r = c.get(f"/v1/jobs/{job_id}/segments/2/audio")
        assert r.status_code == 200 and r.headers["content-type"] == "audio/wav"
        with wave.open(io.BytesIO(r.content), "rb") as w:
            seconds = w.getnframes() / w.getframerate()
        assert abs(seconds - (second["end"] - second["start"])) < 0.001
        past = c.get(f"/v1/jobs/{job_id}/segments/3/audio")
        assert past.status_code == 404 and "the job has 2" in past.text
