"""The voice catalog and how a job's engine and voice resolve (pure: the file is read and
written by service/adapters/files/catalog.py)."""

from __future__ import annotations

import difflib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from service.domain.errors import InputError, VoiceError
from service.domain.spec import JobSpec
from service.domain.wire import JsonObject

OFFLINE = "espeak"
# The opt-in neural offline voice: used only once installed (its licence is non-commercial).
NEURAL = "fastspeech2"
NEURAL_INSTALL = "narrate voices install zh-baker --accept-license"
# Kokoro (Apache-2.0): offline, the voice ``auto`` falls back to before espeak-ng; its pack is
# installed by the set-up, and a machine without it says so when it falls through.
KOKORO = "kokoro"
KOKORO_INSTALL = "narrate voices install kokoro"
INSTALL = {NEURAL: NEURAL_INSTALL, KOKORO: KOKORO_INSTALL}


@dataclass(frozen=True, slots=True)
class Voice:
    id: str
    engine: str
    language: str
    gender: str = ""
    default: bool = False
    rate: str = "+0%"
    pitch: str = "+0Hz"
    words_per_minute: int = 175
    locale: str = ""  # zh-CN, zh-CN-liaoning, en-GB...: the language is its first part
    name: str = ""  # the engine's friendly name, when known
    note: str = ""  # provenance a user should know before publishing with the voice

    def speaks(self, language: str) -> bool:
        """``zh`` matches zh-CN/zh-TW/zh-HK voices; ``zh-TW`` matches only those."""
        language = language.lower()
        return (
            self.language == language
            or self.locale.lower().startswith(language + "-")
            or (self.locale.lower() == language)
        )


@dataclass(frozen=True, slots=True)
class Casting:
    """Who speaks a job: the engine and voice to try first, and the offline fallback."""

    engine: str
    voice: Voice
    fallback: Voice | None
    more: tuple[Voice, ...] = ()  # fallbacks after ``fallback``, in order

    def fall_back(self) -> Casting:
        """The casting that tries ``fallback`` next (then the rest of the chain)."""
        assert self.fallback is not None
        fb = self.fallback
        return Casting(fb.engine, fb, self.more[0] if self.more else None, self.more[1:])

    @property
    def chain(self) -> tuple[str, ...]:
        """The voices to try, in order, by id: what a job's plan keeps (Catalog.casting)."""
        rest = ([self.fallback] if self.fallback else []) + list(self.more)
        return (self.voice.id, *(v.id for v in rest))

    def after(self, engine: str) -> Casting | None:
        """The rest of the chain after the voice of ``engine`` (None: nothing after it)."""
        chain = [self.voice, *([self.fallback] if self.fallback else []), *self.more]
        for i, v in enumerate(chain):
            if v.engine == engine and i + 1 < len(chain):
                rest = chain[i + 1 :]
                return Casting(
                    rest[0].engine, rest[0], rest[1] if len(rest) > 1 else None, tuple(rest[2:])
                )
        return None


class VoiceEntry(TypedDict):
    """A voice as the catalog file (voices/catalog.json) lists it: Voice's fields."""

    id: str
    engine: str
    language: str
    gender: NotRequired[str]
    default: NotRequired[bool]
    rate: NotRequired[str]
    pitch: NotRequired[str]
    words_per_minute: NotRequired[int]
    locale: NotRequired[str]
    name: NotRequired[str]
    note: NotRequired[str]


class CatalogData(TypedDict):
    source: NotRequired[dict[str, str]]  # where each engine's voices come from
    voices: list[VoiceEntry]


