"""The repository's own inputs the tests read: examples, golden files, a short script."""

from __future__ import annotations

from pathlib import Path

from devtools.media import make_video as make_video  # re-exported: the tests' video maker

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
GOLDEN = TESTS / "golden"
DATA = TESTS / "data"
EXAMPLES = ROOT / "examples"
GAGAR_EXAMPLE = ROOT / "examples" / "gagar-grpo-quality-ranking.md"
BUNDLED_EXAMPLE = ROOT / "examples" / "kv-cache-quantization.md"

SHORT_SCRIPT = """\
  • 标题:测试短片

[段 1 · 4 秒 开场] 代码 Agent 的 RL 用测试当奖励,再叠 GRPO 做优化。

[段 2 · 5.5 秒 机制] 评分员对通过的轨迹排序;低排名降权,按比例 rescale,保持优势总和不变。

字幕层叠加限定语:abstract 未给出具体百分点;仓库未明确。

  1. 镜头 1 · 标题卡 · 0-4s - 时长:4s - 屏幕文字:测试短片 - 画面元素:黑底 - 运动方式:推入
  2. 镜头 2 · 风险卡 · 4-9.5s - 时长:5.5s - 屏幕文字:限定 - 画面元素:风险卡 = 2 条限定语字幕叠加 - 运动方式:浮现
"""
