"""Finalize's last stage when a job asks for ``exports``: each fitted segment as
segments/NN.wav, the editor timelines (timeline.otio, .fcpxml, .xml, .edl) and
timeline-package.zip, the timelines with every file they name (relative paths)."""

from __future__ import annotations

import shutil
from pathlib import Path

from service.domain.edit import PACKAGE, Edit, MusicBed, plan_edit, segment_file
from service.domain.subtitles import Cue
from service.pipeline.manifest import MusicReport, Placed
from service.pipeline.results import JobPlan
from service.ports import Workspace
from service.ports.finishing import Timelines

SUBTITLES = ("subtitles.srt", "subtitles.ass")  # the ones an editor imports
# A container's first bytes -> the suffix an editor recognises it by (uploads are stored as
# source.video / source.music, without their names).
MAGIC = (
    (b"RIFF", 0, ".wav"),
    (b"ID3", 0, ".mp3"),
    (b"\xff\xfb", 0, ".mp3"),
    (b"\xff\xf3", 0, ".mp3"),
    (b"OggS", 0, ".ogg"),
    (b"fLaC", 0, ".flac"),
    (b"qt  ", 8, ".mov"),
    (b"ftypM4A", 4, ".m4a"),
    (b"ftyp", 4, ".mp4"),
    (b"\x1a\x45\xdf\xa3", 0, ".mkv"),
)


def media_suffix(path: Path, fallback: str) -> str:
    """The file's own suffix when it has a usual one, else what its first bytes say."""
    if path.suffix.lower() in {s for _, _, s in MAGIC} | {".m4v", ".webm", ".aac"}:
        return path.suffix.lower()
    with path.open("rb") as f:
        head = f.read(16)
    return next((s for magic, at, s in MAGIC if head[at : at + len(magic)] == magic), fallback)


def write_timeline(
    timelines: Timelines,
    plan: JobPlan,
    placed: Placed,
    cues: list[Cue],
    work: Workspace,
    outdir: Path,
    video: Path | None,
    music: Path | None,
    music_report: MusicReport | None,
    sample_rate: int,
) -> None:
    """Nothing unless the job asked for an export."""
    if not plan.options.exports:
        return
    files: dict[str, Path] = {}
    (outdir / "segments").mkdir(exist_ok=True)
    for i, r in enumerate(placed.results):
        shutil.copyfile(work.fetch(r.audio), outdir / segment_file(i))
        files[segment_file(i)] = outdir / segment_file(i)
    video_ref = None
    if video is not None and plan.video is not None:
        name = "video" + media_suffix(video, ".mp4")
        video_ref, files[name] = (name, round(plan.video.duration * 1000)), video
    bed = None
    if music is not None and music_report is not None:
        name = "music" + media_suffix(music, ".wav")
        files[name] = music
        speech = placed.speech_ms()
        length = round(music_report.duration * 1000)
        decoded = work.local("music.f32")  # what the mix looped: the file's length
        source_ms = decoded.stat().st_size // 4 * 1000 // sample_rate if decoded.is_file() else 0
        level, duck = music_report.level_db, music_report.duck_db
        bed = MusicBed(name, length, level, duck, speech, source_ms)
    slots = [(s.start_ms, s.end_ms) for s in placed.slots]
    title = plan.spec.title or "narrate"

    def edit_at(fps: float) -> Edit:
        return plan_edit(title, fps, slots, cues, placed.total_ms, video_ref, bed, SUBTITLES)

    fps = plan.video.fps if plan.video else None
    written = timelines.write(edit_at, fps, plan.options.exports, outdir)
    files.update({n: outdir / n for n in [*written, *SUBTITLES]})
    timelines.package(outdir / PACKAGE, dict(sorted(files.items())))
