"""Benchmark the speech check (service/pipeline/listen.py) on a labelled set it makes itself.

The set: short Chinese and English segments (SCRIPTS below, the project's own text), each
synthesised by narrate's engines exactly as a render gives them their text (the "pinyin"
reader, the shipped lexicon), then checked correct and deliberately broken:
  correct    the segment's own audio
  swapped    another segment's audio (a segment's audio swapped with another's)
  cut        the segment synthesised with one clause left out
  truncated  the last second of its audio cut off
  dropped    an English word left out (segments that have one)
  reading    a 多音字 read wrongly: the syllable of 行/长/重 (SWAP) swapped in the pinyin the
             engine is given, behind the check's back. (Until 2026-12 this was a one-character
             lexicon entry, which never matches inside a word: 5 of the 6 `reading` items
             were the correct audio, so the old "6 readings missed" measured nothing.)
  other      a take of another text altogether (a sentence of no segment)
Voices (VOICES): zh-baker (install it first: narrate voices install zh-baker --accept-license)
and kokoro's catalog defaults zf_xiaoyi and af_heart (narrate voices install kokoro) for a
voice the recogniser understands in each language; espeak-ng's ``en-us`` too, checked here
although renders skip espeak (recorded as not checkable): its figures say how the check does
on a voice that is hard to understand (12 % of its correct segments flagged), not on a good one.
Edge needs the network: not in the set.

``--configs beam5:t2,beam1:t1,beam5:t2:plain``: recogniser set-ups judged side by side on the
same audio, item by item in turns (``plain``: without the 多音字 test). Prints per set-up,
voice and kind how many were flagged (recall for the broken, false alarms for the correct),
the cost (CPU seconds per second of narration, the check's wall time), how often each set-up
decides as the first does; then the recogniser's load (cold in this process, warm in a fresh
one: the median of 3) and peak RSS (a fresh process checking one segment; this process, with
the engines and every set-up's recogniser). ``--dump FILE`` writes every item's checks.
Usage: .venv/bin/python bench/speech_check.py [--dump items.json] [--kinds correct,cut]
    [--voices zh-baker,af_heart] [--configs beam5:t2,beam1:t2]
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service import wiring  # noqa: E402
from service.adapters.asr import WhisperRecogniser, fold_simplified  # noqa: E402
from service.adapters.text.pinyin import load_lexicon, speech_tools  # noqa: E402
from service.config import get_settings  # noqa: E402
from service.domain.polyphones import read_chars  # noqa: E402
from service.domain.speech import Lexicon, SpokenText, Tools, front_end  # noqa: E402
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
# The 多音字 of the ZH lines and their two readings: a `reading` item is the line spoken with
# the other one (長上下文 zhǎng, 银行 xíng, 权重 chóng, 重新 zhòng, 执行 háng).
SWAP = {
    "行": {"hang2": "xing2", "xing2": "hang2"},
    "长": {"chang2": "zhang3", "zhang3": "chang2"},
    "重": {"zhong4": "chong2", "chong2": "zhong4"},
}
# The labelled set's voices: (language, engine, voice); kokoro's are the catalog's defaults.
VOICES = (
    ("zh", "fastspeech2", "zh-baker"),
    ("zh", "kokoro", "zf_xiaoyi"),
    ("en", "kokoro", "af_heart"),
    ("en", "espeak", "en-us"),
)
Audio = tuple[np.ndarray, int]


@dataclass
class Item:
    """One labelled segment's audio (``voice``: 'zh zh-baker') and, per recogniser set-up
    (``--configs``), its check."""

    language: str
    voice: str
    kind: str
    segment: int
    text: str
    audio: Audio
    checks: dict[str, SpeechCheck] = field(default_factory=dict)

    def row(self, config: str) -> dict[str, object]:
        check = self.checks[config]
        return {
            "config": config,
            "language": self.language,
            "voice": self.voice,
            "kind": self.kind,
            "segment": self.segment,
        } | (check.model_dump(exclude={"diff"}) | {"diff": [d.model_dump() for d in check.diff]})


def listener_of(config: str, tools: Tools) -> Listener:
    """'beam5:t2' -> Whisper with beam size 5 on 2 threads; ':plain' without the 多音字 test."""
    beam, threads, *rest = config.split(":")
    rec = WhisperRecogniser(threads=int(threads[1:]), beam_size=int(beam[4:]))
    return Listener(rec, lambda: tools, lambda s: {}, fold_simplified, polyphones=not rest)


class Bench:
    def __init__(self, configs: list[str]) -> None:
        self.settings = get_settings()
        self.engines = wiring.engines(self.settings)
        self.tools = speech_tools()
        self.lexicons = {
            lang: load_lexicon(ROOT / "voices" / "lexicon" / f"{lang}.tsv") for lang in ("zh", "en")
        }
        self.listeners = {c: listener_of(c, self.tools) for c in configs}

    def speak(
        self, text: str, language: str, engine_name: str, voice: str, lex: Lexicon, wrong: bool
    ) -> Audio | None:
        """The engine's audio of ``text``; ``wrong``: with each 多音字 of SWAP read the other
        way, behind the check's back (None: the text has none)."""
        engine = self.engines[engine_name]
        spoken = front_end(text, language, getattr(engine, "reader", "text"), lex, self.tools)
        said = misread(spoken) if wrong else spoken.text
        if said is None:
            return None
        speech = engine.synthesize(TtsRequest(said, voice, language))
        return speech.audio, speech.rate

    def items(self, language: str, engine: str, voice: str, kinds: set[str]) -> list[Item]:
        lex = self.lexicons[language]
        lines = ZH if language == "zh" else EN

        def say(text: str, wrong: bool = False) -> Audio:
            got = self.speak(text, language, engine, voice, lex, wrong)
            assert got is not None
            return got

        spoken = [say(t) for t in lines]
        out: list[Item] = []
        for i, text in enumerate(lines):
            audio, rate = spoken[i]
            variants: dict[str, Audio | None] = {
                "correct": (audio, rate),
                "swapped": spoken[(i + 1) % len(lines)],
                "truncated": (audio[: max(0, len(audio) - rate)], rate),
                "cut": _maybe(say, _cut(text)),
                "dropped": _maybe(say, _dropped(text, language)),
                "reading": self.speak(text, language, engine, voice, lex, True),
                "other": say(OTHER[language]) if i == 0 else None,
            }
            for kind, got in variants.items():
                if got is not None and kind in kinds:
                    out.append(Item(language, f"{language} {voice}", kind, i + 1, text, got))
        return out

    def judge(self, item: Item, config: str) -> None:
        listener = self.listeners[config]
        lex = self.lexicons[item.language]
        item.checks[config] = listener.judge(item.text, item.language, lex, *item.audio)


