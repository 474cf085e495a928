"""TTS engines behind the TtsEngine port, each wrapped in the shared content-addressed cache."""

from __future__ import annotations

from service.config import Settings
from service.ports import TtsEngine


def available_engines(settings: Settings, use_redis: bool | None = None) -> dict[str, TtsEngine]:
    """espeak-ng always; edge-tts with a fleet-wide guard in Redis when a Redis is configured
    (the service), an in-process guard otherwise (the one-process CLI); the neural fastspeech2
    voice only once its pack is installed in the data dir (opt-in: non-commercial licence)."""
    from service.adapters.segmenter import tagged_words
    from service.adapters.tts.cache import CachedEngine
    from service.adapters.tts.edge import EdgeConfig, EdgeEngine
    from service.adapters.tts.espeak import EspeakEngine
    from service.adapters.tts.guard import Guard, LocalGuard, RedisGuard

    guard: Guard
    if settings.redis_url if use_redis is None else use_redis:
        import redis

        client = redis.Redis.from_url(settings.broker_url, decode_responses=True, socket_timeout=5)
        guard = RedisGuard(
            client,
            "edge",
            settings.edge_max_connections,
            settings.edge_breaker_failures,
            settings.edge_breaker_cooldown,
        )
    else:
        guard = LocalGuard(
            settings.edge_max_connections,
            settings.edge_breaker_failures,
            settings.edge_breaker_cooldown,
        )
    edge = EdgeEngine(
        EdgeConfig(
            wss_url=settings.edge_wss_url,
            connect_timeout=settings.edge_connect_timeout,
            receive_timeout=settings.edge_receive_timeout,
            attempts=settings.edge_attempts,
            backoff=settings.edge_backoff,
        ),
        guard,
    )
    espeak = EspeakEngine(segment=tagged_words)
    engines: list[TtsEngine] = [espeak, edge]
    from service.voicepacks import zh_baker

    pack = zh_baker.installed(settings.data_dir)
    if pack is not None:
        from service.adapters.tts.fastspeech2 import FastSpeech2Engine

        engines.append(FastSpeech2Engine(pack, english=espeak))  # models load on first use
    if settings.tts_cache:
        return {e.name: CachedEngine(e, settings.cache_dir) for e in engines}
    return {e.name: e for e in engines}
