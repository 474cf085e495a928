"""`narrate render` end to end: real espeak-ng, rubberband and ffmpeg on generated media."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from service import audio as dsp
from service.domain.units import ms_to_samples, s_to_ms
from tests.support.data import make_video
from tests.support.helpers import check_render, ffprobe, frame_at, narrate, stream_md5


def test_render_onto_vertical_video(short_script: Path, short_video: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = narrate(
        "render", short_script, "--out", out, "--engine", "espeak", "--video", short_video
    )
    assert proc.returncode == 0, proc.stderr
    assert "%" in proc.stderr  # the progress bar
    manifest = check_render(out, [4.0, 5.5], (4.0, 9.5))
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [
            "narration.wav",
            "subtitles.srt",
            "subtitles.vtt",
            "subtitles.ass",
            "manifest.json",
            "video.mp4",
        ]
    )
    assert {s["engine"] for s in manifest["segments"]} == {"espeak"}
    assert all(s["native_rate"] > 0 and s["stretch_ratio"] > 0 for s in manifest["segments"])
    assert manifest["loudness"]["true_peak_dbtp"] <= -1.0

    probe = ffprobe(out / "video.mp4")
    kinds = {s["codec_type"]: s for s in probe["streams"]}
    assert kinds["video"]["codec_name"] == "h264"
    assert kinds["audio"]["codec_name"] == "aac"
    assert kinds["subtitle"]["codec_name"] == "mov_text"
    assert kinds["subtitle"]["tags"]["language"] == "chi"
    assert abs(float(probe["format"]["duration"]) - 11) < 0.1  # as long as the video
    assert stream_md5(out / "video.mp4") == stream_md5(short_video)  # copied, not re-encoded


def test_render_english_json_spec_without_video(tmp_path: Path) -> None:
    spec = {
        "title": "Tests lie",
        "language": "en",
        "segments": [
            {"text": "Passing tests is not the same as good code.", "seconds": 3.5},
            {
                "text": "A fifty line fix and a two hundred line rewrite get the same reward.",
                "seconds": 5,
            },
        ],
        "overlays": [{"text": "Figures from the abstract only", "start": 1, "end": 4}],
    }
    script = tmp_path / "job.json"
    script.write_text(json.dumps(spec))
    out = tmp_path / "out"
    proc = narrate("render", script, "--out", out, "--engine", "espeak")
    assert proc.returncode == 0, proc.stderr
    manifest = check_render(out, [3.5, 5.0], (1.0, 4.0))
    assert manifest["language"] == "en"
    assert not (out / "video.mp4").exists()


def test_burn_in_and_mix_and_extend(short_script: Path, tmp_path: Path) -> None:
    video = tmp_path / "tone.mp4"
    subprocess.run(
        ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=360x640:r=10:d=8",
         "-f", "lavfi", "-i", "sine=f=6000:d=8:sample_rate=48000", "-c:v", "libx264", "-preset", "ultrafast",
         "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", str(video)],
        check=True,
    )  # fmt: skip
    out = tmp_path / "out"
    # 9.5 s of narration on an 8 s video: an error naming both and --extend-video...
    proc = narrate("render", short_script, "--out", out, "--engine", "espeak", "--video", video)
    assert proc.returncode == 2 and "--extend-video" in proc.stderr and not out.exists()
    assert "narration runs 9.5 s but the video lasts 8 s" in proc.stderr
    proc = narrate(
        "render", short_script, "--out", out, "--engine", "espeak", "--video", video,
        "--burn-in", "--original-audio", "mix", "--extend-video",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    probe = ffprobe(out / "video.mp4")
    assert abs(float(probe["format"]["duration"]) - 9.5) < 0.15  # last frame frozen
    # Burned-in subtitles: the picture is no longer plain black where a cue shows.
    assert frame_at(out / "video.mp4", 1.0, (360, 640), gray=True)[400:, :].max() > 128

    # The original tone is ducked at least 12 dB while narration plays.
    def tone(path: Path, t0: float) -> float:
        pcm = subprocess.run(
            ["ffmpeg", "-v", "error", "-ss", f"{t0:.3f}", "-i", str(path), "-map", "0:a", "-ac", "1",
             "-ar", "48000", "-t", "0.1", "-f", "s16le", "-"],
            capture_output=True, check=True,
        ).stdout  # fmt: skip
        x = np.frombuffer(pcm, "<i2").astype(np.float64)[:4800]
        return float(np.abs(np.fft.rfft(x * np.hanning(len(x))))[600])  # 6000 Hz at 10 Hz bins

    seg = json.loads((out / "manifest.json").read_text())["segments"][0]
    during = tone(out / "video.mp4", seg["start"] + seg["speech_duration"] / 2)
    original = tone(video, seg["start"] + seg["speech_duration"] / 2)
    assert 20 * np.log10(original / during) >= 12


@pytest.mark.parametrize(
    ("script", "needle"),
    [
        # One script the parser refuses (every refusal and its message: tests/unit/domain/
        # test_script.py) and one it reads but the timeline cannot hold.
        ("[段 1 · 五 秒] 文本", "segment 1 seconds: must be a number"),
        (
            "[段 1 · 2 秒] " + "很长的文字" * 10,
            "segment 1: 50 syllables in 2 s needs 25.00 syllables/s",
        ),
    ],
)
def test_bad_input_exits_2_and_leaves_nothing(tmp_path: Path, script: str, needle: str) -> None:
    path = tmp_path / "bad.md"
    path.write_text(script, encoding="utf-8")
    out = tmp_path / "out"
    proc = narrate("render", path, "--out", out, "--engine", "espeak")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], proc.stderr
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.md"]  # no temp dirs left either


def test_text_file_as_video_and_missing_files(short_script: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    fake = tmp_path / "fake.mp4"
    fake.write_text("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:10.0,\nfile:///etc/passwd\n")
    for args, needle in [
        (("--video", fake), "not a readable video file"),
        (("--video", tmp_path / "missing.mp4"), "no such video file"),
    ]:
        proc = narrate("render", short_script, "--out", out, "--engine", "espeak", *args)
        assert proc.returncode == 2 and needle in proc.stderr, proc.stderr
    proc = narrate("render", tmp_path / "missing.md", "--out", out)
    assert proc.returncode == 2 and "no such script file" in proc.stderr
    assert list(out.iterdir()) == []


def test_overflow_policies(tmp_path: Path) -> None:
    path = tmp_path / "fast.md"
    path.write_text(
        "[段 1 · 3 秒] " + "这是一段说得很快的文字" * 3 + "\n\n[段 2 · 2 秒] 然后结束。",
        encoding="utf-8",
    )
    squeezed, extended = tmp_path / "s", tmp_path / "e"
    proc = narrate(
        "render", path, "--out", squeezed, "--engine", "espeak", "--on-overflow", "squeeze"
    )
    assert proc.returncode == 0 and "squeezed" in proc.stderr, proc.stderr
    m = json.loads((squeezed / "manifest.json").read_text())
    assert m["segments"][0]["end"] == 3.0 and m["warnings"]
    proc = narrate(
        "render", path, "--out", extended, "--engine", "espeak", "--on-overflow", "extend"
    )
    assert proc.returncode == 0 and "extended" in proc.stderr, proc.stderr
    m = json.loads((extended / "manifest.json").read_text())
    first, second = m["segments"]
    assert first["end"] > 3.0 and second["start"] == first["end"]
    x, rate = dsp.read_wav(extended / "narration.wav")
    assert len(x) == ms_to_samples(s_to_ms(second["end"]), rate)


def test_unknown_voice_lists_near_matches(short_script: Path, tmp_path: Path) -> None:
    proc = narrate("render", short_script, "--out", tmp_path / "o", "--voice", "zh-CN-YunxiNeurl")
    assert proc.returncode == 2
    assert "unknown voice 'zh-CN-YunxiNeurl'; did you mean zh-CN-YunxiNeural" in proc.stderr


def test_parse_and_voices_commands(short_script: Path) -> None:
    proc = narrate("parse", short_script)
    assert proc.returncode == 0
    spec = json.loads(proc.stdout)
    assert [s["seconds"] for s in spec["segments"]] == [4.0, 5.5]
    proc = narrate("voices")
    assert "zh-CN-YunxiNeural" in proc.stdout and "cmn-latn-pinyin" in proc.stdout


def test_bundled_example_renders(tmp_path: Path) -> None:
    from tests.support.data import BUNDLED_EXAMPLE

    out = tmp_path / "out"
    proc = narrate("render", BUNDLED_EXAMPLE, "--out", out, "--engine", "espeak")
    assert proc.returncode == 0, proc.stderr
    check_render(out, [16.0, 24.0, 14.5, 8.0], (54.5, 62.5))


def test_every_path_argument_is_read_from_the_working_directory(
    short_script: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Paths as users type them: relative to where `narrate` runs, with a quote, a colon,
    brackets and a comma in the output folder's name. Two parts (20 s at 2 parts) so the
    burn-in's listings (parts, canvas) are exercised."""
    cwd = tmp_path / "here"
    (cwd / "in").mkdir(parents=True)
    short_script.rename(cwd / "in" / "short.md")
    make_video(cwd / "in" / "clip.mp4", 20, size="180x320", fps=10)  # the paths, not the frame
    subprocess.run(
        ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=f=220:d=5", str(cwd / "in" / "m.mp3")],
        check=True,
    )
    (cwd / "in" / "look.json").write_text('{"narration": {"color": "#00FF00"}}')
    monkeypatch.setenv("NARRATE_ENCODE_PARTS", "2")
    monkeypatch.setenv("NARRATE_DATA_DIR", str(tmp_path / "data"))
    proc = narrate("parse", "in/short.md", cwd=cwd)
    assert proc.returncode == 0 and json.loads(proc.stdout)["segments"], proc.stderr
    for out, flags in [("soft", ()), ("it's: [a], b", ("--burn-in",))]:
        proc = narrate(
            "render", "in/short.md", "--out", out, "--engine", "espeak", "--video", "in/clip.mp4",
            "--music", "in/m.mp3", "--style", "in/look.json", *flags, cwd=cwd,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        made = cwd / out
        assert {"video.mp4", "mix.wav", "subtitles.ass"} <= {p.name for p in made.iterdir()}
        assert "&H0000FF00" in (made / "subtitles.ass").read_text(encoding="utf-8")
        assert abs(float(ffprobe(made / "video.mp4")["format"]["duration"]) - 20) < 0.1
    assert sorted(p.name for p in cwd.iterdir()) == ["in", "it's: [a], b", "soft"]