def misread(spoken: SpokenText) -> str | None:
    """The spoken (pinyin) text with the syllable of each SWAP character swapped."""
    said = spoken.text
    for r in reversed(read_chars(spoken)):
        if r.syllable in SWAP.get(r.char, {}):
            end = r.spot + len(r.syllable)
            said = said[: r.spot] + SWAP[r.char][r.syllable] + said[end:]
    return None if said == spoken.text else said


def _maybe(say: Callable[[str], Audio], text: str | None) -> Audio | None:
    return None if text is None else say(text)


def _cut(text: str) -> str | None:
    """The text with its longest clause left out (None: one clause)."""
    clauses = [c for c in re.split(r"(?<=[，,])\s*", text) if c]
    if len(clauses) < 2:
        return None
    longest = max(range(len(clauses)), key=lambda k: len(clauses[k]))
    return "".join(c for k, c in enumerate(clauses) if k != longest)


def _dropped(text: str, language: str) -> str | None:
    """The text with its longest English word left out (None: it has none, or is short)."""
    words = re.findall(r"[A-Za-z]{4,}", text)
    if not words or (language == "en" and len(text.split()) < 6):
        return None
    word = max(words, key=len)
    return text.replace(word, "", 1).replace("  ", " ")


def report(items: list[Item], config: str) -> None:
    print(f"\n== {config}")
    print(f"{'set':<16}{'kind':<11}{'n':>4}{'flagged':>9}{'rate':>8}  mean error rate")
    order = {v: k for k, v in enumerate(f"{lang} {voice}" for lang, _, voice in VOICES)}
    keys = sorted(
        {(i.voice, i.kind) for i in items}, key=lambda k: (order[k[0]], k[1] != "correct", k[1])
    )
    for voice, kind in keys:
        group = [i.checks[config] for i in items if (i.voice, i.kind) == (voice, kind)]
        done = [c for c in group if c.status == "checked"]
        hit = sum(c.flagged for c in done)
        mean = sum(c.error_rate or 0 for c in done) / max(1, len(done))
        share = hit / max(1, len(done))
        print(f"{voice:<16}{kind:<11}{len(done):>4}{hit:>9}{share:>8.0%}  {mean:.3f}")
    for voice in sorted({i.voice for i in items}, key=order.__getitem__):
        mine = [i for i in items if i.voice == voice]
        broken = [i.checks[config].flagged for i in mine if i.kind != "correct"]
        right = [i.checks[config].flagged for i in mine if i.kind == "correct"]
        recall, alarms = sum(broken) / max(1, len(broken)), sum(right) / max(1, len(right))
        print(
            f"{voice}: recall {sum(broken)}/{len(broken)} = {recall:.0%}; "
            f"false alarms {sum(right)}/{len(right)} = {alarms:.0%}"
        )
    done = [i.checks[config] for i in items if i.checks[config].status == "checked"]
    audio = sum(c.audio_seconds for c in done)
    cpu = sum(c.cpu_seconds for c in done)
    per = cpu / max(audio, 1e-9)
    print(f"cost: {cpu:.1f} CPU s for {audio:.1f} s of speech = {per:.3f} CPU s per s")


