"""The finishing stages, each one thing over the job's ``Finish``: the speech check's verdict,
place the segments, write the subtitle tracks, plan the video and start its picture, mix the
narration (and the music), mux, write the editor exports, write the manifest. A stage over a
job with masters runs each master's ``Finish`` through the same step (pipeline/masters.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from service.domain.job import SYNTH_SHARE
from service.domain.notices import job_warnings
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
from service.domain.timeline import place_overlays, place_segments
from service.domain.units import s_to_ms
from service.pipeline.captions import word_cues
from service.pipeline.context import Finish, Shared, Tools
from service.pipeline.exports import write_timeline
from service.pipeline.listen import check_failed
from service.pipeline.manifest import Placed, build_manifest
from service.pipeline.masters import report
from service.pipeline.picture import mux_request, mux_video, start_picture
from service.pipeline.sound import mix_sound
from service.pipeline.tracks import placed_phrases, subtitle_tracks, write_others

Step = Callable[[Tools, Finish], None]


@dataclass(frozen=True)
class Stage:
    """One named finishing stage."""

    name: str
    run: Step


def speech_check(tools: Tools, run: Finish) -> None:
    """A job with on_mismatch fail and flagged segments fails here, before any artifact."""
    check_failed(run.plan, run.results)


def place(tools: Tools, run: Finish) -> None:
    """The fitted segments on the timeline, the overlays over them, the job's warnings (once
    each: each segment's state keeps its own), and a run for each of the job's masters."""
    for stage in ("synthesize", "fit"):
        run.timings[stage] = round(sum(r.timings.get(stage, 0) for r in run.results), 4)
    results = sorted(run.results, key=lambda r: r.index)
    slots = place_segments(run.plan.spec, [r.slot_ms for r in results])
    overlays = place_overlays(run.plan.spec, slots)
    total_ms = max([s.end_ms for s in slots] + [o.end_ms for o in overlays])
    run.placed_ = Placed(results, slots, overlays, total_ms)
    run.warnings = list(run.plan.warnings) + job_warnings([(r.index, r.warnings) for r in results])
    if run.plan.masters:  # the job's own sound in outdir, each master's files in masters/<name>/
        run.shared = Shared()
        run.masters = [run.for_master(m, run.shared) for m in run.plan.masters]


def tracks(tools: Tools, run: Finish) -> None:
    """The job's subtitle tracks, then each master's in its folder."""
    t = time.perf_counter()
    run.cues = write_tracks(tools, run)
    run.timings["subtitles"] = round(time.perf_counter() - t, 4)
    run.progress(SYNTH_SHARE + 0.05, "subtitles")
    for m in run.masters:
        m.outdir.mkdir(parents=True, exist_ok=True)
        m.cues = write_tracks(tools, m)


def write_tracks(tools: Tools, run: Finish) -> list[Cue]:
    """Narration cues from each phrase's measured speech, overlays on top; SRT/VTT/ASS."""
    plan, placed = run.plan, run.placed
    spec = plan.spec
    layout = Layout.for_spec(spec, tools.words, plan.style.narration.emphasis_scale)
    timed = placed_phrases(placed)
    if layout.max_words:  # short pages: each phrase cut to the word limit
        timed = [
            pages(seg.text, ph, layout.max_words, spec.language, tools.words)
            for seg, ph in zip(spec.segments, timed, strict=True)
        ]
    cues: list[Cue] = []
    for k, (seg, phrases) in enumerate(zip(spec.segments, timed, strict=True)):
        following = next((p[0].start_ms for p in timed[k + 1 :] if p), None)
        cues += narration_cues(seg.text, phrases, layout, following, k, seg.emphasis_spans)
    cues += overlay_cues([(o.text, o.start_ms, o.end_ms) for o in placed.overlays], layout)
    if spec.hook is not None:  # the hook title, over the first seconds
        cues.append(hook_cue(spec.hook.text, spec.hook.seconds, layout))
    if spec.shows_screen_text(plan.options):  # each shot's 屏幕文字, its own layer
        shots = [(s.name, s.screen_text, s_to_ms(s.start), s_to_ms(s.end)) for s in spec.shots]
        cues += screen_cues(shots, layout)
    made = subtitle_tracks(plan, timed, placed.overlays, cues, layout, tools.converter)
    cues = word_cues(plan, placed, made.main, layout)  # captions: word by word
    canvas = Canvas(
        plan.video.width if plan.video else 1080,
        plan.video.height if plan.video else 1920,
        tools.settings.font_name,
        spec.language,
        plan.style,
    )
    for ext, writer in WRITERS.items():
        (run.outdir / f"subtitles.{ext}").write_text(writer(cues, canvas), encoding="utf-8")
    write_others(made, canvas, run.outdir)
    return cues


def start_pictures(tools: Tools, run: Finish) -> None:
    """Each video's request (the job's, or each master's), its picture started."""
    for r in run.masters or [run]:
        r.mux = mux_request(r)
        if r is not run:  # a master's warnings are the job's too, once each
            run.warnings += [w for w in r.warnings if w not in run.warnings]
        start_picture(tools, r)


def mix(tools: Tools, run: Finish) -> None:
    """The narration (and the music) mixed while the pictures encode: the job's, each master's."""
    t = time.perf_counter()
    run.progress(SYNTH_SHARE + 0.05, "loudness")
    for r in run.runs():
        mix_sound(tools, r)
    run.timings["loudness"] = round(time.perf_counter() - t, 4)


def mux(tools: Tools, run: Finish) -> None:
    """Each video muxed (its picture's encode waited for)."""
    videos = [r for r in run.masters or [run] if r.mux is not None]
    if not videos and not run.masters:  # a job with masters says its muxes' time, even none
        return
    t = time.perf_counter()
    for r in videos:
        mux_video(tools, r)
    run.timings["mux"] = round(time.perf_counter() - t, 4)


def exports(tools: Tools, run: Finish) -> None:
    """The editor timelines and the segments they name, when the job asks for them."""
    write_timeline(
        tools.timelines,
        run.plan,
        run.placed,
        run.cues,
        run.work,
        run.outdir,
        run.video,
        run.music,
        run.sound.music,
        tools.settings.sample_rate,
    )


def manifest(tools: Tools, run: Finish) -> None:
    """manifest.json: what the job (and each master) is made of."""
    run.progress(1.0, "done")
    run.manifest_ = build_manifest(
        run.plan,
        run.placed,
        run.cues,
        run.sound.loud,
        tools.target(run.plan),
        tools.settings.sample_rate,
        run.warnings,
        run.sound.music,
        [report(m) for m in run.masters] or None,
    )
    (run.outdir / "manifest.json").write_text(run.manifest_.to_json(), encoding="utf-8")


STAGES = (
    Stage("speech check", speech_check),
    Stage("place", place),
    Stage("tracks", tracks),
    Stage("picture", start_pictures),
    Stage("mix", mix),
    Stage("mux", mux),
    Stage("exports", exports),
    Stage("manifest", manifest),
)
