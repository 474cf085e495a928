"""The editor's timeline through OpenTimelineIO: timeline.otio, and from the same timeline
through OTIO's adapters timeline.fcpxml (Final Cut Pro X, DaVinci Resolve), timeline.xml
(FCP7 XML: Premiere, Resolve) and timeline.edl (CMX 3600). Media paths are relative to the
files; timeline-package.zip holds them with their media."""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import opentimelineio as otio

from service.domain.edit import EXPORT_FILES, Edit, EditClip, EditMarker, export_rate
from service.domain.fields import header_text
from service.domain.options import Export

RT, TR = otio.opentime.RationalTime, otio.opentime.TimeRange
ADAPTERS = {"otio": "otio_json", "fcpxml": "fcpx_xml", "fcp7": "fcp_xml", "edl": "cmx_3600"}
# What a marker's colour says of its layer in the editor: narration, qualifiers, shot text, cards
# (not red or green: FCPXML keeps those as to-do and done).
COLOURS = {0: "YELLOW", 1: "CYAN", 2: "BLUE", 3: "MAGENTA"}
FCPX_GAP_START = 3600  # seconds: where the FCPXML writer starts every gap's own time


def write_exports(
    edit_at: Callable[[float], Edit], fps: float | None, exports: Iterable[Export], outdir: Path
) -> list[str]:
    """Write each export named (``otio``, ``fcpxml``, ``fcp7``, ``edl``) into ``outdir``: the
    timeline ``edit_at`` lays out at that export's rate (the video's ``fps``, or 30; FCPXML's
    nearest project rate). Returns the file names written."""
    written = []
    for kind in dict.fromkeys(exports):
        edit = edit_at(export_rate(kind, fps))
        timeline = _for_format(edit, kind)
        path = outdir / EXPORT_FILES[kind]
        extra = {"rate": edit.fps} if kind == "edl" else {}
        otio.adapters.write_to_file(timeline, str(path), adapter_name=ADAPTERS[kind], **extra)
        written.append(path.name)
    return written


def package(path: Path, files: Mapping[str, Path]) -> None:
    """A zip of ``files`` (name inside the zip -> file): the timelines beside their media, so
    the relative paths they hold resolve inside it. Media are stored, not deflated again."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, src in files.items():
            packed = name.endswith((".otio", ".fcpxml", ".xml", ".edl", ".srt", ".ass"))
            zf.write(src, name, zipfile.ZIP_DEFLATED if packed else zipfile.ZIP_STORED)


class OtioTimelines:
    """The Timelines port through OpenTimelineIO: this module's two writers, as they are."""

    write = staticmethod(write_exports)
    package = staticmethod(package)


def timeline(edit: Edit) -> otio.schema.Timeline:
    """Video, narration and music tracks; the subtitle cues as markers on the timeline."""
    tl = otio.schema.Timeline(name=edit.name, global_start_time=RT(0, edit.fps))
    tl.tracks.append(_track("Video", otio.schema.TrackKind.Video, edit.video, edit))
    tl.tracks.append(_track("Narration", otio.schema.TrackKind.Audio, edit.narration, edit))
    if edit.music:
        tl.tracks.append(_track("Music", otio.schema.TrackKind.Audio, edit.music, edit))
    tl.tracks.markers.extend(_marker(m, edit.fps) for m in edit.markers)
    return tl


def _for_format(edit: Edit, kind: str) -> otio.schema.Timeline:
    """The timeline as each format can carry it. FCPXML has no timeline markers: they go on
    the video track's clip (or gap) under them. A CMX 3600 EDL is one track of events: the
    narration, which is what the cut is made of."""
    tl = timeline(edit)
    if kind == "fcpxml":
        _pin_markers(tl)
    elif kind == "edl":
        video, narration = tl.tracks[0], tl.tracks[1]
        tl.tracks.markers.clear()
        del tl.tracks[:]
        tl.tracks.extend([narration, video])
        _one_line_names(tl)
    return tl


def _one_line_names(tl: otio.schema.Timeline) -> None:
    """OTIO's EDL writer puts the title (``TITLE:``) and each clip's name (``FROM CLIP
    NAME:``) on a line of their own, raw: a line break in either forged lines (the door
    refuses one in a title; this is the writer's own guard)."""
    tl.name = header_text(tl.name)
    for track in tl.tracks:
        for clip in track.find_clips():
            clip.name = header_text(clip.name)


def _track(name: str, kind: str, clips: list[EditClip], edit: Edit) -> otio.schema.Track:
    """The clips at their frames, gaps between them, and a gap to the end of the timeline."""
    track = otio.schema.Track(name=name, kind=kind)
    at = 0
    for clip in clips:
        if clip.start > at:
            track.append(_gap(clip.start - at, edit.fps))
        track.append(_clip(clip, edit.fps))
        at = clip.start + clip.frames
    if kind == otio.schema.TrackKind.Video and at < edit.frames:
        track.append(_gap(edit.frames - at, edit.fps))
    return track


def _gap(frames: int, fps: float) -> otio.schema.Gap:
    return otio.schema.Gap(source_range=TR(RT(0, fps), RT(frames, fps)))


def _clip(clip: EditClip, fps: float) -> otio.schema.Clip:
    span = TR(RT(0, fps), RT(clip.frames, fps))
    ref = otio.schema.ExternalReference(target_url=clip.media, available_range=span)
    reel = Path(clip.media).stem.upper()  # an EDL's reel: the file's name (SEG 01 -> 01)
    metadata = {**(clip.metadata or {}), "cmx_3600": {"reel": reel}}
    return otio.schema.Clip(
        name=clip.name, media_reference=ref, source_range=span, metadata=metadata
    )


def _marker(m: EditMarker, fps: float) -> otio.schema.Marker:
    said = m.metadata["narrate"]
    comment = f"{said['layer_name']} (layer {said['layer']}), style {said['style']}"
    return otio.schema.Marker(
        name=m.name,
        marked_range=TR(RT(m.start, fps), RT(m.frames, fps)),
        color=getattr(otio.schema.MarkerColor, COLOURS.get(said["layer"], "YELLOW")),
        metadata={**m.metadata, "fcp_xml": {"comment": comment}},  # FCP7's marker comment
    )


def _pin_markers(tl: otio.schema.Timeline) -> None:
    """Move the timeline's markers onto the video item each starts in, in its own time."""
    video = tl.tracks[0]
    markers = list(tl.tracks.markers)
    tl.tracks.markers.clear()
    for marker in markers:
        start = marker.marked_range.start_time
        for item in video:
            span = item.range_in_parent()
            if span.start_time <= start < span.end_time_exclusive():
                local = item.trimmed_range().start_time + (start - span.start_time)
                if isinstance(item, otio.schema.Gap):
                    local += RT(FCPX_GAP_START * local.rate, local.rate)
                marker.marked_range = TR(local, marker.marked_range.duration)
                item.markers.append(marker)
                break
