"""The edge-tts engine against a local server that speaks its protocol (devtools/edge_server.py)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from devtools.edge_server import EdgeServer
from service import wiring
from service.adapters.tts.cache import CachedEngine
from service.adapters.tts.edge import EdgeConfig, EdgeEngine
from service.adapters.tts.guard import LocalGuard
from service.config import Settings
from service.domain.errors import EngineError
from service.domain.script import parse_script
from service.domain.spec import RenderOptions
from service.ports import TtsRequest
from tests.support.helpers import check_render

TEXT = "代码 Agent 的 RL 几乎都用可执行测试当奖励源，再叠 GRPO 做组内相对策略优化。"
# For the tests of retries, the breaker and endpoints, where what is said does not matter:
# every request costs the local server an espeak-ng synthesis and an MP3 encode, the client a
# decode, per second of speech.
BRIEF = "代码 Agent 用 GRPO 训练。"


@pytest.fixture(scope="module")
def server() -> Iterator[EdgeServer]:
    s = EdgeServer().start()  # its "delay" is silent until the client gives up
    yield s
    s.stop()


def engine(server: EdgeServer, receive_timeout: float) -> EdgeEngine:
    return EdgeEngine(
        EdgeConfig(
            wss_url=server.url,
            connect_timeout=30,
            receive_timeout=receive_timeout,
            attempts=3,
            backoff=0.05,
        ),
        LocalGuard(limit=8, failures=3, cooldown=1.0, clock=CLOCK),
    )


@pytest.fixture
def edge(server: EdgeServer) -> EdgeEngine:
    """An engine whose timeouts are hang guards: the local server's first answer to a text
    (an espeak-ng synthesis and an MP3 encode) can take seconds on a loaded machine."""
    server.reset()
    return engine(server, receive_timeout=30)


class Clock:
    """The breaker's clock, moved by the test instead of waited out."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


CLOCK = Clock()


def request(text: str = TEXT, rate: float = 1.0) -> TtsRequest:
    return TtsRequest(text, "zh-CN-YunxiNeural", "zh", rate, phrase_chars=16)


def test_synthesis_trims_silence_and_maps_word_boundaries(
    edge: EdgeEngine, server: EdgeServer
) -> None:
    speech = edge.synthesize(request())
    assert server.requests == 1 and speech.rate == 24000
    first, last = speech.boundaries[0], speech.boundaries[-1]
    assert TEXT[first.start : first.end] == "代码 Agent 的 RL"
    assert first.start_ms <= 30  # the 120 ms of leading silence is gone
    assert abs(last.end_ms - speech.duration_ms) <= 60  # and the 1.2 s of trailing silence
    assert [b.start for b in speech.boundaries] == sorted(b.start for b in speech.boundaries)


def test_rate_is_sent_as_percent(edge: EdgeEngine) -> None:
    slow = edge.synthesize(request(rate=1.0)).duration_ms
    fast = edge.synthesize(request(rate=1.5)).duration_ms
    assert 1.3 < slow / fast < 1.7


@pytest.mark.parametrize("fault", ["403", "429", "503", "close", "delay", "truncate"])
def test_each_fault_is_retried_then_succeeds(
    edge: EdgeEngine, server: EdgeServer, fault: str, caplog: pytest.LogCaptureFixture
) -> None:
    edge.synthesize(request(BRIEF))  # the server's answer made: the retry is answered at once
    server.reset()
    server.faults.append(fault)
    # the held connection ends by the client's receive timeout: a short one keeps the test short
    # (the retry's answer is made already, so it is sent at once)
    tried = engine(server, receive_timeout=2) if fault == "delay" else edge
    with caplog.at_level(logging.WARNING, logger="narrate.tts.edge"):
        speech = tried.synthesize(request(BRIEF))
    assert speech.duration_ms > 1000 and speech.boundaries
    assert server.requests == 2
    retried = [r for r in caplog.records if r.name == "narrate.tts.edge"]
    # edge-tts answers a 403 itself (it corrects its clock skew and reconnects once).
    assert len(retried) == (fault != "403")
    assert all(r.getMessage().startswith("edge attempt 1 failed") for r in retried)


