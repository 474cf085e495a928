"""Music under the voice: looped to the video, ducked under speech with ramps, the mix at
the loudness target; measured on the files narrate writes.

The tests here start processes or render through ffmpeg; the in-process ones are in
tests/unit/audio/test_music.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from service import audio as dsp
from tests.support.data import SHORT_SCRIPT, make_video
from tests.support.helpers import narrate, read_manifest, rms_db


def test_music_is_looped_ducked_under_speech_and_the_mix_is_at_target(tmp_path: Path) -> None:
    video = make_video(tmp_path / "v.mp4", 14, size="180x320", fps=10)  # copied: its length counts
    music = tmp_path / "m.mp3"  # 3 s of a chord: looped under 14 s of video
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            "sine=f=440:d=3",
            "-f",
            "lavfi",
            "-i",
            "sine=f=554:d=3",
            "-filter_complex",
            "amix=inputs=2",
            "-c:a",
            "libmp3lame",
            str(music),
        ],
        check=True,
    )
    script = tmp_path / "s.md"
    script.write_text(SHORT_SCRIPT, encoding="utf-8")
    out = tmp_path / "out"
    proc = narrate(
        "render",
        str(script),
        "--out",
        str(out),
        "--engine",
        "espeak",
        "--video",
        str(video),
        "--music",
        str(music),
    )
    assert proc.returncode == 0, proc.stderr
    manifest = read_manifest(out)
    assert manifest["music"]["duration"] == 14.0
    mix, sr = dsp.read_wav(out / "mix.wav")
    voice, _ = dsp.read_wav(out / "narration.wav")
    assert len(mix) == 14 * sr  # to the video's end, not the narration's
    assert abs(dsp.integrated_lufs(mix, sr) + 16) <= 0.5
    assert dsp.true_peak_db(mix) <= -1.0
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
    end = speech[-1][1]
    gap = bed[end + int(0.8 * sr) : 14 * sr - int(1.6 * sr)]  # after the release, before the fade
    # it comes back up by about the 12 dB duck (the residual holds a little voice)
    assert len(gap) > sr and rms_db(gap) - rms_db(under) >= 8
    # The video carries the mix: music where the narration is silent.
    raw = subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-i",
            str(out / "video.mp4"),
            "-map",
            "0:a:0",
            "-ac",
            "1",
            "-ar",
            str(sr),
            "-f",
            "f32le",
            "-",
        ],
        capture_output=True,
        check=True,
    ).stdout
    track = np.frombuffer(raw, "<f4")
    assert rms_db(track[end + sr : end + 2 * sr]) > -40
