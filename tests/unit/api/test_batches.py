"""The batch API in-process: many scripts in one request, validated together at the door,
each an ordinary job carrying the batch; the zip of every item's artifacts. The same flow
over real Redis, Celery and uvicorn is tests/integration/stack/test_batches.py."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

from service.domain.errors import StoreUnavailable
from tests.support.fleet import Fleet, make_fleet


def script(title: str, seconds: float = 2) -> str:
    return f"标题:{title}\n\n[段 1 · {seconds:g} 秒 开场] 代码测试通过以后,再做优化。\n"


def spec(title: str, seconds: float = 2.5) -> dict[str, Any]:
    return {
        "title": title,
        "language": "zh",
        "segments": [{"text": "评分员排序。", "seconds": seconds}],
    }


BAD = {"title": "bad", "language": "zh", "segments": [{"text": "好", "seconds": -1}]}


def test_a_batch_makes_one_job_per_item_and_zips_their_artifacts(fleet: Fleet) -> None:
    body = {
        "items": [{"name": "intro", "script": script("一")}, {"name": "outro", "spec": spec("二")}],
        "options": {"engine": "espeak"},
    }
    with fleet.client() as c:
        r = c.post("/v1/batches", json=body)
        assert r.status_code == 202, r.text
        batch = r.json()
        assert batch["counts"]["queued"] == 2 and batch["status"] == "queued"
        assert [i["name"] for i in batch["items"]] == ["intro", "outro"]
        fleet.work()
        done = c.get(f"/v1/batches/{batch['id']}").json()
        assert done["status"] == "succeeded" and done["progress"] == 1.0
        assert done["counts"]["succeeded"] == 2
        expected: dict[str, bytes] = {}
        for item in done["items"]:
            job = c.get(f"/v1/jobs/{item['job']}").json()
            assert job["batch"] == batch["id"] and job["status"] == "succeeded"
            for name, url in job["links"]["artifacts"].items():
                expected[f"{item['name']}/{name}"] = c.get(url).content
        z = c.get(done["links"]["artifacts"])
        assert z.status_code == 200 and z.headers["content-type"] == "application/zip"
        archive = zipfile.ZipFile(io.BytesIO(z.content))
        assert sorted(archive.namelist()) == sorted(expected)
        assert "intro/narration.wav" in expected and "outro/subtitles.srt" in expected
        for name, data in expected.items():
            assert archive.read(name) == data
        assert [b["id"] for b in c.get("/v1/batches").json()["batches"]] == [batch["id"]]


def test_one_bad_item_refuses_the_whole_batch_naming_it(fleet: Fleet) -> None:
    body = {"items": [{"name": "good", "spec": spec("好")}, {"name": "broken", "spec": BAD}]}
    with fleet.client() as c:
        r = c.post("/v1/batches", json=body)
        assert r.status_code == 422, r.text
        (problem,) = r.json()["detail"]
        assert problem["loc"] == ["items", 1, "segments", 0, "seconds"]
        assert "item 2 (broken)" in problem["msg"] and "segment 1 seconds" in problem["msg"]
        assert c.get("/v1/jobs").json()["jobs"] == []  # nothing of the batch was created
        assert c.get("/v1/batches").json()["batches"] == []
        assert fleet.queue.waiting() == 0


def test_partial_creates_the_good_items_and_lists_the_bad(fleet: Fleet) -> None:
    body = {
        "items": [{"name": "good", "spec": spec("好")}, {"name": "broken", "spec": BAD}],
        "partial": True,
    }
    with fleet.client() as c:
        r = c.post("/v1/batches", json=body)
        assert r.status_code == 202, r.text
        batch = r.json()
        assert [i["name"] for i in batch["items"]] == ["good"]
        (refused,) = batch["refused"]
        assert refused["name"] == "broken"
        assert refused["detail"][0]["loc"] == ["items", 1, "segments", 0, "seconds"]
        assert len(c.get("/v1/jobs").json()["jobs"]) == 1
        item = batch["items"][0]["job"]  # an ordinary job: its source, a re-render of it
        source = c.get(f"/v1/jobs/{item}/source").json()
        child = c.post(f"/v1/jobs/{item}/rerender", json={"spec": source["spec"]})
        assert child.status_code == 202, child.text
        assert c.get(child.headers["Location"]).json()["parent"] == item


def test_videos_pair_with_scripts_by_name(fleet: Fleet, short_video: Path) -> None:
    clip = short_video.read_bytes()
    files: list[tuple[str, Any]] = [
        ("script", ("a.md", script("甲", 3).encode(), "text/markdown")),
        ("script", ("b.md", script("乙").encode(), "text/markdown")),
        ("video", ("a.mp4", clip, "video/mp4")),
        ("options", (None, '{"engine": "espeak"}')),
    ]
    with fleet.client() as c:
        r = c.post("/v1/batches", files=files)
        assert r.status_code == 202, r.text
        jobs = {i["name"]: fleet.service.owned(i["job"], "local") for i in r.json()["items"]}
        assert jobs["a"] is not None and jobs["a"].has_video
        assert jobs["b"] is not None and not jobs["b"].has_video
        stray = [*files, ("video", ("c.mp4", clip, "video/mp4"))]
        r = c.post("/v1/batches", files=stray)
        assert r.status_code == 422
        assert r.json()["detail"][0]["loc"] == ["video", "c.mp4"]
        assert len(c.get("/v1/jobs").json()["jobs"]) == 2  # the first batch's only
    uploads = sorted(p.parent.parent.name for p in fleet.settings.data_dir.rglob("source.*"))
    assert uploads == [jobs["a"].id]  # the refused batch left no upload behind


def test_the_idempotency_key_covers_the_whole_batch(fleet: Fleet) -> None:
    body = {"items": [{"name": "x", "spec": spec("x")}, {"name": "y", "spec": spec("y")}]}
    with fleet.client() as c:
        key = {"Idempotency-Key": "day-1"}
        first, again = (c.post("/v1/batches", json=body, headers=key) for _ in range(2))
        assert first.status_code == again.status_code == 202
        assert first.json()["id"] == again.json()["id"]
        assert len(c.get("/v1/jobs").json()["jobs"]) == 2
        other = c.post("/v1/batches", json=body | {"partial": True}, headers=key)
        assert other.status_code == 409


def test_the_item_limit_is_refused_naming_it(tmp_path: Path) -> None:
    fleet = make_fleet(tmp_path, batch_max_items=2)
    body = {"items": [{"name": f"n{i}", "spec": spec(str(i))} for i in range(3)]}
    with fleet.client() as c:
        r = c.post("/v1/batches", json=body)
        assert r.status_code == 422
        assert "batch_max_items" in r.json()["detail"][0]["msg"]
        assert c.get("/v1/jobs").json()["jobs"] == []


def test_delete_cancels_every_unfinished_item_and_listing_pages(fleet: Fleet) -> None:
    with fleet.client() as c:
        ids = []
        for n in range(3):
            body = {
                "items": [{"name": "a", "spec": spec(f"{n}")}, {"name": "b", "spec": spec("b")}]
            }
            ids.append(c.post("/v1/batches", json=body).json()["id"])
        r = c.delete(f"/v1/batches/{ids[0]}")
        assert r.json() == {"id": ids[0], "canceled": 2}
        gone = c.get(f"/v1/batches/{ids[0]}").json()
        assert gone["status"] == "canceled" and gone["counts"]["canceled"] == 2
        first = c.get("/v1/batches", params={"limit": 2}).json()
        rest = c.get("/v1/batches", params={"limit": 2, "cursor": first["next_cursor"]}).json()
        assert [b["id"] for b in first["batches"] + rest["batches"]] == ids[::-1]
        assert rest["next_cursor"] is None


def test_an_item_names_its_video_and_the_byte_limit_names_itself(
    tmp_path: Path, short_video: Path
) -> None:
    fleet = make_fleet(tmp_path, batch_max_bytes=1 << 20)
    clip = short_video.read_bytes()
    files: list[tuple[str, Any]] = [
        ("script", ("a.md", script("甲", 3).encode(), "text/markdown")),
        ("video", ("clip.mp4", clip, "video/mp4")),
        ("batch", (None, '{"items": [{"name": "a", "video": "clip.mp4"}]}')),
        ("options", (None, '{"engine": "espeak"}')),
    ]
    with fleet.client() as c:
        for size in (3 << 20, 3 << 19):  # refused by its length, and as the bytes arrive
            big = c.post("/v1/batches", files=[*files, ("music", ("a.wav", bytes(size)))])
            assert big.status_code == 413 and "batch_max_bytes" in big.text
        r = c.post("/v1/batches", files=files)
        assert r.status_code == 202, r.text
        job = fleet.service.owned(r.json()["items"][0]["job"], "local")
        assert job is not None and job.has_video  # clip.mp4, named by the item


def test_odd_items_are_refused_never_lost(fleet: Fleet) -> None:
    twice = {"items": [{"name": "a", "spec": spec("1")}, {"name": "a", "spec": spec("2")}]}
    odd = {"items": [{"name": ["a"], "spec": spec("1")}, {"name": "b", "video": 5}]}
    with fleet.client() as c:
        r = c.post("/v1/batches", json=twice)
        assert r.status_code == 422 and "used twice: a" in r.json()["detail"][0]["msg"]
        r = c.post("/v1/batches", json=odd)
        assert r.status_code == 422
        assert [p["loc"] for p in r.json()["detail"]] == [
            ["items", 0, "name"],
            ["items", 1, "video"],
        ]
        assert c.get("/v1/jobs").json()["jobs"] == []


def test_a_store_failing_midway_leaves_no_part_of_the_batch(fleet: Fleet) -> None:
    """The job store refuses the second item's job: 503, and the first item's job, its
    queued tasks and the batch record go too (the tasks find no job and do nothing)."""
    store = fleet.store
    real, calls = store.create, []

    def flaky(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise StoreUnavailable("the job store is unavailable (ConnectionError)")
        return real(*args, **kwargs)

    store.create = flaky  # type: ignore[method-assign]
    body = {"items": [{"name": n, "spec": spec(n)} for n in ("a", "b", "c")]}
    with fleet.client() as c:
        r = c.post("/v1/batches", json=body, headers={"Idempotency-Key": "k1"})
        assert r.status_code == 503, r.text
        assert c.get("/v1/jobs").json()["jobs"] == []
        assert c.get("/v1/batches").json()["batches"] == []
        fleet.work()
        assert c.get("/v1/jobs").json()["jobs"] == []
        store.create = real  # type: ignore[method-assign]
        again = c.post("/v1/batches", json=body, headers={"Idempotency-Key": "k1"})
        assert again.status_code == 202 and len(again.json()["items"]) == 3  # the retry is new