def test_other_errors_fail_fast(server: EdgeServer) -> None:
    server.reset()
    engine = EdgeEngine(
        EdgeConfig(wss_url="ws://127.0.0.1:9/nothing?x=1", attempts=3), LocalGuard(8, 3, 1.0)
    )
    t = time.monotonic()
    with pytest.raises(EngineError, match="gave up after 1 attempt"):
        engine.synthesize(request(BRIEF))
    assert time.monotonic() - t < 5


def test_each_engine_connects_to_its_own_endpoint_and_the_process_keeps_edges(
    edge: EdgeEngine, server: EdgeServer
) -> None:
    """The endpoint is per engine: one on the local server, one on a dead port, in the same
    process, each reaches its own; edge-tts's module global stays Microsoft's."""
    import edge_tts.communicate

    before = edge_tts.communicate.WSS_URL  # type: ignore[attr-defined]  # not re-exported
    dead = EdgeEngine(
        EdgeConfig(wss_url="ws://127.0.0.1:9/nothing?x=1", attempts=1), LocalGuard(8, 3, 1.0)
    )
    with pytest.raises(EngineError, match="cannot reach"):
        dead.synthesize(request(BRIEF))
    assert server.requests == 0  # the dead engine never reached the local server
    # (a loaded host may time out a slow answer and ask again: at least one request)
    assert edge.synthesize(request(BRIEF)).boundaries and server.requests >= 1
    assert before == edge_tts.communicate.WSS_URL and "speech.platform.bing.com" in before  # type: ignore[attr-defined]


def test_breaker_opens_then_half_open_probe_closes_it(edge: EdgeEngine, server: EdgeServer) -> None:
    server.always = "503"
    with pytest.raises(EngineError, match="HTTP 503"):
        edge.synthesize(request(BRIEF))
    assert server.requests == 3  # three attempts, then the breaker is open
    with pytest.raises(EngineError, match="circuit breaker open"):
        edge.synthesize(request(BRIEF))
    assert server.requests == 3  # while open, nobody calls edge
    CLOCK.now += 1.1  # past the cool-down
    server.always = None
    assert edge.synthesize(request(BRIEF)).boundaries  # the half-open probe succeeds...
    assert edge.synthesize(request(BRIEF)).boundaries  # ...and the breaker is closed again
    assert server.requests == 5


def test_cache_hit_makes_no_request(edge: EdgeEngine, server: EdgeServer, tmp_path: Path) -> None:
    cached = CachedEngine(edge, tmp_path)
    a = cached.synthesize(request("缓存命中的时候不应该再请求服务。"))
    b = cached.synthesize(request("缓存命中的时候不应该再请求服务。"))
    assert server.requests == 1 and (cached.hits, cached.misses) == (1, 1)
    assert (a.audio == b.audio).all() and a.boundaries == b.boundaries
    cached.synthesize(request("缓存命中的时候不应该再请求服务。", rate=1.2))
    assert server.requests == 2  # another rate is another key


def render(
    server: EdgeServer, tmp_path: Path, script: str, engine: str, **settings: Any
) -> dict[str, Any]:
    settings = {"edge_receive_timeout": 30, **settings}  # a hang guard (see ``edge``)
    s = Settings(
        data_dir=tmp_path / "data",
        edge_wss_url=server.url,
        edge_backoff=0.05,
        **settings,
    )
    pipeline = wiring.pipeline(s)
    plan = pipeline.door.plan(parse_script(script), RenderOptions(engine=engine))
    return pipeline.render(plan, tmp_path / "out").manifest.model_dump()


SCRIPT = """[段 1 · 12 秒] 代码 Agent 的 RL 几乎都用可执行测试当奖励源,再叠 GRPO 做组内优化。

[段 2 · 12 秒] 评分员对通过的轨迹做相对排序;低排名降权,按比例 rescale,保持优势总和不变。

字幕层叠加限定语:abstract 未给出具体百分点;仓库未明确。
"""


