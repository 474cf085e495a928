"""The storage port: the pipeline's intermediate files go through a Workspace, so segments
rendered on one machine and finalized on another (an object store between them) work with
no change to the pipeline; and the local adapter's own rules."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from service.adapters.storage.local import LocalStorage, LocalWorkspace
from service.domain.errors import InputError
from service.pipeline import staged_artifacts


class BucketWorkspace:
    """Another storage: each machine has its own local directory; ``keep`` uploads to a shared
    bucket, ``fetch`` downloads from it (what an S3 adapter does)."""

    def __init__(self, local_dir: Path, bucket: Path) -> None:
        self.dir, self.bucket = local_dir, bucket
        local_dir.mkdir(parents=True, exist_ok=True)
        bucket.mkdir(parents=True, exist_ok=True)
        self.fetched: list[str] = []

    def local(self, name: str) -> Path:
        return self.dir / name

    def keep(self, name: str) -> None:
        shutil.copyfile(self.dir / name, self.bucket / name)

    def fetch(self, name: str) -> Path:
        shutil.copyfile(self.bucket / name, self.dir / name)  # FileNotFoundError if never kept
        self.fetched.append(name)
        return self.dir / name

    def input(self, kind: str) -> Path:
        raise FileNotFoundError(2, "the job has no such input", kind)  # nothing was uploaded

    def scratch(self) -> Path:
        return self.dir

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def test_local_workspace_is_the_work_directory(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)
    work = storage.workspace("alpha", "job1")
    assert isinstance(work, LocalWorkspace)
    work.local("segment-000.wav").write_bytes(b"x")
    work.keep("segment-000.wav")
    assert work.fetch("segment-000.wav") == tmp_path / "alpha" / "job1" / "work" / "segment-000.wav"
    with pytest.raises(FileNotFoundError):
        work.fetch("segment-001.wav")
    for bad in ("../keys.json", "a/b", ".hidden", ""):
        with pytest.raises(InputError, match="invalid work file name"):
            work.local(bad)


def test_work_files_go_and_artifacts_stay_when_work_is_cleared(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)
    storage.put_work("alpha", "job1", "segment-000.json", b"{}")
    assert storage.get_work("alpha", "job1", "segment-000.json") == b"{}"
    staged = storage.staging("alpha", "job1")
    (staged / "narration.wav").write_bytes(b"RIFF")
    assert storage.publish("alpha", "job1", staged, ("narration.wav", "video.mp4")) == [
        "narration.wav"
    ]
    storage.staging("alpha", "job1")  # a finalize killed before it published
    storage.clear_work("alpha", "job1")
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    assert left == [
        "alpha",
        "alpha/job1",
        "alpha/job1/artifacts",
        "alpha/job1/artifacts/narration.wav",
    ]
    assert storage.served("alpha", "job1", "narration.wav") is not None


def test_a_symlinked_artifact_is_not_served(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)
    target = storage.artifact("alpha", "job1", "subtitles.srt")
    target.parent.mkdir(parents=True)
    os.symlink("/etc/passwd", target)
    assert storage.served("alpha", "job1", "subtitles.srt") is None
    assert storage.served("alpha", "job1", "video.mp4") is None


def test_segments_are_published_under_their_folder_and_nothing_else_leaves_it(
    tmp_path: Path,
) -> None:
    storage = LocalStorage(tmp_path / "root")
    staged = storage.staging("alpha", "job1")
    (staged / "segments").mkdir()
    (staged / "segments" / "01.wav").write_bytes(b"RIFF")
    (staged / "segments" / "notes.txt").write_bytes(b"not an artifact")
    (staged / "timeline.otio").write_text("{}")
    names = staged_artifacts(staged)
    assert names == ("timeline.otio", "segments/01.wav")
    assert storage.publish("alpha", "job1", staged, names) == list(names)
    served = storage.served("alpha", "job1", "segments/01.wav")
    assert served is not None and served.read(0, 4) == b"RIFF"
    (tmp_path / "root" / "alpha" / "secret.wav").write_bytes(b"RIFF")
    for bad in ("segments/../../secret.wav", "../secret.wav", "work/01.wav", "/etc/passwd"):
        with pytest.raises(InputError, match="invalid artifact name"):
            storage.served("alpha", "job1", bad)
