"""The whole job once every segment is fitted, as named stages that each do one thing:
place the segments, write the subtitles, mix and normalize the narration, mux the video,
write the manifest. The picture's re-encode (burn-in, frozen last frame) needs only the
subtitles, so it runs in ffmpeg while the narration is mixed; the mux then copies it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from service import audio as dsp
from service.config import Settings
from service.domain.job import SYNTH_SHARE
from service.domain.notices import Notice, job_warnings, warning
from service.domain.options import MasterLoudness
from service.domain.subtitles import (
    WRITERS,
    Canvas,
    Cue,
    Layout,
    hook_cue,
    narration_cues,
    overlay_cues,
    screen_cues,
)
from service.domain.subtitles.pages import pages
from service.domain.text import Segmenter
from service.domain.timeline import place_overlays, place_segments
from service.domain.units import ms_to_s, ms_to_samples, s_to_ms
from service.pipeline.captions import word_cues
from service.pipeline.checked import Checked
from service.pipeline.encode_watch import ENCODE_END, encode_watch
from service.pipeline.exports import write_timeline
from service.pipeline.manifest import (
    Loudness,
    MusicReport,
    Placed,
    Rendered,
    build_manifest,
)
from service.pipeline.masters import Masters
from service.pipeline.results import JobPlan, Progress, SegmentResult, no_progress
from service.pipeline.tracks import placed_phrases, shown_track, subtitle_tracks, write_others
from service.ports import Check, Converter, Media, MuxRequest, PcmSink, Workspace

PICTURE = "picture.mp4"  # the re-encoded picture, in the workspace (never kept)
SOUND = "sound.m4a"  # the narration as AAC beside it


class Finalizer:
    """Finishes a job from its fitted segments: the timeline, the subtitles (line breaking
    with the word segmenter ``words``), loudness, the music and the mux through ``media``."""

    def __init__(
        self,
        settings: Settings,
        media: Media,
        words: Segmenter | None,
        converter: Converter | None = None,
    ) -> None:
        self.settings = settings
        self.media = media
        self.words = words
        self.converter = converter  # Simplified -> Traditional, for the zh-Hant track

    def finalize(
        self,
        plan: JobPlan,
        results: list[SegmentResult],
        work: Workspace,
        outdir: Path,
        video: Path | None = None,
        progress: Progress = no_progress,
        music: Path | None = None,
        check: Check | None = None,
    ) -> Rendered:
        """Lay the fitted segments on the timeline, write subtitles, normalize loudness,
        lay the music under the voice when given (mix.wav) and mux; every artifact goes
        into ``outdir``. Returns the manifest. ``check`` is called every quarter second
        while ffmpeg encodes or muxes and may raise (the job was canceled): the ffmpegs are
        then killed at once."""
        timings = {
            stage: round(sum(r.timings.get(stage, 0) for r in results), 4)
            for stage in ("synthesize", "fit")
        }
        placed = self._place(plan, results)
        t = time.perf_counter()
        cues = self._write_subtitles(plan, placed, outdir)
        timings["subtitles"] = round(time.perf_counter() - t, 4)
        progress(SYNTH_SHARE + 0.05, "subtitles")
        # Once each for the job; each segment's state keeps its own.
        warnings = list(plan.warnings) + job_warnings(
            [(r.index, r.warnings) for r in placed.results]
        )
        masters = None
        if plan.masters:  # the job's own sound here, each master's files in masters/<name>/
            loud, music_report, masters = Masters(self).finish(
                plan, placed, video, work, outdir, warnings, timings, progress, music, check
            )
        else:
            mux = self._mux_request(plan, video, outdir, placed, warnings)
            loud, music_report = self._sound_and_picture(
                placed, mux, work, outdir, timings, progress, plan, music, check
            )
        sr = self.settings.sample_rate
        write_timeline(plan, placed, cues, work, outdir, video, music, music_report, sr)
        progress(1.0, "done")
        manifest = build_manifest(
            plan,
            placed,
            cues,
            loud,
            self.target(plan),
            self.settings.sample_rate,
            warnings,
            music_report,
            masters,
        )
        (outdir / "manifest.json").write_text(manifest.to_json(), encoding="utf-8")
        return Rendered(manifest, timings)

    def target(self, plan: JobPlan) -> MasterLoudness:
        """The job's loudness target as planned; the settings' for a plan stored before."""
        return plan.loudness or MasterLoudness(
            target_lufs=self.settings.target_lufs, true_peak_dbtp=self.settings.true_peak_db
        )

    def _place(self, plan: JobPlan, results: list[SegmentResult]) -> Placed:
        results = sorted(results, key=lambda r: r.index)
        slots = place_segments(plan.spec, [r.slot_ms for r in results])
        overlays = place_overlays(plan.spec, slots)
        total_ms = max([s.end_ms for s in slots] + [o.end_ms for o in overlays])
        return Placed(results, slots, overlays, total_ms)

    def _write_subtitles(self, plan: JobPlan, placed: Placed, outdir: Path) -> list[Cue]:
        """Narration cues from each phrase's measured speech, overlays on top; SRT/VTT/ASS."""
        spec = plan.spec
        layout = Layout.for_spec(spec, self.words, plan.style.narration.emphasis_scale)
        timed = placed_phrases(placed)
        if layout.max_words:  # short pages: each phrase cut to the word limit
            timed = [
                pages(seg.text, ph, layout.max_words, spec.language, self.words)
                for seg, ph in zip(spec.segments, timed, strict=True)
            ]
        cues: list[Cue] = []
        for k, (seg, phrases) in enumerate(zip(spec.segments, timed, strict=True)):
            following = next((p[0].start_ms for p in timed[k + 1 :] if p), None)
            cues += narration_cues(seg.text, phrases, layout, following, k, seg.emphasis_spans)
        cues += overlay_cues([(o.text, o.start_ms, o.end_ms) for o in placed.overlays], layout)
        if spec.hook is not None:  # the hook title, over the first seconds
            cues.append(hook_cue(spec.hook.text, spec.hook.seconds, layout))
        if plan.options.shows_screen_text(spec):  # each shot's 屏幕文字, its own layer
            shots = [(s.name, s.screen_text, s_to_ms(s.start), s_to_ms(s.end)) for s in spec.shots]
            cues += screen_cues(shots, layout)
        tracks = subtitle_tracks(plan, timed, placed.overlays, cues, layout, self.converter)
        cues = word_cues(plan, placed, tracks.main, layout)  # captions: word by word
        canvas = Canvas(
            plan.video.width if plan.video else 1080,
            plan.video.height if plan.video else 1920,
            self.settings.font_name,
            spec.language,
            plan.style,
        )
        for ext, writer in WRITERS.items():
            (outdir / f"subtitles.{ext}").write_text(writer(cues, canvas), encoding="utf-8")
        write_others(tracks, canvas, outdir)
        return cues

    def _sound_and_picture(
        self,
        placed: Placed,
        mux: MuxRequest | None,
        work: Workspace,
        outdir: Path,
        timings: dict[str, float],
        progress: Progress,
        plan: JobPlan,
        music: Path | None,
        check: Check | None = None,
    ) -> tuple[dsp.Loudness, MusicReport | None]:
        """Mix the narration (and the music under it) while the picture re-encodes (if it
        must), then mux."""
        picture, sound = work.local(PICTURE), work.local(SOUND)
        encoding = self.media.encode_video(mux, picture) if mux is not None else None
        # Without music or the source's own audio to mix in, the sound track is the narration:
        # it is encoded as it is normalised, and the mux only copies it.
        copy_sound = mux is not None and music is None and not mux.mixes_original
        sr = self.settings.sample_rate

        def sink() -> PcmSink:
            assert mux is not None
            return self.media.audio_sink(mux, sr, sound)

        try:
            t = time.perf_counter()
            progress(SYNTH_SHARE + 0.05, "loudness")
            loud = self._mix_narration(
                plan, placed, work, outdir / "narration.wav", sink if copy_sound else None, check
            )
            music_report = None
            if music is not None:
                music_report = self._mix_music(plan, music, placed, work, outdir, check)
                if mux is not None:
                    mux = replace(mux, narration=outdir / "mix.wav")
            timings["loudness"] = round(time.perf_counter() - t, 4)
            if mux is not None:
                t = time.perf_counter()
                if encoding is not None:
                    watch = encode_watch(encoding, progress, check)
                    encoding.wait(self.settings.ffmpeg_timeout, watch)
                    watch()  # its end (100 %), which the last quarter-second poll may miss
                    mux = replace(mux, encoded_video=picture)
                progress(ENCODE_END, "mux")
                if copy_sound:
                    mux = replace(mux, encoded_audio=sound)
                self.media.mux(mux, check)
                timings["mux"] = round(time.perf_counter() - t, 4)
        finally:
            if encoding is not None:
                encoding.cancel()  # on failure: no encoder left running
        return loud, music_report

    def _mux_request(
        self,
        plan: JobPlan,
        video: Path | None,
        outdir: Path,
        placed: Placed,
        warnings: list[Notice],
    ) -> MuxRequest | None:
        """What the video file is made of; None without a video. Warns of overlays that
        start after the video (and the narration) end."""
        if video is None or plan.video is None:
            return None
        narration_end = ms_to_s(placed.slots[-1].end_ms)
        shown_until = max(plan.video.duration, narration_end)
        late = [o for o in placed.overlays if ms_to_s(o.start_ms) >= shown_until]
        if late:
            said = f"{len(late)} overlay(s) start after the video ends and are not shown"
            warnings.append(warning("overlay.hidden", said))
        return MuxRequest(
            video=video,
            narration=outdir / "narration.wav",
            subtitles_srt=outdir / shown_track(plan, "srt"),
            subtitles_ass=outdir / shown_track(plan, "ass"),
            output=outdir / "video.mp4",
            info=plan.video,
            language=plan.spec.language,
            burn_in=plan.options.burn_in,
            original_audio=plan.options.original_audio,
            extend_to=narration_end if narration_end > plan.video.duration else None,
            duck_intervals=tuple(
                (ms_to_s(s.start_ms), ms_to_s(s.start_ms + r.speech_ms))
                for s, r in zip(placed.slots, placed.results, strict=True)
            ),
        )

    def _mix_music(
        self,
        plan: JobPlan,
        music: Path,
        placed: Placed,
        work: Workspace,
        outdir: Path,
        check: Check | None = None,
    ) -> MusicReport:
        """The narration with the music under it, ducked under speech, into mix.wav at the
        loudness target and true-peak ceiling. Returns what the manifest says of it."""
        from service.audio import music as bed

        sr = self.settings.sample_rate
        length_ms = max(placed.total_ms, round(plan.video.duration * 1000) if plan.video else 0)
        raw = work.local("music.f32")
        self.media.decode_audio(music, raw, sr, min(length_ms / 1000, bed.MAX_MUSIC_S))
        source = bed.RawSource(raw)
        music_lufs = bed.loudness(source, sr)
        target = self.target(plan)
        gain = bed.bed_gain(music_lufs, target.target_lufs, plan.options.music_level)
        speech = [
            (ms_to_samples(s.start_ms, sr), ms_to_samples(s.start_ms + r.speech_ms, sr))
            for s, r in zip(placed.slots, placed.results, strict=True)
        ]
        length = ms_to_samples(length_ms, sr)
        voice = dsp.MixSource([(outdir / "narration.wav", 0)], length, sr)
        under = bed.DuckedBed(source, length, sr, gain, speech, plan.options.music_duck)
        mixed: dsp.Source = bed.SumSource(voice, under)
        loud = dsp.normalize_to_wav(
            Checked(mixed, check) if check is not None else mixed,
            sr,
            outdir / "mix.wav",
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

    def _mix_narration(
        self,
        plan: JobPlan,
        placed: Placed,
        work: Workspace,
        path: Path,
        sink: Callable[[], PcmSink] | None = None,
        check: Check | None = None,
    ) -> dsp.Loudness:
        """Lay the fitted segments on a silent track and normalize it into ``path``, block by
        block: memory does not grow with the timeline."""
        sr = self.settings.sample_rate
        track: dsp.Source = dsp.MixSource(
            [
                (work.fetch(r.audio), ms_to_samples(s.start_ms, sr))
                for r, s in zip(placed.results, placed.slots, strict=True)
            ],
            ms_to_samples(placed.total_ms, sr),
            sr,
        )
        if check is not None:
            track = Checked(track, check)
        target = self.target(plan)
        return dsp.normalize_to_wav(
            track, sr, path, target.target_lufs, target.true_peak_dbtp, sink
        )