class Catalog:
    def __init__(self, voices: list[Voice]) -> None:
        self.voices = voices
        self.by_id = {v.id: v for v in voices}

    @classmethod
    def from_data(cls, data: CatalogData) -> Catalog:
        return cls([Voice(**v) for v in data["voices"]])

    def filter(self, language: str | None = None, engine: str | None = None) -> list[Voice]:
        return [
            v
            for v in self.voices
            if (not language or v.speaks(language)) and (not engine or v.engine == engine)
        ]

    def default(self, engine: str, language: str) -> Voice:
        return next(
            v for v in self.voices if v.engine == engine and v.language == language and v.default
        )

    def get(self, voice_id: str, field: str = "") -> Voice:
        if voice_id in self.by_id:
            return self.by_id[voice_id]
        lowered = {k.lower(): k for k in self.by_id}
        if voice_id.lower() in lowered:
            return self.by_id[lowered[voice_id.lower()]]
        near = difflib.get_close_matches(voice_id.lower(), list(lowered), n=3, cutoff=0.5)
        raise VoiceError(voice_id, tuple(lowered[n] for n in near), field)

    def casting(self, chain: Sequence[str]) -> Casting:
        """The casting a plan's voice chain (``Casting.chain``) stands for."""
        first, *rest = (self.by_id[v] for v in chain)
        return Casting(first.engine, first, rest[0] if rest else None, tuple(rest[1:]))

    def _voice(self, spec: JobSpec, voice_id: str, field: str) -> Voice:
        """A catalog voice that speaks the job's language, or a VoiceError naming ``field``."""
        chosen = self.get(voice_id, field)
        if chosen.language != spec.language:
            raise VoiceError(
                voice_id,
                tuple(v.id for v in self.voices if v.language == spec.language)[:3],
                field,
                f"voice {chosen.id!r} speaks {chosen.language}, not the job's {spec.language}",
            )
        return chosen

    def cast(
        self,
        spec: JobSpec,
        engine: str | None = None,
        voice: str | None = None,
        installed: Collection[str] = (),
        segment: int | None = None,
    ) -> Casting:
        """Resolve the engine and voice of the job, or of one segment (its own voice or its
        speaker's wins over the job's); raise VoiceError for an unknown voice or one that
        speaks another language, InputError for the neural voice when not installed.
        ``installed``: the engines this machine has (the neural one only once installed).
        ``auto`` tries edge, then the neural voice (if installed, for its language), then
        espeak-ng (of the chosen voice's gender)."""
        engine = engine or spec.engine
        field = "voice"
        voice_id = voice
        if voice_id is None and segment is not None and spec.voice_of(segment):
            voice_id = spec.voice_of(segment)
            seg = spec.segments[segment]
            field = f"speakers {seg.speaker}" if seg.speaker else f"segment {segment + 1} voice"
        voice_id = voice_id or spec.voice
        chosen = self._voice(spec, voice_id, field) if voice_id else None
        offline = self.offline_like(chosen, spec.language)
        for pack in (NEURAL, KOKORO):
            if engine == pack or (engine == "auto" and chosen and chosen.engine == pack):
                pick = self._packed(pack, chosen, spec.language, installed)
                return Casting(pack, pick, offline if engine == "auto" else None)
        if engine == OFFLINE or (engine == "auto" and chosen and chosen.engine == OFFLINE):
            return Casting(
                OFFLINE, chosen if chosen and chosen.engine == OFFLINE else offline, None
            )
        primary = (
            chosen if chosen and chosen.engine == "edge" else self.default("edge", spec.language)
        )
        if engine != "auto":
            return Casting("edge", primary, None)
        # edge -> kokoro (listed even when its pack is missing: falling through it says so)
        # -> the opt-in neural voice, once installed -> espeak-ng.
        # kokoro speaks with the gender of the voice edge would have used.
        rest = [v for v in (self.like(KOKORO, chosen or primary, spec.language),) if v]
        neural = self.like(NEURAL, chosen, spec.language)
        if neural is not None and NEURAL in installed:
            rest.append(neural)
        rest.append(offline)
        return Casting("edge", primary, rest[0], tuple(rest[1:]))

    def _packed(
        self, engine: str, chosen: Voice | None, language: str, installed: Collection[str]
    ) -> Voice:
        """The voice of an engine whose pack is installed on demand, asked for by name."""
        pick = chosen if chosen and chosen.engine == engine else self.like(engine, chosen, language)
        if pick is None:
            raise InputError(f"engine {engine} has no {language!r} voice")
        if engine not in installed:
            raise InputError(
                f"the {engine} voice {pick.id} is not installed; run: {INSTALL[engine]}"
            )
        return pick

    def like(self, engine: str, voice: Voice | None, language: str) -> Voice | None:
        """An engine's voice for a language, of the chosen voice's gender where it has one
        (the first listed of that gender), else its default (None: it has no such voice)."""
        mine = [v for v in self.voices if v.engine == engine and v.language == language]
        if voice is not None and voice.gender:
            same = [v for v in mine if v.gender == voice.gender]
            # kokoro's Mandarin voices are edge's, by name (zh-CN-XiaoyiNeural: zf_xiaoyi)
            named = [v for v in same if v.id.partition("_")[2] in voice.id.lower()]
            if named:
                return max(named, key=lambda v: len(v.id))  # yunxia, not yunxi, for Yunxia
            # an en-GB speaker stays British where the engine has a British voice
            local = [v for v in same if voice.locale and v.locale == voice.locale]
            if local or same:
                return next((v for v in local or same if v.default), (local or same)[0])
        return next((v for v in mine if v.default), mine[0] if mine else None)

    def offline_like(self, voice: Voice | None, language: str) -> Voice:
        """The offline voice for a language, of the chosen voice's gender where there is
        one: two speakers stay two voices when edge is out of reach."""
        if voice is not None and voice.gender:
            for v in self.voices:
                if v.engine == OFFLINE and v.language == language and v.gender == voice.gender:
                    return v if not v.default else self.default(OFFLINE, language)
        return self.default(OFFLINE, language)

    def cast_all(self, spec: JobSpec, installed: Collection[str] = ()) -> list[Casting]:
        """Every segment's casting: checks every voice a job names, at the door."""
        for name, voice_id in spec.speakers.items():
            self._voice(spec, voice_id, f"speakers {name}")
        return [self.cast(spec, installed=installed, segment=i) for i in range(len(spec.segments))]


MAX_REFRESHED_VOICES = 5000  # the live list has ~320; anything far beyond is not a voice list


def edge_entries(listed: list[JsonObject], previous: Catalog) -> list[VoiceEntry]:
    """edge_tts.list_voices() records (wire format: edge's live JSON, each field read with
    care) -> catalog entries; the default voices of the previous catalog stay the defaults
    when they are still listed."""
    if not 0 < len(listed) <= MAX_REFRESHED_VOICES:
        raise ValueError(f"the edge voice list has {len(listed)} entries")
    defaults = {v.id for v in previous.voices if v.engine == "edge" and v.default}
    out: dict[str, VoiceEntry] = {}
    for item in listed:
        vid, locale = str(item.get("ShortName", "")), str(item.get("Locale", ""))
        if not vid or not locale or not vid.startswith(locale.split("-")[0]):
            continue
        entry: VoiceEntry = {
            "id": vid,
            "engine": "edge",
            "language": locale.split("-")[0].lower(),
            "locale": locale,
            "gender": str(item.get("Gender", "")).lower(),
        }
        if item.get("FriendlyName"):
            entry["name"] = str(item["FriendlyName"])
        if vid in defaults:
            entry["default"] = True
        out[vid] = entry
    return sorted(out.values(), key=lambda e: (e["language"], e["id"]))
