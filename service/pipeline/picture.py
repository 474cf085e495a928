"""The finishing stages ``picture``, ``encode`` and ``mux``. The picture's re-encode (burn-in,
frozen last frame) needs only the subtitles, so it is started before the narration is mixed and
runs in ffmpeg meanwhile; it is waited for once the mix is done, and the mux copies it. Masters
whose picture is the same (the same burned-in subtitles, or none) share one encode."""

from __future__ import annotations

import hashlib
from dataclasses import replace

from service.domain.notices import warning
from service.domain.units import ms_to_s
from service.pipeline.context import Finish, NotYet, Picture, Tools
from service.pipeline.encode_watch import encode_watch
from service.pipeline.tracks import shown_track
from service.ports import MuxRequest

PICTURE = "picture.mp4"  # the re-encoded picture of a job without masters (never kept)


def mux_request(run: Finish) -> MuxRequest | None:
    """What the run's video file is made of; None without a video (or for an audio master).
    Warns of overlays that start after the video (and the narration) end."""
    plan, placed, video = run.plan, run.placed, run.video
    if video is None or plan.video is None or plan.options.audio_only:
        return None
    narration_end = ms_to_s(placed.slots[-1].end_ms)
    shown_until = max(plan.video.duration, narration_end)
    late = [o for o in placed.overlays if ms_to_s(o.start_ms) >= shown_until]
    if late:
        said = f"{len(late)} overlay(s) start after the video ends and are not shown"
        run.warnings.append(warning("overlay.hidden", said))
    return MuxRequest(
        video=video,
        narration=run.outdir / "narration.wav",
        subtitles_srt=run.outdir / shown_track(plan, "srt"),
        subtitles_ass=run.outdir / shown_track(plan, "ass"),
        output=run.outdir / "video.mp4",
        info=plan.video,
        language=plan.spec.language,
        burn_in=plan.options.burn_in,
        original_audio=plan.options.original_audio,
        extend_to=narration_end if narration_end > plan.video.duration else None,
        duck_intervals=tuple((ms_to_s(a), ms_to_s(b)) for a, b in placed.speech_ms()),
    )


def picture_key(mux: MuxRequest) -> tuple[object, ...]:
    """What the picture is made of: the burned-in subtitles (as written) and the frozen end."""
    text = hashlib.sha256(mux.subtitles_ass.read_bytes()).hexdigest() if mux.burn_in else None
    return (mux.burn_in, text, mux.extend_to)


def start_picture(tools: Tools, run: Finish) -> None:
    """The run's picture: one already started for the same subtitles, else its own (an
    encode started now, or the source's picture copied)."""
    if run.mux is None:
        return
    if run.shared is None:
        path = run.work.local(PICTURE)
        run.picture = Picture(path, tools.media.encode_video(run.mux, path), run.name)
        return
    pictures, key = run.shared.pictures, picture_key(run.mux)
    if key not in pictures:
        path = run.work.local(f"picture-{len(pictures)}.mp4")
        pictures[key] = Picture(path, tools.media.encode_video(run.mux, path), run.name)
    run.picture = pictures[key]


def wait_picture(tools: Tools, run: Finish) -> None:
    """The run's picture encode waited for (once: masters may share it); the stage says
    ``encode NN%`` meanwhile."""
    picture = run.picture
    if picture is None or picture.encoding is None or picture.done:
        return
    watch = encode_watch(picture.encoding, run.progress, run.check)
    picture.encoding.wait(tools.settings.ffmpeg_timeout, watch)
    watch()  # its end (100 %), which the last quarter-second poll may miss
    picture.done = True


def mux_video(tools: Tools, run: Finish) -> None:
    """The run's video: the mux, copying the picture encoded (wait_picture) and the sound
    made beside the mix."""
    if run.mux is None or run.picture is None:
        return
    made, request, picture = run.sound, run.mux, run.picture
    if run.music is not None:
        request = replace(request, narration=run.outdir / "mix.wav")
    if picture.encoding is not None:
        if not picture.done:
            raise NotYet("the picture is not encoded yet (stage encode)")
        request = replace(request, encoded_video=picture.path)
    if made.encoded is not None:
        request = replace(request, encoded_audio=made.encoded)
    tools.media.mux(request, run.check)


def pictures(run: Finish) -> list[Picture]:
    """Every picture the job's runs started, each once."""
    found = {id(p): p for p in (r.picture for r in run.runs()) if p is not None}
    return list(found.values())
