"""The finishing stages, each one thing over the job's ``Finish``: the speech check's verdict,
place the segments, write the subtitle tracks, plan the video and start its picture, mix the
narration (and the music), wait for the picture's encode, mux, write the editor exports, write
the manifest. A stage over a job with masters runs each master's ``Finish`` through the same
step (pipeline/masters.py).

The job's stage (``stage``/``stage_progress``, what a client follows) is said by the runner
(``run_stages``) as a stage starts, from the stage's ``says`` and ``at``: the stages never call
back up to the caller's progress themselves. Only the picture's encode, which lasts, reports
its share of frames as it goes (``encode NN%``, pipeline/encode_watch.py)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
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
from service.pipeline.encode_watch import ENCODE_END
from service.pipeline.exports import write_timeline
from service.pipeline.listen import check_failed
from service.pipeline.manifest import Placed, build_manifest
from service.pipeline.masters import report
from service.pipeline.picture import mux_request, mux_video, start_picture, wait_picture
from service.pipeline.sound import mix_sound
from service.pipeline.tracks import placed_phrases, subtitle_tracks, write_others

Step = Callable[[Tools, Finish], None]


def always(run: Finish) -> bool:
    return True


@dataclass(frozen=True)
class Stage:
    """One named finishing stage. ``says``: the job's stage from this one's start, at ``at``
    of the progress bar, when ``shown`` holds for the run (None: the stage said before goes
    on)."""

    name: str
    run: Step
    says: str | None = None
    at: float = 0.0
    shown: Callable[[Finish], bool] = always


def run_stages(stages: Iterable[Stage], tools: Tools, run: Finish) -> None:
    """Each stage in order, the job's stage said as it starts."""
    for stage in stages:
        if stage.says is not None and stage.shown(run):
            run.progress(stage.at, stage.says)
        stage.run(tools, run)


@contextmanager
def timed(run: Finish, name: str) -> Iterator[None]:
    """The block's time added to the job's timing ``name``."""
    t = time.perf_counter()
    yield
    run.timings[name] = round(run.timings.get(name, 0.0) + time.perf_counter() - t, 4)


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
    with timed(run, "subtitles"):
        run.cues = write_tracks(tools, run)
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
    with timed(run, "loudness"):
        for r in run.runs():
            mix_sound(tools, r)


def videos(run: Finish) -> list[Finish]:
    """The runs that make a video file: the job's, or each of its masters' with one."""
    return [r for r in run.masters or [run] if r.mux is not None]


def has_video(run: Finish) -> bool:
    return bool(videos(run))


def muxing(run: Finish) -> bool:
    """Whether the job says its muxes' time (``mux``: its picture's encodes waited for and
    its muxes): a job with a video, and a job with masters, even with none."""
    return has_video(run) or bool(run.masters)


def encode(tools: Tools, run: Finish) -> None:
    """Each video's picture encode waited for (the stage says ``encode NN%`` meanwhile)."""
    if muxing(run):
        with timed(run, "mux"):
            for r in videos(run):
                wait_picture(tools, r)


def mux(tools: Tools, run: Finish) -> None:
    """Each video muxed, copying its picture's encode."""
    if muxing(run):
        with timed(run, "mux"):
            for r in videos(run):
                mux_video(tools, r)


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
    Stage("tracks", tracks, "subtitles", SYNTH_SHARE + 0.05),
    Stage("picture", start_pictures),
    Stage("mix", mix, "loudness", SYNTH_SHARE + 0.05),
    Stage("encode", encode),  # says encode NN% itself, as the frames are done
    Stage("mux", mux, "mux", ENCODE_END, has_video),
    Stage("exports", exports),
    Stage("manifest", manifest, "done", 1.0),
)
