"""One contract, two key stores: the Redis one (a hash of records, a set per tenant, the
imported digests, on a redis-server of the test's own) and the in-memory twin the fast tier
runs the API on. What a tenant's key does, above the port (service/jobs/keys.py), is run on both."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from service.adapters.memory.tenant_keys import MemoryTenantKeys
from service.domain.errors import InputError
from service.jobs.keys import KeyStore, digest
from service.ports import KeyRecord, TenantKeys


@pytest.fixture
def port(request: pytest.FixtureRequest) -> TenantKeys:
    if request.getfixturevalue("backend") == "memory":
        return MemoryTenantKeys()
    from service.adapters.redis.jobstore import JobStore
    from service.adapters.redis.tenant_keys import RedisTenantKeys

    jobs = JobStore.from_url(request.getfixturevalue("redis_url"), 2.0, 2.0)
    jobs.r.flushdb()
    return RedisTenantKeys(jobs.r)


def test_a_key_signs_in_as_its_tenant_and_a_near_miss_does_not(port: TenantKeys) -> None:
    keys = KeyStore(port)
    key = keys.create("alpha")
    assert keys.tenant(key) == "alpha"
    assert keys.tenant(key[:-1]) is None and keys.tenant(key + "x") is None
    assert keys.tenant("") is None
    forged = KeyRecord(digest("other")[:12] + "0" * 52, "mallory", 1.0)
    assert port.add(forged)  # a record whose id matches another key's digest's first digits
    assert keys.tenant("other") is None  # the whole digest is compared, not the id


def test_the_store_holds_digests_never_keys(port: TenantKeys) -> None:
    key = KeyStore(port).create("alpha", {"max_queued": 3})
    (record,) = port.all()
    assert record.digest == digest(key) and key not in repr(port.all())
    assert record.limits == {"max_queued": 3} and port.get(record.id) == record


def test_the_newest_keys_limits_win_and_revoking_removes_them(port: TenantKeys) -> None:
    keys = KeyStore(port)
    old = keys.create("alpha", {"max_queued": 3, "weight": 2})
    keys.create("alpha", {"max_queued": 7})
    keys.create("beta", {"weight": 5})
    assert keys.limits("alpha") == {"max_queued": 7, "weight": 2}
    assert keys.limits("gamma") == {}
    (gone,) = keys.revoke(digest(old)[:12])
    assert gone.tenant == "alpha" and keys.tenant(old) is None
    assert keys.limits("alpha") == {"max_queued": 7}
    assert [k.tenant for k in keys.revoke("alpha")] == ["alpha"]
    assert keys.limits("alpha") == {} and [k.tenant for k in keys.entries()] == ["beta"]
    with pytest.raises(InputError, match="no key of a tenant or with an id 'alpha'"):
        keys.revoke("alpha")


def test_a_bad_tenant_name_is_refused_naming_it(port: TenantKeys) -> None:
    with pytest.raises(InputError, match="tenant name 'Alpha!'"):
        KeyStore(port).create("Alpha!")
    assert port.all() == []


def test_an_id_taken_is_not_overwritten(port: TenantKeys) -> None:
    first = KeyRecord("a" * 64, "alpha", 1.0)
    assert port.add(first)
    assert not port.add(KeyRecord("a" * 12 + "b" * 52, "beta", 2.0))
    assert port.get("a" * 12) == first and port.of_tenant("beta") == []


def test_keys_made_at_once_are_all_kept(port: TenantKeys) -> None:
    keys, made = KeyStore(port), []
    threads = [threading.Thread(target=lambda: made.append(keys.create("alpha"))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(keys.tenant(k) == "alpha" for k in made) and len(port.of_tenant("alpha")) == 8


def test_a_keys_json_is_imported_once_and_a_revoke_holds(port: TenantKeys, tmp_path: Path) -> None:
    """An earlier version's file: imported on first use, never again, so a key revoked since
    stays revoked though the file still holds it."""
    path = tmp_path / "keys.json"
    entry = {"tenant": "alpha", "created": 5.0, "limits": {"weight": 3}}
    path.write_text(json.dumps({digest("nk_old"): entry, digest("nk_b"): {"tenant": "beta"}}))
    keys = KeyStore(port, path)
    assert keys.tenant("nk_old") == "alpha" and keys.limits("alpha") == {"weight": 3}
    assert keys.import_file(path) == 0  # once
    keys.revoke("alpha")
    again = KeyStore(port, path)  # another process (or a restart) on the same store
    assert again.tenant("nk_old") is None and again.tenant("nk_b") == "beta"
    assert [k.tenant for k in again.entries()] == ["beta"]


def test_another_processs_change_of_limits_is_seen_within_a_second(port: TenantKeys) -> None:
    """The dispatcher's reads of a tenant's weight are cached for at most a second; its keys
    (the sign-in) never: a revoke elsewhere is refused at once."""
    now = [100.0]
    dispatcher, cli = KeyStore(port, clock=lambda: now[0]), KeyStore(port)
    key = cli.create("alpha", {"weight": 2})
    assert dispatcher.limits("alpha") == {"weight": 2}
    cli.create("alpha", {"weight": 5})
    now[0] += 0.5
    assert dispatcher.limits("alpha") == {"weight": 2}  # within the second
    now[0] += 0.6
    assert dispatcher.limits("alpha") == {"weight": 5}
    cli.revoke(digest(key)[:12])
    assert dispatcher.tenant(key) is None  # at once
