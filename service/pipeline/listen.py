"""The speech check: each fitted segment transcribed offline (the Recogniser port) and compared
with what narrate meant it to say (service/domain/speech_compare.py); over the language's
threshold, the warning ``speech.mismatch`` naming the words, and what ``on_mismatch`` asks:
warn, retry the segment with the next voice of its chain (or the same voice slower) and keep
the better reading, or fail the job (at finalize, naming every flagged segment).

What is not checked, and why (recorded as ``skipped`` with the reason, never a false alarm):
- espeak-ng's segments: its Mandarin (and much of its English) is not intelligible to the
  recogniser; every espeak segment would be flagged, so the check says so instead.
- a language other than zh and en, and a segment with nothing to say (only punctuation).
The recogniser is loaded only when a segment is actually transcribed."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, Field

from service import audio as dsp
from service.domain.errors import SpeechMismatchError
from service.domain.fields import MIN_RATE_PERCENT, rate_multiplier
from service.domain.notices import Notice, segment_ranges, warning
from service.domain.polyphones import forced_texts, heard_at, misread, polyphones
from service.domain.script_match import Share, Timed, match_script, timed_pieces
from service.domain.speech import Lexicon, SpokenText, Tools, front_end
from service.domain.speech_compare import (
    THRESHOLDS,
    Difference,
    SpeechCheck,
    compare,
    flagged,
    named,
    skipped,
    units_of,
)
from service.domain.units import ms_to_samples
from service.domain.voices import Catalog
from service.pipeline.results import JobPlan, SegmentResult
from service.ports import Workspace
from service.ports.asr import ForcedScorer, Recogniser

log = logging.getLogger("narrate.listen")

# A whole-script take is split by script matching only when at least this share of the
# syllables or words the recogniser heard are the script's, as written (of what it heard, not
# of the script: a take that skips lines is still understood); under it, it did not understand
# the voice (bench/takes.py: espeak-ng's Mandarin) and the take is split by the reference and
# DTW.
MATCHED_ENOUGH = 0.5
UNCHECKABLE = {"espeak": "engine not checkable (espeak-ng is not intelligible to the recogniser)"}
MISMATCH = "speech.mismatch"


@dataclass
class Listener:
    """Checks fitted segments. ``recogniser`` None: the machine has none wired (the check is
    then recorded as skipped); ``fold`` turns the transcript's Traditional characters into
    Simplified ones (OpenCC t2s)."""

    recogniser: Recogniser | None
    tools: Callable[[], Tools]
    lexicon: Callable[[JobPlan], Lexicon]
    fold: Callable[[str], str]
    default_on: bool = True
    polyphones: bool = True  # the 多音字 test, where the recogniser can score (ForcedScorer)

    def wanted(self, plan: JobPlan) -> bool:
        asked = plan.options.check_speech
        return self.default_on if asked is None else asked

    def check(
        self, plan: JobPlan, index: int, result: SegmentResult, work: Workspace
    ) -> SpeechCheck:
        """The check of one fitted segment (its audio read back from the workspace)."""
        spec = plan.spec
        if self.recogniser is None:
            return skipped("no recogniser on this machine")
        if result.engine in UNCHECKABLE:
            return skipped(UNCHECKABLE[result.engine])
        if spec.language not in THRESHOLDS:
            return skipped(f"language {spec.language!r} not checkable")
        audio, rate = dsp.read_wav(work.local(result.audio))
        audio = audio[: ms_to_samples(result.speech_ms, rate)]
        text, lexicon = spec.segments[index].text, self.lexicon(plan)
        return self.judge(text, spec.language, lexicon, audio, rate)

    def judge(
        self, text: str, language: str, lexicon: Lexicon, audio: dsp.Audio, rate: int
    ) -> SpeechCheck:
        """``audio`` transcribed and compared with ``text`` read with ``lexicon`` (the bench
        calls this too: what it measures is what a render does)."""
        assert self.recogniser is not None
        heard = self.recogniser.transcribe(audio, rate, language)
        tools = self.tools()
        meant = front_end(text, language, "pinyin", lexicon, tools)
        said = front_end(self.fold(heard.text), language, "pinyin", {}, tools)
        comparison = compare(meant, said, language)
        if comparison.units == 0:
            return skipped("nothing to say")
        cpu0 = time.process_time()
        wrong = self._misread(meant, said, language, audio, rate)
        return SpeechCheck(
            status="checked",
            recogniser=self.recogniser.name,
            transcript=heard.text,
            heard=said.source,
            measure=comparison.measure,
            error_rate=comparison.error_rate,
            threshold=THRESHOLDS[language],
            flagged=flagged(comparison, language) or bool(wrong),
            diff=comparison.diff + wrong,
            audio_seconds=heard.audio_seconds,
            cpu_seconds=round(heard.cpu_seconds + time.process_time() - cpu0, 3),
        )

    def _misread(
        self, meant: SpokenText, said: SpokenText, language: str, audio: dsp.Audio, rate: int
    ) -> list[Difference]:
        """The 多音字 test (service/domain/polyphones.py): each tested character the transcript
        writes as meant is scored read each way; one heard as another reading is named too."""
        scorer = self.recogniser
        if not self.polyphones or language != "zh" or not isinstance(scorer, ForcedScorer):
            return []
        if len(audio) > scorer.score_seconds * rate:
            return []  # one window only: a long segment is left to the plain comparison
        out = []
        for p in polyphones(meant):
            found = heard_at(meant, said, p.at)
            if found is None:
                continue
            spot, key = found
            if said.source[spot] != p.char:  # another glyph: its reading is what was heard
                if key in {o[:-1] for o in p.others}:
                    got = f"{said.source[spot]} ({key})"
                    out.append(Difference(kind="changed", said=f"{p.char} ({p.meant})", heard=got))
                continue
            # The same glyph: its reading in ``said`` is only the front-end's guess (read
            # without the lexicon), so the audio decides, through the forced transcripts.
            texts = forced_texts(said.source, spot, p, self.tools().homophone)
            if texts is None:
                continue
            scores = scorer.score(audio, rate, language, [t for _, t in texts])
            if (d := misread(p, [r for r, _ in texts], scores)) is not None:
                out.append(d)
        return out

    def split_take(self, plan: JobPlan, audio: dsp.Audio, rate: int) -> list[Share] | None:
        """A whole-script take split among the segments by script matching (文稿匹配,
        service/domain/script_match.py), when the job's check is on. None: no recogniser, a
        language it is not set up for, or too little of the script heard as written."""
        spec = plan.spec
        if not self.wanted(plan) or self.recogniser is None or spec.language not in THRESHOLDS:
            return None
        heard = self.recogniser.transcribe(audio, rate, spec.language, timed=True)
        words = [self.fold(w.text) for w in heard.words]
        spans = zip(timed_pieces(words), heard.words, strict=True)
        pieces = [Timed(a, b, w.start_ms, w.end_ms) for (a, b), w in spans]
        tools, lexicon = self.tools(), self.lexicon(plan)
        meant = [front_end(s.text, spec.language, "pinyin", lexicon, tools) for s in spec.segments]
        said = front_end("".join(words), spec.language, "pinyin", {}, tools)
        shares = match_script(meant, said, pieces)
        heard_units = len(units_of(said))  # a skipped line must not count against the voice
        heard_right = sum(s.matched for s in shares) / heard_units if heard_units else 0.0
        log.info("whole take: %.0f%% of the words heard are the script's", heard_right * 100)
        return shares if heard_right >= MATCHED_ENOUGH else None


def mismatch_notice(number: int, check: SpeechCheck) -> Notice:
    rate = f"{(check.error_rate or 0) * 100:.0f}%"
    said = f"segment {number}: the speech check heard something else ({check.measure} {rate}): "
    return warning(MISMATCH, said + named(check.diff), number)


def with_check(result: SegmentResult, check: SpeechCheck) -> SegmentResult:
    """The result with its check, and the warning when it is flagged."""
    notes = [mismatch_notice(result.index + 1, check)] if check.flagged else []
    return result.model_copy(update={"speech_check": check, "warnings": result.warnings + notes})


def better(a: SegmentResult, b: SegmentResult) -> bool:
    """``a`` is a better reading than ``b``: checked with a lower error rate."""
    ra = a.speech_check.error_rate if a.speech_check else None
    rb = b.speech_check.error_rate if b.speech_check else None
    return ra is not None and (rb is None or ra < rb)


def check_failed(plan: JobPlan, results: list[SegmentResult]) -> None:
    """options on_mismatch fail: the job fails naming every flagged segment."""
    if plan.options.on_mismatch != "fail":
        return
    flagged = [r.index + 1 for r in results if r.speech_check and r.speech_check.flagged]
    if flagged:
        words = "; ".join(
            f"{n}: {named(results[n - 1].speech_check.diff, 2)}"  # type: ignore[union-attr]
            for n in flagged[:5]
        )
        raise SpeechMismatchError(
            f"the speech check flagged {segment_ranges(flagged)} (on_mismatch fail): {words}",
            tuple(flagged),
        )


class SpeechCheckSummary(BaseModel):
    """The speech check over the job: what it cost (the one figure of the manifest that is
    measured, not computed: a re-run writes other CPU seconds), what it flagged."""

    recogniser: str | None
    on_mismatch: str
    checked: int = Field(description="segments transcribed and compared")
    skipped: int = Field(description="segments not checkable (espeak-ng, a language, silence)")
    flagged: list[int] = Field(description="1-based segments over their threshold")
    error_rate: float | None = Field(None, description="the checked segments' mean")
    audio_seconds: float
    cpu_seconds: float = Field(description="the recogniser's CPU time, all segments")


def speech_summary(plan: JobPlan, results: list[SegmentResult]) -> SpeechCheckSummary | None:
    checks = [(r.index + 1, r.speech_check) for r in results if r.speech_check is not None]
    if not checks:
        return None
    done = [(n, c) for n, c in checks if c.status == "checked"]
    rates = [c.error_rate for _, c in done if c.error_rate is not None]
    return SpeechCheckSummary(
        recogniser=next((c.recogniser for _, c in done), None),
        on_mismatch=plan.options.on_mismatch,
        checked=len(done),
        skipped=len(checks) - len(done),
        flagged=[n for n, c in done if c.flagged],
        error_rate=round(sum(rates) / len(rates), 4) if rates else None,
        audio_seconds=round(sum(c.audio_seconds for _, c in done), 3),
        cpu_seconds=round(sum(c.cpu_seconds for _, c in done), 3),
    )


Render = Callable[[JobPlan, int, Workspace], SegmentResult]
SLOWER = 0.85  # a retry on the same voice: its starting rate this much slower


def render_checked(
    render: Render, listener: Listener, catalog: Catalog, plan: JobPlan, index: int, work: Workspace
) -> SegmentResult:
    """Render segment ``index`` (``render``), then check it when the job wants the check;
    on_mismatch retry re-renders a flagged synthesis once and keeps the better reading."""
    result = render(plan, index, work)
    if not listener.wanted(plan):
        return result
    result = with_check(result, listener.check(plan, index, result, work))
    flagged = result.speech_check is not None and result.speech_check.flagged
    if flagged and plan.options.on_mismatch == "retry" and result.take is None:
        result = _retry(render, listener, catalog, plan, index, work, result)
    return result


def retry_plan(plan: JobPlan, index: int, first: SegmentResult, catalog: Catalog) -> JobPlan:
    """The plan a retry renders with: the next checkable voice of the segment's chain after
    the one that spoke, else the same voice at a slower starting rate."""
    chain = plan.voices[index]
    after = chain[chain.index(first.voice) + 1 :] if first.voice in chain else chain[1:]
    rest = tuple(v for v in after if catalog.get(v).engine not in UNCHECKABLE)
    if rest:
        voices = [*plan.voices[:index], rest, *plan.voices[index + 1 :]]
        return plan.model_copy(update={"voices": voices})
    seg = plan.spec.segments[index]
    percent = max(-MIN_RATE_PERCENT, round((rate_multiplier(seg.rate) * SLOWER - 1) * 100))
    segments = list(plan.spec.segments)
    segments[index] = seg.model_copy(update={"rate": f"{percent:+d}%"})
    voices = [*plan.voices[:index], (first.voice,), *plan.voices[index + 1 :]]
    spec = plan.spec.model_copy(update={"segments": segments})
    return plan.model_copy(update={"spec": spec, "voices": voices})


def _tried(r: SegmentResult) -> str:
    rate = r.speech_check.error_rate if r.speech_check else None
    return f"{r.engine}/{r.voice}@{r.native_rate:g}: {rate}"


def _retry(
    render: Render,
    listener: Listener,
    catalog: Catalog,
    plan: JobPlan,
    index: int,
    work: Workspace,
    first: SegmentResult,
) -> SegmentResult:
    kept = work.local(first.audio).read_bytes()  # the retry writes the same file
    again = retry_plan(plan, index, first, catalog)
    second = render(again, index, work)
    second = with_check(second, listener.check(again, index, second, work))
    tries = [_tried(first), _tried(second)]
    log.info("segment %d: speech check retry: %s", index + 1, "; ".join(tries))
    if better(second, first):
        winner = second
    else:
        winner = first
        work.local(first.audio).write_bytes(kept)
        work.keep(first.audio)
    check = winner.speech_check.model_copy(update={"tries": tries})  # type: ignore[union-attr]
    return winner.model_copy(update={"speech_check": check})
