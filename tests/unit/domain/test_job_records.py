"""Records written by the previous version still read: the bytes main 007f7dc's Redis store
wrote for a succeeded and a failed job (tests/data/records/, made by the script beside
them) are upgraded by the one registry (service/domain/schemas.py) and read as the job they
were; and the older shapes the registry knows (plain sentences, no plan) read too."""

from __future__ import annotations

import json

from service.domain import schemas
from service.domain.job import JobStatus, SegmentRecord
from service.domain.job_record import new_record, read_job, read_segment, write_segment
from service.domain.notices import Notice
from service.domain.subtitles.cues import TimedPhrase
from service.domain.wire import JsonObject
from service.pipeline.results import SegmentResult
from tests.support.data import DATA

MAIN = json.loads((DATA / "records" / "jobs-007f7dc.json").read_text(encoding="utf-8"))


def test_a_succeeded_job_stored_by_the_previous_version_reads_whole() -> None:
    raw = MAIN["succeeded"]
    job = read_job(raw["job"], raw["seg"])
    assert job is not None and job.status is JobStatus.SUCCEEDED
    stored_spec, stored_options = json.loads(raw["job"]["spec"]), json.loads(raw["job"]["options"])
    # The copies the record no longer keeps are the plan's own.
    assert job.spec.model_dump(mode="json") == stored_spec
    assert job.submitted.model_dump(mode="json") == stored_options
    assert job.plan.complete and job.plan.video is not None and job.has_video
    assert job.artifacts == ["narration.wav", "subtitles.srt", "video.mp4"]
    assert job.warnings == [Notice(code="fit.stretched", message="stretched", segment=1)]
    assert (job.stage, job.stage_progress, job.progress, job.timings) == (
        "done",
        1.0,
        1.0,
        {"mux": 0.5},
    )
    assert job.segments[0] == SegmentRecord(
        "done", "w1", 42, 1700000001.5, 1, "espeak", "cmn", 1.0, 1.02, 1700000002.5,
        [Notice(code="fit.stretched", message="stretched", segment=1)], 1,
    )  # fmt: skip
    assert job.started == 1700000001.5 and job.segments[1].tts_calls == 0


def test_a_failed_job_stored_by_the_previous_version_keeps_its_error() -> None:
    raw = MAIN["failed"]
    job = read_job(raw["job"], raw["seg"])
    assert job is not None and job.status is JobStatus.FAILED and job.terminal
    assert job.error == Notice(code="engine", message="segment 1: boom", segment=1)
    assert job.segments[0].state == "running" and job.segments[1] == SegmentRecord()


def test_a_record_written_now_reads_back_as_the_job_it_was() -> None:
    old = read_job(MAIN["succeeded"]["job"], {})
    assert old is not None
    fields = {k: str(v) for k, v in new_record(old, "").items()}
    assert fields[schemas.SCHEMA_FIELD] == str(schemas.current(schemas.JOB))
    assert "spec" not in fields and "options" not in fields  # no copies beside the plan
    again = read_job(fields, {})
    assert again is not None and again.plan == old.plan and again.status is JobStatus.QUEUED
    done = SegmentRecord("done", engine="espeak", warnings=[Notice(code="c", message="m")])
    assert read_segment(write_segment(done)) == done


def test_older_shapes_read_through_the_registry() -> None:
    """Plain sentences (before notices were typed) and a record with no plan (before plans
    were kept): the upgrade steps make them the current shape."""
    fields = dict(MAIN["failed"]["job"])
    plan = json.loads(fields.pop("plan"))
    fields["error"] = "finalize timed out after 540 s"
    fields["status"] = "canceled"
    fields["warnings"] = json.dumps(["segment 1: squeezed to 9 syllables/s"])
    job = read_job(fields, {"0": json.dumps({"state": "done", "warnings": ["said once"]})})
    assert job is not None
    assert job.error == Notice(code="canceled", message="finalize timed out after 540 s")
    assert job.warnings == [Notice(code="warning", message="segment 1: squeezed to 9 syllables/s")]
    assert job.segments[0].warnings == [Notice(code="warning", message="said once")]
    assert not job.plan.complete  # planned again by the steps, from the spec and options kept
    assert job.spec.model_dump(mode="json") == plan["spec"]
    assert job.submitted.model_dump(mode="json") == json.loads(fields["options"])


def test_every_step_is_registered_once_in_order() -> None:
    steps = schemas.registered()
    assert [v for v, _ in steps[schemas.JOB]] == [2, 3, 4, 5]
    assert schemas.current(schemas.SEGMENT) == 2 and schemas.current("nothing") == 1
    # A record of a later version (a newer release wrote it) is read as it is.
    assert schemas.upgrade(schemas.SEGMENT, {"schema": 9, "state": "x"}) == {
        "schema": 9,
        "state": "x",
    }


def test_a_segment_result_of_an_earlier_version_reads_with_its_phrases_and_notices() -> None:
    """A worker's result kept each phrase as a [start, end, ms, ms] row and its warnings as
    sentences; one written now carries its version and reads back the same."""
    old = {
        "index": 0, "slot_ms": 4000, "natural_ms": 3000, "speech_ms": 2900, "native_rate": 1.0,
        "stretch_ratio": 1.0, "engine": "espeak", "voice": "cmn", "sample_rate": 24000,
        "audio": "segment-000.wav", "phrases": [[0, 4, 0, 1200]], "warnings": ["squeezed"],
    }  # fmt: skip
    result = SegmentResult.from_json(json.dumps(old))
    assert result.phrases == [TimedPhrase(0, 4, 0, 1200)]
    assert result.warnings == [Notice(code="warning", message="squeezed")]
    stored = json.loads(result.to_json())
    assert stored[schemas.SCHEMA_FIELD] == schemas.current(schemas.SEGMENT_RESULT)
    assert SegmentResult.from_json(result.to_json()) == result


def test_a_delivery_queued_with_no_endpoint_named_is_to_the_job_s_own_url() -> None:
    old: JsonObject = {"id": "msg_1", "tenant": "t", "job_id": "j", "event": "job.succeeded"}
    assert schemas.upgrade(schemas.DELIVERY, old)["endpoint"] == ""
    assert schemas.current(schemas.DELIVERY) == 2
