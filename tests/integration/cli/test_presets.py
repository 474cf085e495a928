"""`narrate presets` and `--preset NAME` on `narrate render`: the shipped presets listed with
their loudness, a render at one (a flag over its value), an unknown one refused by name."""

from __future__ import annotations

from pathlib import Path

from tests.support.helpers import narrate, read_manifest


def test_narrate_presets_lists_each_with_its_loudness_and_source() -> None:
    proc = narrate("presets", "--verbose")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for name, figure in [
        ("douyin", "-14 LUFS -1 dBTP"),
        ("bilibili", "-14 LUFS -1 dBTP"),
        ("youtube-shorts", "-14 LUFS -1 dBTP"),
        ("youtube", "-14 LUFS -1 dBTP"),
        ("podcast", "-16 LUFS -1 dBTP"),
        ("broadcast-r128", "-23 LUFS -1 dBTP"),
    ]:
        line = next(x for x in lines if x.split()[0] == name)
        assert figure in line, line
    assert sum("source: " in x for x in lines) == 6 and "EBU R128" in proc.stdout


def test_render_at_a_preset_takes_its_loudness_and_a_flag_overrides_it(
    short_script: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    proc = narrate(
        "render", short_script, "--out", out, "--engine", "espeak",
        "--preset", "broadcast-r128", "--true-peak", "-3",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    loud = read_manifest(out)["loudness"]
    assert (loud["target_lufs"], loud["true_peak_ceiling_dbtp"]) == (-23, -3)
    assert loud["passed"] is True and abs(loud["integrated_lufs"] + 23) <= 0.5
    assert loud["true_peak_dbtp"] <= -3

    bad = narrate("render", short_script, "--out", tmp_path / "x", "--preset", "tiktok")
    assert bad.returncode == 2 and "no preset named 'tiktok'" in bad.stderr, bad.stderr
    assert "douyin" in bad.stderr and not (tmp_path / "x").exists()
    loud = narrate("render", short_script, "--out", tmp_path / "y", "--target-lufs", "-5")
    assert loud.returncode == 2 and "--target-lufs" in loud.stderr and "-9" in loud.stderr
