"""The browser guard's pure parts: which Host names are allowed, and what "same origin" is."""

from __future__ import annotations

import pytest

from service.api.guard import host_name, same_origin
from service.config import Settings


@pytest.mark.parametrize(
    ("host", "allowed", "expected"),
    [
        ("127.0.0.1", "", {"localhost", "127.0.0.1", "[::1]"}),
        ("0.0.0.0", "", {"localhost", "127.0.0.1", "[::1]"}),  # a wildcard names nothing
        ("::", "", {"localhost", "127.0.0.1", "[::1]"}),
        ("10.0.0.5", "", {"localhost", "127.0.0.1", "[::1]", "10.0.0.5"}),
        ("fe80::1", "", {"localhost", "127.0.0.1", "[::1]", "[fe80::1]"}),
        ("0.0.0.0", "Narrate.Example, api,::1", {"narrate.example", "api", "[::1]"}),
        ("0.0.0.0", "narrate.example,*", None),
    ],
)
def test_allowed_host_names(host: str, allowed: str, expected: set[str] | None) -> None:
    names = Settings(host=host, allowed_hosts=allowed).allowed_host_names
    assert names == (None if expected is None else frozenset(expected))


def test_host_names_and_origins() -> None:
    assert host_name("Localhost:8000") == "localhost"
    assert host_name("localhost.") == "localhost"
    assert host_name("[::1]:8000") == "[::1]"
    assert host_name("evil.example:8000") == "evil.example"
    assert same_origin("http://127.0.0.1:8000", "127.0.0.1:8000")
    assert same_origin("https://narrate.example", "narrate.example:443")
    assert same_origin("http://narrate.example:80", "narrate.example")
    assert not same_origin("http://localhost:8001", "localhost:8000")
    assert not same_origin("http://127.0.0.1:8000.evil", "127.0.0.1:8000")
    assert not same_origin("null", "127.0.0.1:8000")
    assert not same_origin("file://", "127.0.0.1:8000")
