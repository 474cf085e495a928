"""Music under the voice over HTTP: a `music` multipart part (and `narrate submit --music`)
through the real stack (the session's), the mix measured on what the client downloads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import numpy as np
import pytest

from service import audio as dsp
from tests.integration.stack.shared import MAX_MUSIC_BYTES
from tests.support.data import SHORT_SCRIPT, make_video
from tests.support.helpers import read_manifest, rms_db
from tests.support.stack import Stack, wait_for


@pytest.fixture(scope="module")
def music(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """4 s of a chord over soft noise, as MP3: looped under the video."""
    path = tmp_path_factory.mktemp("music") / "bed.mp3"
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y",
         "-f", "lavfi", "-i", "sine=f=440:d=4", "-f", "lavfi", "-i", "sine=f=554:d=4",
         "-f", "lavfi", "-i", "anoisesrc=d=4:a=0.05:c=pink",
         "-filter_complex", "amix=inputs=3", "-c:a", "libmp3lame", str(path)],
        check=True,
    )  # fmt: skip
    return path


def post(c: httpx.Client, script: str, files: dict[str, tuple[str, bytes, str]]) -> httpx.Response:
    parts = {"script": ("script.md", script.encode(), "text/markdown"), **files}
    opts = {"engine": "espeak", "music_level": -8, "music_duck": 12}
    return c.post("/v1/jobs", files=parts, data={"options": json.dumps(opts)})


def test_music_part_is_mixed_under_the_voice(stack: Stack, music: Path, tmp_path: Path) -> None:
    # 13 s: the music loops three times, and plays on past the 9.5 s script's last words.
    video = make_video(tmp_path / "v.mp4", 13, size="320x180", fps=10)
    files = {
        "video": ("clip.mp4", video.read_bytes(), "video/mp4"),
        "music": ("bed.mp3", music.read_bytes(), "audio/mpeg"),
    }
    with stack.client() as c:
        r = post(c, SHORT_SCRIPT, files)
        assert r.status_code == 202, r.text
        job = wait_for(c, r.json()["id"], timeout=300)
        assert job["status"] == "succeeded", job["error"]
        assert "mix.wav" in job["artifacts"] and "video.mp4" in job["artifacts"]
        out = tmp_path / "dl"
        out.mkdir()
        for name in ("mix.wav", "narration.wav", "manifest.json", "video.mp4"):
            resp = c.get(job["links"]["artifacts"][name])
            assert resp.status_code == 200, name
            (out / name).write_bytes(resp.content)
        job_dir = stack.data_dir / "artifacts" / "alpha" / job["id"]
        assert (job_dir / "input" / "source.music").is_file()
        assert c.delete(f"/v1/jobs/{job['id']}").json()["result"] == "deleted"
        assert c.get(job["links"]["artifacts"]["mix.wav"]).status_code == 404
        assert not job_dir.exists()  # the upload, the music and mix.wav all went
    manifest = read_manifest(out)
    assert manifest["music"]["file"] == "source.music" and manifest["music"]["duck_db"] == 12
    mix, sr = dsp.read_wav(out / "mix.wav")
    voice, _ = dsp.read_wav(out / "narration.wav")
    assert len(mix) == 13 * sr  # to the video's end
    assert abs(dsp.integrated_lufs(mix, sr) + 16) <= 0.5
    # The mix is G * (voice + music): G by least squares, the music is what is left.
    v = np.zeros(len(mix), np.float32)
    v[: len(voice)] = voice
    g = float(np.dot(mix, v) / np.dot(v, v))
    bed = mix - g * v
    speech = [
        (int(s["start"] * sr), int((s["start"] + s["speech_duration"]) * sr))
        for s in manifest["segments"]
    ]
    under = np.concatenate([bed[a:b] for a, b in speech])
    spoken = np.concatenate([g * v[a:b] for a, b in speech])
    assert rms_db(spoken) - rms_db(under) >= 10, "music not 10 dB under the speech"
    assert rms_db(under) > -60, "no music under the speech at all"
    # The MP4 carries the mix, not the bare narration: music where nobody speaks.
    raw = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(out / "video.mp4"), "-map", "0:a:0",
         "-ac", "1", "-ar", str(sr), "-f", "f32le", "-"],
        capture_output=True, check=True,
    ).stdout  # fmt: skip
    track = np.frombuffer(raw, "<f4")
    end = speech[-1][1]
    assert rms_db(track[end + sr : end + 2 * sr]) > -40


def test_a_bad_music_part_is_refused_at_the_door(stack: Stack, tmp_path: Path) -> None:
    silent = make_video(tmp_path / "mute.mp4", 2, size="160x90", fps=5, audio=False)

    def uploads() -> list[Path]:
        return list((stack.data_dir / "artifacts" / "alpha").glob("*/input/source.music"))

    before = set(uploads())  # other tests' jobs on the shared stack
    with stack.client() as c:
        for body in (b"this is not audio at all\n" * 40, silent.read_bytes()):
            r = post(c, SHORT_SCRIPT, {"music": ("bed.mp3", body, "audio/mpeg")})
            assert r.status_code == 422, r.text
            assert r.json()["detail"][0]["msg"].startswith("music: "), r.text
            assert str(stack.data_dir) not in r.text
        big = post(
            c, SHORT_SCRIPT, {"music": ("bed.wav", b"\0" * (MAX_MUSIC_BYTES + 1), "audio/wav")}
        )
        assert big.status_code == 413 and "music" in big.json()["detail"]
    assert set(uploads()) <= before  # none of the refused parts was kept


def test_submit_client_sends_music(stack: Stack, music: Path, tmp_path: Path) -> None:
    script = tmp_path / "s.md"
    script.write_text(SHORT_SCRIPT, encoding="utf-8")
    out = tmp_path / "dl"
    proc = subprocess.run(
        [sys.executable, "-m", "service.cli.main", "submit", str(script), "--url", stack.url,
         "--key", stack.keys["alpha"], "--engine", "espeak", "--music", str(music),
         "--music-duck", "15", "--out", str(out)],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    manifest = read_manifest(out)
    assert manifest["music"]["duck_db"] == 15
    mix, sr = dsp.read_wav(out / "mix.wav")
    voice, _ = dsp.read_wav(out / "narration.wav")
    assert abs(dsp.integrated_lufs(mix, sr) + 16) <= 0.5
    v = np.zeros(len(mix), np.float32)
    v[: len(voice)] = voice[: len(mix)]
    g = float(np.dot(mix, v) / np.dot(v, v))
    assert rms_db(mix - g * v) > -50, "no music in mix.wav"
    # A fix made in the studio keeps the bed: the re-render mixes the same music.
    job_id = proc.stdout.splitlines()[0]
    with stack.client() as c:
        source = c.get(f"/v1/jobs/{job_id}/source").json()
        r = c.post(f"/v1/jobs/{job_id}/rerender", json={"spec": source["spec"]})
        assert r.status_code == 202, r.text
        child = wait_for(c, r.json()["id"])
        assert child["status"] == "succeeded", child["error"]
        assert "mix.wav" in child["artifacts"]
        remix, _ = dsp.read_wav(c.get(child["links"]["artifacts"]["mix.wav"]).content)
    assert len(remix) == len(mix)