def agreement(items: list[Item], a: str, b: str) -> None:
    """How often two set-ups decide alike, and how far their error rates lie apart."""
    pairs = [(i.checks[a], i.checks[b]) for i in items if i.checks[a].status == "checked"]
    same = sum(x.flagged == y.flagged for x, y in pairs)
    gap = sum(abs((x.error_rate or 0) - (y.error_rate or 0)) for x, y in pairs) / max(1, len(pairs))
    print(f"{b} against {a}: same verdict {same}/{len(pairs)}, mean |error rate gap| {gap:.3f}")


def warm_load(item: Item) -> tuple[float, float]:
    """The recogniser's load in a fresh process (the model file in the page cache; the median
    of 3), and that process's peak RSS (VmHWM: ru_maxrss would carry this process's over the
    exec) after checking ``item``'s audio with the 多音字 test: what a worker pays."""
    with tempfile.TemporaryDirectory() as tmp:
        audio = Path(tmp) / "a.npy"
        np.save(audio, item.audio[0])
        code = (
            "import re, sys, time, numpy as np; sys.path.insert(0, 'bench'); "
            "from speech_check import Bench; b = Bench(['beam5:t2']); "
            "r = b.listeners['beam5:t2'].recogniser; "
            "t = time.perf_counter(); r.model(); print(time.perf_counter() - t); "
            f"b.listeners['beam5:t2'].judge({item.text!r}, {item.language!r}, "
            f"b.lexicons[{item.language!r}], np.load({str(audio)!r}), {item.audio[1]}); "
            "hwm = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()); "
            "print(int(hwm.group(1)) / 1024)"
        )
        runs = [
            subprocess.run(
                [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
            ).stdout.split()
            for _ in range(3)
        ]
    loads = sorted(float(load) for load, _ in runs)
    return loads[1], max(float(rss) for _, rss in runs)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--dump", help="write every item's check as JSON")
    p.add_argument("--kinds", default="correct,swapped,cut,truncated,dropped,reading,other")
    p.add_argument("--voices", default=",".join(v for _, _, v in VOICES))
    p.add_argument(
        "--configs",
        default="beam5:t2",
        help="recogniser set-ups judged side by side, turn about: beam<size>:t<threads>,...",
    )
    args = p.parse_args()
    kinds, configs = set(args.kinds.split(",")), args.configs.split(",")
    bench = Bench(configs)
    t0 = time.perf_counter()
    first = bench.listeners[configs[0]].recogniser
    assert isinstance(first, WhisperRecogniser)
    first.model()
    cold = time.perf_counter() - t0
    items = [
        item
        for lang, engine, voice in VOICES
        if voice in args.voices.split(",")
        for item in bench.items(lang, engine, voice, kinds)
    ]
    wall = dict.fromkeys(configs, 0.0)
    for item in items:  # turn about: the machine's load weighs on every set-up alike
        for config in configs:
            t = time.perf_counter()
            bench.judge(item, config)
            wall[config] += time.perf_counter() - t
    for config in configs:
        report(items, config)
        print(f"wall: {wall[config]:.1f} s (the check's latency, all segments)")
    for config in configs[1:]:
        agreement(items, configs[0], config)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    load, alone = warm_load(items[0])
    print(f"recogniser load: {cold:.2f} s in this process, {load:.2f} s warm in a fresh one")
    print(
        f"peak RSS: {alone:.0f} MB for the check alone (a fresh process: front-end, recogniser, "
        "one segment checked); "
        f"{rss:.0f} MB this process (engines, front-end, {len(configs)} recogniser(s))"
    )
    if args.dump:
        rows = [i.row(c) for c in configs for i in items]
        Path(args.dump).write_text(json.dumps(rows, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
