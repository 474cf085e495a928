"""Several masters from one render (options ``masters``). At the door, each master is resolved
into a PlannedMaster: the job's options with its preset's finishing fields and its own over them.
In finalize, once the segments are placed and the job's own narration and subtitles written,
each master gets its subtitles, its mix at its loudness and its video under masters/<name>/.

What is the same is made once: masters whose picture is the same (the same burned-in subtitles,
or none) share one encode, each mux stream-copying it (or the source's picture); masters at the
same loudness target share one normalised narration.wav (a second name of it), and with the same
music levels too, one mix.wav."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from service import audio as dsp
from service.adapters.files.styles import job_style
from service.config import Settings
from service.domain.errors import InputError
from service.domain.job import SYNTH_SHARE
from service.domain.notices import Notice, warning
from service.domain.options import MASTER_FIELDS, MasterLoudness, RenderOptions
from service.domain.presets import merged_values
from service.domain.spec import JobSpec
from service.pipeline.encode_watch import ENCODE_END, encode_watch
from service.pipeline.manifest import Loudness, ManifestMaster, MusicReport, Placed
from service.pipeline.results import JobPlan, PlannedMaster, Progress, is_artifact
from service.ports import Check, Encoding, MuxRequest, Workspace

if TYPE_CHECKING:
    from service.pipeline.finalize import Finalizer


def plan_masters(
    settings: Settings,
    spec: JobSpec,
    options: RenderOptions,
    loudness: Callable[[RenderOptions], MasterLoudness],
) -> tuple[list[PlannedMaster], list[Notice]]:
    """Each master of ``options`` (presets already resolved: ``preset_values`` recorded), and
    a warning for each preset field a master cannot take (synthesis is the job's)."""
    job = options.model_dump(mode="json", exclude_unset=True, exclude={"masters"})
    shown = options.model_dump(mode="json")
    planned, notes = [], []
    for i, master in enumerate(options.masters):
        if master.preset is not None and master.preset_values is None:
            raise InputError(f"options masters[{i}].preset: not resolved (Presets.resolve)")
        values = master.preset_values or {}
        finishing = {k: v for k, v in values.items() if k in MASTER_FIELDS}
        own = merged_values(merged_values(job, finishing), master.own())
        effective = RenderOptions.model_validate(own)
        style_spec = effective.apply(spec)  # its style, and its captions over that
        try:
            style = job_style(settings, style_spec)
        except InputError as exc:
            where = f"options masters[{i}].style"
            loc = ("options", "masters", i, "style")
            raise InputError(f"{where}: {exc.message}", loc=loc) from None
        planned.append(
            PlannedMaster(
                name=master.name,
                preset=master.preset,
                options=effective,
                style=style,
                loudness=loudness(effective),
            )
        )
        skipped = [
            f"{k} {v!r}" for k, v in values.items() if k not in MASTER_FIELDS and shown.get(k) != v
        ]
        if skipped:
            said = (
                f"master {master.name}: preset {master.preset}'s {', '.join(skipped)} is not "
                "applied (synthesis and fit run once for every master, by the job's options)"
            )
            notes.append(warning("master.preset_partial", said))
    return planned, notes


def _same_file(src: Path, dest: Path) -> None:
    """``dest`` as a second name of ``src`` (a copy where links are not to be had)."""
    try:
        os.link(src, dest)
    except OSError:
        shutil.copyfile(src, dest)


@dataclass
class _Sound:
    """A normalised narration (or mix) made at one target (and music levels): its folder."""

    folder: Path
    loud: dsp.Loudness
    music: MusicReport | None


@dataclass
class _Picture:
    """One picture: the source's (``encoding`` None) or an encode every master with it copies."""

    path: Path
    encoding: Encoding | None
    first: str  # the master it was made for
    done: bool = False


@dataclass
class _Master:
    planned: PlannedMaster
    plan: JobPlan
    folder: Path
    mux: MuxRequest | None = None
    picture: _Picture | None = None
    sound: _Sound | None = None
    warnings: list[Notice] = field(default_factory=list)


def _picture_key(mux: MuxRequest) -> tuple[Any, ...]:
    """What the picture is made of: the burned-in subtitles (as written) and the frozen end."""
    text = hashlib.sha256(mux.subtitles_ass.read_bytes()).hexdigest() if mux.burn_in else None
    return (mux.burn_in, text, mux.extend_to)


class Masters:
    """The masters of one job, finished with the Finalizer's stages."""

    def __init__(self, finalizer: Finalizer) -> None:
        self.fin = finalizer
        self.media = finalizer.media

    def finish(
        self,
        plan: JobPlan,
        placed: Placed,
        video: Path | None,
        work: Workspace,
        outdir: Path,
        warnings: list[Notice],
        timings: dict[str, float],
        progress: Progress,
        music: Path | None,
        check: Check | None,
    ) -> tuple[dsp.Loudness, MusicReport | None, list[ManifestMaster]]:
        """The job's own narration (and mix) in ``outdir``, then every master in
        masters/<name>/: subtitles, pictures started, sounds mixed, videos muxed."""
        masters = [
            _Master(m, plan.for_master(m), outdir / "masters" / m.name) for m in plan.masters
        ]
        pictures: dict[tuple[Any, ...], _Picture] = {}
        try:
            for m in masters:
                m.folder.mkdir(parents=True, exist_ok=True)
                self.fin._write_subtitles(m.plan, placed, m.folder)
                if not m.plan.options.audio_only:
                    m.mux = self.fin._mux_request(m.plan, video, m.folder, placed, m.warnings)
                warnings += [w for w in m.warnings if w not in warnings]
                if m.mux is not None:
                    m.picture = self._picture(m, pictures, work)
            t = time.perf_counter()
            progress(SYNTH_SHARE + 0.05, "loudness")  # as it begins, as the Finalizer says it
            sounds: dict[tuple[Any, ...], _Sound] = {}
            loud, report = self._sound(plan, placed, work, outdir, music, sounds, check)
            for m in masters:
                self._sound(m.plan, placed, work, m.folder, music, sounds, check, m)
            timings["loudness"] = round(time.perf_counter() - t, 4)
            t = time.perf_counter()
            for m in masters:
                self._mux(m, music, check, progress)
            timings["mux"] = round(time.perf_counter() - t, 4)
        finally:
            for p in pictures.values():
                if p.encoding is not None:
                    p.encoding.cancel()  # on failure: no encoder left running
        return loud, report, [self._report(m) for m in masters]

    def _picture(
        self, m: _Master, pictures: dict[tuple[Any, ...], _Picture], work: Workspace
    ) -> _Picture:
        """The master's picture: one already started for the same subtitles, else its own
        (an encode started now, or the source's picture copied)."""
        assert m.mux is not None
        key = _picture_key(m.mux)
        if key not in pictures:
            path = work.local(f"picture-{len(pictures)}.mp4")
            pictures[key] = _Picture(path, self.media.encode_video(m.mux, path), m.planned.name)
        return pictures[key]

    def _sound(
        self,
        plan: JobPlan,
        placed: Placed,
        work: Workspace,
        folder: Path,
        music: Path | None,
        sounds: dict[tuple[Any, ...], _Sound],
        check: Check | None,
        master: _Master | None = None,
    ) -> tuple[dsp.Loudness, MusicReport | None]:
        """narration.wav (and mix.wav) in ``folder`` at the plan's loudness: a second name of
        one already made at the same target (and music levels), else normalised now."""
        target = plan.loudness
        voice = sounds.get(("narration", target))
        if voice is not None:
            _same_file(voice.folder / "narration.wav", folder / "narration.wav")
        else:
            loud = self.fin._mix_narration(
                plan, placed, work, folder / "narration.wav", None, check
            )
            voice = sounds[("narration", target)] = _Sound(folder, loud, None)
        made = voice
        if music is not None:
            key = ("mix", target, plan.options.music_level, plan.options.music_duck)
            mixed = sounds.get(key)
            if mixed is not None:
                _same_file(mixed.folder / "mix.wav", folder / "mix.wav")
            else:
                report = self.fin._mix_music(plan, music, placed, work, folder, check)
                mixed = sounds[key] = _Sound(folder, voice.loud, report)
            made = _Sound(folder, voice.loud, mixed.music)
        if master is not None:
            master.sound = made
        return made.loud, made.music

    def _mux(self, m: _Master, music: Path | None, check: Check | None, progress: Progress) -> None:
        """The master's video: its picture's encode waited for (the stage says ``encode
        NN%`` meanwhile, as a one-master job's does: it said ``loudness`` throughout), then
        the mux."""
        if m.mux is None or m.picture is None:
            return
        mux = m.mux
        if music is not None:
            mux = replace(mux, narration=m.folder / "mix.wav")
        if m.picture.encoding is not None:
            if not m.picture.done:
                watch = encode_watch(m.picture.encoding, progress, check)
                m.picture.encoding.wait(self.fin.settings.ffmpeg_timeout, watch)
                watch()  # its end (100 %), which the last quarter-second poll may miss
                m.picture.done = True
            mux = replace(mux, encoded_video=m.picture.path)
        progress(ENCODE_END, "mux")
        self.media.mux(mux, check)

    def _report(self, m: _Master) -> ManifestMaster:
        assert m.sound is not None and m.plan.loudness is not None
        picture = None
        if m.picture is not None:
            p = m.picture
            picture = (
                "source"
                if p.encoding is None
                else "encoded"
                if p.first == m.planned.name
                else p.first
            )
        names = sorted(
            f"masters/{m.planned.name}/{f.name}" for f in m.folder.iterdir() if f.is_file()
        )
        return ManifestMaster(
            name=m.planned.name,
            preset=m.planned.preset,
            burn_in=m.plan.options.burn_in and m.mux is not None,
            screen_text=m.plan.options.shows_screen_text(m.plan.spec),
            style=m.plan.style.applied,
            loudness=Loudness.measured(m.sound.loud, m.plan.loudness),
            music=m.sound.music.loudness if m.sound.music is not None else None,
            picture=picture,
            artifacts=[n for n in names if is_artifact(n)],
        )