def test_render_with_edge_two_pass_within_3_percent(server: EdgeServer, tmp_path: Path) -> None:
    server.reset()
    manifest = render(server, tmp_path, SCRIPT, "edge")
    segs = manifest["segments"]
    assert [s["engine"] for s in segs] == ["edge", "edge"]
    for s in segs:
        assert s["native_rate"] != 1.0
        assert 0.97 <= s["stretch_ratio"] <= 1.03, s
    first = server.requests
    assert first >= 4  # two passes per segment at least
    check_render(tmp_path / "out", [12.0, 12.0], (12.0, 24.0))
    # A re-run of the same job makes zero edge requests: every pass is cached.
    render(server, tmp_path, SCRIPT, "edge")
    assert server.requests == first


def test_auto_falls_back_to_espeak_and_records_it(server: EdgeServer, tmp_path: Path) -> None:
    server.reset()
    server.always = "429"
    manifest = render(
        server, tmp_path, SCRIPT.replace("评分员", "打分员"), "auto", edge_breaker_failures=3
    )
    assert [s["engine"] for s in manifest["segments"]] == ["espeak", "espeak"]
    assert any("fell back to espeak" in w["message"] for w in manifest["warnings"])
    assert server.requests <= 3 + 1  # the breaker stopped the second segment's calls


def test_edge_that_never_answers_times_out_then_falls_back(
    server: EdgeServer, tmp_path: Path
) -> None:
    server.reset()
    server.always = "delay"  # silent until the client's 1 s receive timeout gives up, every time
    t = time.monotonic()
    manifest = render(
        server, tmp_path, "[段 1 · 3 秒] 服务一直不回答。", "auto", edge_receive_timeout=1
    )
    assert [s["engine"] for s in manifest["segments"]] == ["espeak"]
    assert any("timed out" in w["message"] for w in manifest["warnings"])
    assert time.monotonic() - t < 150  # a hang guard: inside the task's soft time limit (300 s)


def test_a_failing_rate_pass_restarts_the_segment_on_the_fallback(
    server: EdgeServer, tmp_path: Path
) -> None:
    server.reset()
    server.faults.extend([None, "429", "429", "429"])  # the natural pass works, the rate pass never
    manifest = render(server, tmp_path, "[段 1 · 3 秒] 第一遍成功,第二遍失败的一段话。", "auto")
    seg = manifest["segments"][0]
    assert (
        seg["engine"] == "espeak" and seg["voice"] == "cmn-latn-pinyin"
    )  # one engine for the whole segment
    assert any("fell back to espeak" in w["message"] for w in manifest["warnings"])
    assert server.requests == 4


def test_explicit_edge_fails_with_a_clear_error(server: EdgeServer, tmp_path: Path) -> None:
    server.reset()
    server.always = "429"
    with pytest.raises(EngineError, match="edge: gave up after 3 attempt"):
        render(server, tmp_path, "[段 1 · 3 秒] 明确要求用 edge 引擎。", "edge")


def test_offline_is_one_warning_in_words_once_per_job(tmp_path: Path) -> None:
    """Edge unreachable for every segment (a closed port behind wss://, as offline): the
    render says so once, in words, naming the segments espeak spoke; each segment's own
    record still names its engine. Before: one line per segment, each with aiohttp's
    `ssl:<ssl.SSLContext object at 0x...>`."""
    script = tmp_path / "three.md"
    script.write_text(
        "[段 1 · 3 秒] 第一段。\n\n[段 2 · 3 秒] 第二段。\n\n[段 3 · 3 秒] 第三段。",
        encoding="utf-8",
    )
    env = {"NARRATE_EDGE_WSS_URL": "wss://127.0.0.1:9/edge", "NARRATE_DATA_DIR": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "service.cli.main", "render", str(script), "--out", str(tmp_path / "o"),
         "--engine", "auto"],
        capture_output=True, text=True, timeout=120, env={**os.environ, **env},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    want = (
        "edge: gave up after 1 attempt(s): cannot reach the service (connection refused); "
        "kokoro is not installed (run: narrate voices install kokoro); "
        "segments 1-3 fell back to espeak voice cmn-latn-pinyin"
    )
    assert said == [f"warning: {want}"]
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["warnings"] == [{"code": "engine.fallback", "message": want, "segment": None}]
    assert [s["engine"] for s in manifest["segments"]] == ["espeak"] * 3
