"""`narrate render` with several scripts: each into OUT/<name>/, its <name>.mp4 as its video,
every script read before the first render."""

from __future__ import annotations

from pathlib import Path

from tests.support.data import make_video
from tests.support.helpers import narrate


def script(title: str) -> str:
    return f"标题:{title}\n\n[段 1 · 2 秒 开场] 代码测试通过以后,再做优化。\n"


def test_several_scripts_render_one_folder_each(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / f"{name}.md").write_text(script(name), encoding="utf-8")
    make_video(tmp_path / "a.mp4", 2, size="320x240", fps=10)
    out = tmp_path / "out"
    done = narrate(
        "render", tmp_path / "a.md", tmp_path / "b.md", "--out", out, "--engine", "espeak"
    )
    assert done.returncode == 0, done.stderr
    assert (out / "a" / "video.mp4").is_file()  # a.mp4 next to a.md
    assert (out / "b" / "narration.wav").is_file() and not (out / "b" / "video.mp4").exists()
    (tmp_path / "c.md").write_text("标题:坏\n\n[段 1 · 0 秒 开场] 没有时长。\n", encoding="utf-8")
    again = tmp_path / "again"
    done = narrate("render", tmp_path / "b.md", tmp_path / "c.md", "--out", again)
    assert done.returncode == 2 and "seconds" in done.stderr
    assert not again.exists()  # refused before the first render
