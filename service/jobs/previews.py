"""Style stills for the studio's style picker: the sample cues (service/domain/preview.py)
written as the job's subtitles.ass would be, drawn by libass on a frame of the job's video
(or a neutral background) through the Stills port; kept in a small cache by what they
depend on, so the picker's repeated looks cost nothing."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from service.domain.job import Job
from service.domain.preview import StillKey, frame_of, sample_cues
from service.domain.style import PresetData, StylesData, StyleSpec, presets_table, resolve
from service.domain.subtitles.writers import Canvas, write_ass
from service.ports import JobFiles
from service.ports.stills import Stills

CACHE_BYTES = 48 << 20  # the cache's bound: ~150 stills at 540 px
DRAWING = 2  # stills drawn at once (each an ffmpeg): more wait their turn


@dataclass(frozen=True, slots=True)
class Still:
    png: bytes
    etag: str


class StylePreviews:
    def __init__(
        self,
        styles: Callable[[], StylesData],
        stills: Stills,
        storage: JobFiles,
        font: str,
    ) -> None:
        self.styles, self.stills, self.storage, self.font = styles, stills, storage, font
        self._cache: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self._drawing = threading.BoundedSemaphore(DRAWING)

    def presets(self) -> dict[str, PresetData]:
        """Every preset by name, the built-in ``default`` first."""
        return presets_table(self.styles())

    def key(self, name: str, job: Job | None, at: float, width: int, frame: str | None) -> StillKey:
        """What the still of style ``name`` depends on; KeyError for an unknown style."""
        if name not in self.presets():
            raise KeyError(name)
        style = resolve(self.styles(), StyleSpec(preset=name), self.font)
        video = job.plan.video if job is not None else None
        if video is not None:
            size = (video.width, video.height)
            at = min(max(0.0, at), max(0.0, video.duration - 0.05))
        else:
            size = frame_of(name, frame)
        language = job.spec.language if job is not None else "zh"
        canvas = Canvas(size[0], size[1], self.font, language, style)
        job_id = job.id if job is not None and video is not None else None
        ass = write_ass(sample_cues(language), canvas)
        return StillKey(ass, size, job_id, round(at, 1), width)

    def draw(self, key: StillKey, job: Job | None) -> Still:
        """The PNG for ``key`` (drawn once, then from the cache)."""
        with self._lock:
            if (png := self._cache.get(key.etag)) is not None:
                self._cache.move_to_end(key.etag)
                return Still(png, key.etag)
        with self._drawing:
            png = self._draw(key, job)
        with self._lock:
            self._cache[key.etag] = png
            while sum(map(len, self._cache.values())) > CACHE_BYTES and len(self._cache) > 1:
                self._cache.popitem(last=False)
        return Still(png, key.etag)

    def _draw(self, key: StillKey, job: Job | None) -> bytes:
        if key.job is None or job is None:
            return self.stills.draw(key.ass, key.size, key.width, None, key.at)
        work = self.storage.workspace(job.tenant, job.id)
        try:
            return self.stills.draw(key.ass, key.size, key.width, work.input("video"), key.at)
        finally:
            work.close()
