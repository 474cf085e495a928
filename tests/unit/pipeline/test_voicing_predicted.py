"""The fit with an engine that predicts its own length (kokoro's duration predictor): the
rate is found on predictions and the segment synthesized once, at that rate; an engine that
predicts nothing, or a prediction that fails, takes the synthesis passes as before."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from service.adapters.files.catalog import load_catalog
from service.adapters.tts.cache import CachedEngine
from service.domain.errors import EngineError
from service.domain.notices import Notice
from service.domain.spec_options import FitOptions
from service.domain.speech import Tools
from service.pipeline.voicing import SpokenSegment, Voicing
from service.ports import Speech, TtsRequest

ROOT = Path(__file__).resolve().parents[3]
CATALOG = load_catalog(ROOT / "voices" / "catalog.json")
TOOLS = Tools(segment=list, pinyin=lambda w: ["ma1"] * len(w), homophone=lambda _s: None)
RATE = 1000


class Paced:
    """Says 4000 ms of speech at rate 1, faster or slower: 4000 / rate**k ms (kokoro's k is
    near 1; at 0.7 the fit's first guess, k = 1, misses)."""

    name = "kokoro"
    version = "test"
    reader = "pinyin"
    min_rate, max_rate = 0.5, 2.0

    def __init__(self, k: float = 1.0) -> None:
        self.rates: list[float] = []  # every synthesis, by its rate
        self.k = k

    def length(self, rate: float) -> int:
        return round(4000 / float(rate**self.k))

    def synthesize(self, request: TtsRequest) -> Speech:
        self.rates.append(request.rate)
        return Speech(np.zeros(self.length(request.rate), np.float32), RATE)


class Predicting(Paced):
    """Predicts its length without synthesizing: ``off`` ms wrong, or failing (``broken``)."""

    def __init__(self, off: int = 0, broken: bool = False, k: float = 1.0) -> None:
        super().__init__(k)
        self.predictions: list[float] = []
        self.off, self.broken = off, broken

    def predict_ms(self, request: TtsRequest) -> int:
        if self.broken:
            raise EngineError(self.name, "no predictor in the pack")
        self.predictions.append(request.rate)
        return self.length(request.rate) + self.off


def fit(
    engine: Paced | CachedEngine, target_ms: int, chain: tuple[str, ...] = ("zf_xiaoyi",)
) -> tuple[float, int, list[Notice]]:
    """(the native rate, the natural length, warnings) of one segment at ``target_ms``, cast
    as ``chain`` (voices: the first, then its fallbacks)."""
    voicing = Voicing({"kokoro": engine}, CATALOG)
    casting = CATALOG.casting(list(chain))
    speaker = SpokenSegment("妈妈妈", "zh", {}, TOOLS, [(0, 3)], 16)
    warnings: list[Notice] = []
    voiced = voicing.native_fit(casting, speaker, target_ms, FitOptions(), warnings, {})
    return voiced.rate, voiced.natural_ms, warnings


def test_a_predicting_engine_synthesizes_once_at_the_rate_its_predictions_give() -> None:
    engine = Predicting()
    rate, natural, warnings = fit(engine, target_ms=3200)  # 4000 ms of speech: faster
    assert len(engine.rates) == 1 and engine.rates[0] == rate and rate > 1.2
    assert 0.97 * 3200 <= engine.length(rate) <= 3200  # landed in the band
    assert natural == 4000 and len(engine.predictions) >= 2 and warnings == []


def test_behind_the_tts_cache_too(tmp_path: Path) -> None:
    """The pipeline's engines are cached ones: the prediction passes through, and a second
    fit of the same segment is one cache hit at the same rate."""
    engine = Predicting()
    first, _, _ = fit(CachedEngine(engine, tmp_path), target_ms=3200)
    again, _, _ = fit(CachedEngine(engine, tmp_path), target_ms=3200)
    assert engine.rates == [first] and again == first
    assert CachedEngine(Paced(), tmp_path).predict_ms is None


def test_a_prediction_a_little_off_costs_one_more_synthesis_at_most() -> None:
    engine = Predicting(off=-200)  # predicts 5 % short: the synthesis is too long
    rate, _, _ = fit(engine, target_ms=3200)
    assert len(engine.rates) == 2 and 0.97 * 3200 <= engine.length(rate) <= 3200


def test_fallen_back_to_it_the_fit_takes_one_synthesis_more_not_the_passes() -> None:
    """Under auto, offline: edge is not there, kokoro answers the natural-rate synthesis; its
    predictions then give the rate, said once (the passes took three here)."""
    engine = Predicting(k=0.7)
    rate, natural, warnings = fit(engine, 3200, chain=("zh-CN-XiaoyiNeural", "zf_xiaoyi"))
    assert engine.rates == [1.0, rate] and 0.97 * 3200 <= engine.length(rate) <= 3200
    assert natural == 4000 and [w.code for w in warnings] == ["engine.fallback"]
    passes = Paced(k=0.7)
    fit(passes, 3200, chain=("zh-CN-XiaoyiNeural", "zf_xiaoyi"))
    assert len(passes.rates) == 3


def test_without_predictions_the_fit_synthesizes_its_way_there() -> None:
    for engine in (Paced(), Predicting(broken=True)):
        rate, natural, _ = fit(engine, target_ms=3200)
        assert engine.rates[0] == 1.0 and len(engine.rates) >= 2  # natural rate first
        assert natural == 4000 and 0.97 * 3200 <= engine.length(rate) <= 3200
