"""Benchmark the speech check (service/pipeline/listen.py) on a labelled set it makes itself.

The set: short Chinese and English segments (SCRIPTS below, the project's own text), each
synthesised by narrate's engines exactly as a render gives them their text (the "pinyin"
reader, the shipped lexicon), then checked correct and deliberately broken:
  correct    the segment's own audio
  swapped    another segment's audio (a segment's audio swapped with another's)
  cut        the segment synthesised with one clause left out
  truncated  the last second of its audio cut off
  dropped    an English word left out (segments that have one)
  reading    a 多音字 read wrongly: the engine given another reading behind the check's back
             (a lexicon entry only the synthesis sees: the fault hook)
  other      a take of another text altogether (a sentence of no segment)
Voices: zh-baker for Chinese (install it first: narrate voices install zh-baker
--accept-license); Kokoro is not on this branch, and edge needs the network, so English is
espeak-ng's ``en-us``, checked here although renders skip espeak (recorded as not checkable):
its figures say how the check does on a voice that is hard to understand, not on a good one.

Prints per voice and kind: how many were flagged (recall for the broken, false alarms for the
correct), then the cost: CPU seconds per second of narration, the recogniser's load time (cold
in this process, then warm in a fresh one), peak RSS. ``--dump FILE`` writes every item.
Usage: .venv/bin/python bench/speech_check.py [--dump items.json] [--kinds correct,cut]
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service import wiring  # noqa: E402
from service.adapters.asr import WhisperRecogniser, fold_simplified  # noqa: E402
from service.adapters.pinyin import load_lexicon, speech_tools  # noqa: E402
from service.config import get_settings  # noqa: E402
from service.domain.speech import Lexicon, front_end, parse_entries  # noqa: E402
from service.domain.speech_compare import SpeechCheck  # noqa: E402
from service.pipeline.listen import Listener  # noqa: E402
from service.ports import TtsRequest  # noqa: E402

ZH = [
    "长上下文推理最贵的不是算力，而是显存里的缓存。",
    "我们把模型的权重压到四比特，速度提高了一倍。",
    "银行的系统每天要处理三千万笔交易，延迟必须很低。",
    "这个实验用了两张显卡，训练了整整三天三夜。",
    "先用小数据集验证想法，再扩大到完整的训练集。",
    "评分员联合检视所有轨迹，对通过的子集做相对排序。",
    "今天的天气很好，我们一起去公园散步吧。",
    "他在这一行干了十年，对每个细节都很熟悉。",
    "论文在工业规模上验证了方法，训练稳定性明显提升。",
    "代码 Agent 的训练几乎都用可执行测试当奖励。",
    "先做 dynamic sampling，只保留有用的轨迹。",
    "最后把优势重新分配，让方差估计仍然稳定。",
]
EN = [
    "Long context inference is expensive because of the memory the cache takes.",
    "We compressed the model weights to four bits and doubled the speed.",
    "The bank processes thirty million transactions every day with low latency.",
    "This experiment used two graphics cards and trained for three full days.",
    "First test the idea on a small dataset, then scale up to the full training set.",
    "The reviewer looks at every trajectory and ranks the passing ones.",
    "The weather is lovely today, so let us take a walk in the park.",
    "He has worked in this field for ten years and knows every detail.",
]
OTHER = {
    "zh": "明天上午十点开会，请大家准时参加，不要迟到。",
    "en": "Please join the meeting tomorrow at ten in the morning and do not be late.",
}
# A 多音字 of a ZH line and a reading it must not have (the fault hook's lexicon entry).
WRONG = {"行": "xíng", "长": "cháng", "重": "chóng", "长上下文": "zhǎng shàng xià wén"}
VOICES = {"zh": ("fastspeech2", "zh-baker"), "en": ("espeak", "en-us")}


@dataclass
class Item:
    language: str
    kind: str
    segment: int
    check: SpeechCheck

    def row(self) -> dict[str, object]:
        return {"language": self.language, "kind": self.kind, "segment": self.segment} | (
            self.check.model_dump(exclude={"diff"})
            | {"diff": [d.model_dump() for d in self.check.diff]}
        )


class Bench:
    def __init__(self) -> None:
        self.settings = get_settings()
        self.engines = wiring.engines(self.settings)
        self.tools = speech_tools()
        self.lexicons = {
            lang: load_lexicon(ROOT / "voices" / "lexicon" / f"{lang}.tsv") for lang in ("zh", "en")
        }
        self.recogniser = WhisperRecogniser()
        self.listener = Listener(self.recogniser, lambda: self.tools, lambda s: {}, fold_simplified)

    def speak(self, text: str, language: str, lexicon: Lexicon) -> tuple[np.ndarray, int]:
        engine_name, voice = VOICES[language]
        engine = self.engines[engine_name]
        spoken = front_end(text, language, getattr(engine, "reader", "text"), lexicon, self.tools)
        speech = engine.synthesize(TtsRequest(spoken.text, voice, language))
        return speech.audio, speech.rate

    def judge(self, text: str, language: str, audio: np.ndarray, rate: int) -> SpeechCheck:
        return self.listener.judge(text, language, self.lexicons[language], audio, rate)

    def items(self, language: str, lines: list[str], kinds: set[str]) -> list[Item]:
        lex = self.lexicons[language]
        spoken = [self.speak(t, language, lex) for t in lines]
        out: list[Item] = []
        for i, text in enumerate(lines):
            audio, rate = spoken[i]
            variants: dict[str, tuple[np.ndarray, int] | None] = {
                "correct": (audio, rate),
                "swapped": spoken[(i + 1) % len(lines)],
                "truncated": (audio[: max(0, len(audio) - rate)], rate),
                "cut": self._cut(text, language, lex),
                "dropped": self._dropped(text, language, lex),
                "reading": self._reading(text, language, lex),
                "other": self.speak(OTHER[language], language, lex) if i == 0 else None,
            }
            for kind, got in variants.items():
                if got is not None and kind in kinds:
                    out.append(Item(language, kind, i + 1, self.judge(text, language, *got)))
        return out

    def _cut(self, text: str, language: str, lex: Lexicon) -> tuple[np.ndarray, int] | None:
        clauses = [c for c in re.split(r"(?<=[，,])\s*", text) if c]
        if len(clauses) < 2:
            return None
        longest = max(range(len(clauses)), key=lambda k: len(clauses[k]))
        rest = "".join(c for k, c in enumerate(clauses) if k != longest)
        return self.speak(rest, language, lex)

    def _dropped(self, text: str, language: str, lex: Lexicon) -> tuple[np.ndarray, int] | None:
        words = re.findall(r"[A-Za-z]{4,}", text)
        if not words or (language == "en" and len(text.split()) < 6):
            return None
        word = max(words, key=len)
        return self.speak(text.replace(word, "", 1).replace("  ", " "), language, lex)

    def _reading(self, text: str, language: str, lex: Lexicon) -> tuple[np.ndarray, int] | None:
        hook = {w: r for w, r in WRONG.items() if w in text and language == "zh"}
        if not hook:
            return None
        return self.speak(text, language, {**lex, **parse_entries(hook)})


def report(items: list[Item]) -> None:
    print(f"{'set':<14}{'kind':<11}{'n':>4}{'flagged':>9}{'rate':>8}  mean error rate")
    keys = sorted(
        {(i.language, i.kind) for i in items}, key=lambda k: (k[0], k[1] != "correct", k[1])
    )
    for lang, kind in keys:
        group = [
            i for i in items if (i.language, i.kind) == (lang, kind) and i.check.status == "checked"
        ]
        hit = sum(i.check.flagged for i in group)
        mean = sum(i.check.error_rate or 0 for i in group) / max(1, len(group))
        name = f"{lang} {VOICES[lang][1]}"
        print(
            f"{name:<14}{kind:<11}{len(group):>4}{hit:>9}"
            f"{hit / max(1, len(group)):>8.0%}  {mean:.3f}"
        )
    for lang in sorted({i.language for i in items}):
        broken = [i for i in items if i.language == lang and i.kind != "correct"]
        right = [i for i in items if i.language == lang and i.kind == "correct"]
        recall = sum(i.check.flagged for i in broken) / max(1, len(broken))
        alarms = sum(i.check.flagged for i in right) / max(1, len(right))
        print(
            f"{lang}: recall {recall:.0%} of {len(broken)} broken; "
            f"false alarms {alarms:.0%} of {len(right)} correct"
        )


def warm_load() -> float:
    """The recogniser's load in a fresh process (the model file in the page cache)."""
    code = (
        "import time; from service.adapters.asr import WhisperRecogniser as W; "
        "r = W(); t = time.perf_counter(); r.model(); print(time.perf_counter() - t)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip())


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--dump", help="write every item's check as JSON")
    p.add_argument("--kinds", default="correct,swapped,cut,truncated,dropped,reading,other")
    args = p.parse_args()
    kinds = set(args.kinds.split(","))
    bench = Bench()
    t0 = time.perf_counter()
    bench.recogniser.model()
    cold = time.perf_counter() - t0
    items = bench.items("zh", ZH, kinds) + bench.items("en", EN, kinds)
    report(items)
    done = [i.check for i in items if i.check.status == "checked"]
    audio = sum(c.audio_seconds for c in done)
    cpu = sum(c.cpu_seconds for c in done)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"cost: {cpu:.1f} CPU s for {audio:.1f} s of speech = "
        f"{cpu / max(audio, 1e-9):.3f} CPU s per s"
    )
    print(f"recogniser load: {cold:.2f} s in this process, {warm_load():.2f} s warm in a fresh one")
    print(f"peak RSS (this process: engines, front-end and recogniser): {rss:.0f} MB")
    if args.dump:
        Path(args.dump).write_text(
            json.dumps([i.row() for i in items], ensure_ascii=False, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
