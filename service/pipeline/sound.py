"""The finishing stage ``mix``: the fitted segments laid on one track and normalised into
narration.wav, and with music, the bed ducked under the voice into mix.wav. A job's masters
share each sound made at the same target (and music levels): a second name of the file."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from service import audio as dsp
from service.audio.checked import Checked
from service.domain.units import ms_to_samples
from service.pipeline.context import Finish, Sound, Tools
from service.pipeline.manifest import Loudness, MusicReport
from service.ports import PcmSink

SOUND = "sound.m4a"  # the narration as AAC, encoded as it is normalised (never kept)


def mix_sound(tools: Tools, run: Finish) -> None:
    """narration.wav (and mix.wav) in the run's folder. A job without masters whose video
    takes the narration as it is has it encoded to AAC as it is normalised: the mux copies it."""
    mux, sr, encoded = run.mux, tools.settings.sample_rate, run.work.local(SOUND)
    # Without music or the source's own audio to mix in, the sound track is the narration.
    copied = bool(run.shared is None and run.music is None and mux and not mux.mixes_original)

    def sink() -> PcmSink:
        assert mux is not None
        return tools.media.audio_sink(mux, sr, encoded)

    voice = _narration(tools, run, sink if copied else None)
    report = _music(tools, run, run.music, voice.loud) if run.music is not None else None
    run.sound_ = Sound(run.outdir, voice.loud, report, encoded if copied else None)


def _narration(tools: Tools, run: Finish, sink: Callable[[], PcmSink] | None) -> Sound:
    path = run.outdir / "narration.wav"
    key = ("narration", tools.target(run.plan))
    made = run.shared.sounds.get(key) if run.shared is not None else None
    if made is not None:
        _same_file(made.folder / "narration.wav", path)
        return made
    made = Sound(run.outdir, mix_narration(tools, run, path, sink), None)
    if run.shared is not None:
        run.shared.sounds[key] = made
    return made


def _music(tools: Tools, run: Finish, music: Path, voice: dsp.Loudness) -> MusicReport:
    options = run.plan.options
    key = ("mix", tools.target(run.plan), options.music_level, options.music_duck)
    made = run.shared.sounds.get(key) if run.shared is not None else None
    if made is not None and made.music is not None:
        _same_file(made.folder / "mix.wav", run.outdir / "mix.wav")
        return made.music
    report = mix_music(tools, run, music)
    if run.shared is not None:
        run.shared.sounds[key] = Sound(run.outdir, voice, report)
    return report


def _same_file(src: Path, dest: Path) -> None:
    """``dest`` as a second name of ``src`` (a copy where links are not to be had)."""
    try:
        os.link(src, dest)
    except OSError:
        shutil.copyfile(src, dest)


def mix_narration(
    tools: Tools, run: Finish, path: Path, sink: Callable[[], PcmSink] | None = None
) -> dsp.Loudness:
    """Lay the fitted segments on a silent track and normalize it into ``path``, block by
    block: memory does not grow with the timeline."""
    sr, placed = tools.settings.sample_rate, run.placed
    track: dsp.Source = dsp.MixSource(
        [
            (run.work.fetch(r.audio), ms_to_samples(s.start_ms, sr))
            for r, s in zip(placed.results, placed.slots, strict=True)
        ],
        ms_to_samples(placed.total_ms, sr),
        sr,
    )
    if run.check is not None:
        track = Checked(track, run.check)
    target = tools.target(run.plan)
    return dsp.normalize_to_wav(track, sr, path, target.target_lufs, target.true_peak_dbtp, sink)


def mix_music(tools: Tools, run: Finish, music: Path) -> MusicReport:
    """The narration with the music under it, ducked under speech, into mix.wav at the
    loudness target and true-peak ceiling. Returns what the manifest says of it."""
    from service.audio import music as bed

    sr, plan, placed = tools.settings.sample_rate, run.plan, run.placed
    length_ms = max(placed.total_ms, round(plan.video.duration * 1000) if plan.video else 0)
    raw = run.work.local("music.f32")
    tools.media.decode_audio(music, raw, sr, min(length_ms / 1000, bed.MAX_MUSIC_S))
    source = bed.RawSource(raw)
    music_lufs = bed.loudness(source, sr)
    target = tools.target(plan)
    gain = bed.bed_gain(music_lufs, target.target_lufs, plan.options.music_level)
    speech = [(ms_to_samples(a, sr), ms_to_samples(b, sr)) for a, b in placed.speech_ms()]
    length = ms_to_samples(length_ms, sr)
    voice = dsp.MixSource([(run.outdir / "narration.wav", 0)], length, sr)
    under = bed.DuckedBed(source, length, sr, gain, speech, plan.options.music_duck)
    mixed: dsp.Source = bed.SumSource(voice, under)
    loud = dsp.normalize_to_wav(
        Checked(mixed, run.check) if run.check is not None else mixed,
        sr,
        run.outdir / "mix.wav",
        target.target_lufs,
        target.true_peak_dbtp,
    )
    return MusicReport(
        file=music.name,
        music_lufs=round(music_lufs, 2),
        level_db=plan.options.music_level,
        duck_db=plan.options.music_duck,
        duration=length_ms / 1000,
        loudness=Loudness.measured(loud, target),
    )
