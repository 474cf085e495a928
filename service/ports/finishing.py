"""What the pipeline reads and writes through beside ffmpeg: the subtitle style presets
(``Styles``), the editor timelines (``Timelines``) and a workspace on the local disk for a job
run in one process (``LocalWork``). service/wiring.py gives the adapters
(service/adapters/files/, service/adapters/storage/local.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Protocol

from service.domain.edit import Edit
from service.domain.options import Export
from service.domain.spec import JobSpec
from service.domain.style import Style
from service.ports.storage import Workspace


class Styles(Protocol):
    def job_style(self, spec: JobSpec) -> Style:
        """The job's resolved style; a ScriptError naming ``style preset`` for an unknown one."""
        ...


class Timelines(Protocol):
    def write(
        self,
        edit_at: Callable[[float], Edit],
        fps: float | None,
        exports: Iterable[Export],
        outdir: Path,
    ) -> list[str]:
        """Each export named (``otio``, ``fcpxml``, ``fcp7``, ``edl``) into ``outdir``, laid
        out by ``edit_at`` at that export's rate; the file names written."""
        ...

    def package(self, path: Path, files: Mapping[str, Path]) -> None:
        """A zip of ``files`` (name inside the zip -> file): the timelines beside their media."""
        ...


class LocalWork(Protocol):
    def workspace(self, root: Path, inputs: Mapping[str, Path]) -> Workspace:
        """A workspace under ``root`` with each input (``video``, ``music``, a take's part ->
        its file) where ``Workspace.input`` finds it, linked (or copied) in."""
        ...
