"""A tenant's pronunciation dictionaries (/v1/lexicons): create, update (a new version; the
older ones stay readable), read, list, delete, and resolving the ones a job names at the door,
into the versions and entries its plan keeps. Another tenant's do not exist for you."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from service.domain.errors import InputError, StoreUnavailable
from service.domain.lexicons import (
    MAX_DICTIONARIES,
    MAX_VERSIONS,
    LexiconRef,
    Rule,
    Rules,
    UsedLexicon,
    check_rules,
    refs,
    used,
)
from service.domain.options import RenderOptions
from service.ports import LexiconStore, LexiconVersion

ADD_TRIES = 5  # read-modify-writes raced before an add gives up


class LexiconUnknown(InputError):
    """A job names a dictionary (or a version of one) the tenant does not have."""

    code = "lexicon.unknown"


class LexiconLimit(InputError):
    """A tenant at its limit of dictionaries, or a dictionary at its limit of versions."""

    code = "lexicon.limit"


@dataclass(frozen=True, slots=True)
class Summary:
    """One version of a dictionary, without its rules."""

    id: str
    version: int
    name: str
    language: str | None
    rules: int
    created: float


@dataclass(frozen=True, slots=True)
class Dictionary:
    summary: Summary
    rules: list[Rule]


def _about(body: Rules, now: float) -> str:
    about = {"name": body.name, "language": body.language, "rules": len(body.rules)}
    return json.dumps({**about, "created": now}, ensure_ascii=False)


def _summary(lexicon_id: str, version: int, about: str) -> Summary:
    data = json.loads(about)
    return Summary(
        lexicon_id, version, data["name"], data["language"], data["rules"], data["created"]
    )


class Lexicons:
    def __init__(self, store: LexiconStore | None, clock: Callable[[], float] = time.time) -> None:
        """``store`` None: no dictionaries kept (the one-process CLI reads PLS files)."""
        self.store = store
        self.clock = clock

    def _store(self) -> LexiconStore:
        if self.store is None:
            raise InputError(
                "dictionaries are kept by the service: `narrate render` reads PLS files"
            )
        return self.store

    def create(self, tenant: str, body: Rules) -> Summary:
        """A new dictionary, version 1 (LexiconFileError naming a bad rule)."""
        body = _checked(body)
        lexicon_id, now = uuid.uuid4().hex, self.clock()
        version = LexiconVersion(tenant, lexicon_id, _about(body, now), body.model_dump_json())
        if not self._store().create(version, MAX_DICTIONARIES):
            raise LexiconLimit(
                f"a tenant may keep at most {MAX_DICTIONARIES} dictionaries: delete one first"
            )
        return _summary(lexicon_id, 1, version.about)

    def update(self, tenant: str, lexicon_id: str, body: Rules) -> Summary | None:
        """The dictionary's next version (None: no such dictionary)."""
        body = _checked(body)
        if not _well_formed(lexicon_id):
            return None
        about = _about(body, self.clock())
        version = LexiconVersion(tenant, lexicon_id, about, body.model_dump_json())
        return self._updated(lexicon_id, self._store().update(version, MAX_VERSIONS), about)

    def add(self, tenant: str, lexicon_id: str, rules: list[Rule]) -> Summary | None:
        """``rules`` over the latest version's (one of the same word and kind replaced): a
        new version, made only on the version read, so two adds at once both land."""
        for _ in range(ADD_TRIES):
            current = self.get(tenant, lexicon_id)
            if current is None:
                return None
            s, given = current.summary, [*current.rules, *rules]
            where = [f"rules[{i - len(current.rules)}]" for i in range(len(given))]
            merged = Rules(name=s.name, language=s.language, rules=check_rules(given, where))
            about = _about(merged, self.clock())
            version = LexiconVersion(tenant, lexicon_id, about, merged.model_dump_json())
            n = self._store().update(version, MAX_VERSIONS, after=s.version)
            if n != -2:
                return self._updated(lexicon_id, n, about)
        raise StoreUnavailable(f"dictionary {lexicon_id}: changed {ADD_TRIES} times while adding")

    def _updated(self, lexicon_id: str, n: int, about: str) -> Summary | None:
        if n == -1:
            raise LexiconLimit(
                f"the dictionary has {MAX_VERSIONS} versions, the limit: create a new one "
                "(a job names it by id)"
            )
        return _summary(lexicon_id, n, about) if n else None

    def get(self, tenant: str, lexicon_id: str, version: int | None = None) -> Dictionary | None:
        if not _well_formed(lexicon_id):
            return None
        found = self._version(tenant, lexicon_id, version)
        if found is None:
            return None
        summary, data = found
        return Dictionary(summary, Rules.model_validate_json(data).rules)

    def _version(
        self, tenant: str, lexicon_id: str, version: int | None
    ) -> tuple[Summary, str] | None:
        """A version's summary and stored data, or None."""
        found = self._store().get(tenant, lexicon_id, version)
        if found is None:
            return None
        n, data = found
        abouts = self._store().versions(tenant, lexicon_id)
        if len(abouts) < n:
            return None  # deleted between the two reads
        return _summary(lexicon_id, n, abouts[n - 1]), data

    def versions(self, tenant: str, lexicon_id: str) -> list[Summary]:
        if not _well_formed(lexicon_id):
            return []
        kept = self._store().versions(tenant, lexicon_id)
        return [_summary(lexicon_id, n, about) for n, about in enumerate(kept, 1)]

    def all(self, tenant: str) -> list[Summary]:
        """The tenant's dictionaries at their latest versions, by name."""
        found = [_summary(i, n, a) for i, (n, a) in self._store().latest(tenant).items()]
        return sorted(found, key=lambda s: (s.name, s.created))

    def delete(self, tenant: str, lexicon_id: str) -> bool:
        return _well_formed(lexicon_id) and self._store().delete(tenant, lexicon_id)

    def resolve(
        self, tenant: str, options: RenderOptions, kept: list[UsedLexicon] | None = None
    ) -> tuple[RenderOptions, list[UsedLexicon]]:
        """The dictionaries the options name, each at its version (the latest when none is
        given), and the options with those versions pinned: what the job keeps. ``kept``: a
        re-render's parent's, used as they are for the versions they hold."""
        if not options.lexicons:
            return options, []
        have = {(u.id, u.version): u for u in kept or []}
        out: list[UsedLexicon] = []
        for i, ref in enumerate(refs(options.lexicons)):
            found = None
            if self.store is not None and _well_formed(ref.id):
                found = self._version(tenant, ref.id, ref.version)
            key = (ref.id, ref.version or 0)
            if found is None and key in have:  # deleted since the parent: as it was then
                out.append(have[key])
                continue
            if found is None:
                which = f" version {ref.version}" if ref.version else ""
                raise LexiconUnknown(
                    f"options lexicons[{i}]: you have no dictionary {ref.id!r}{which} "
                    "(GET /v1/lexicons lists yours)",
                    loc=("options", "lexicons", i),
                )
            summary, data = found
            out.append(used(ref.id, summary.version, summary.name, _stored_rules(data)))
        pinned = [LexiconRef(id=u.id, version=u.version) for u in out]
        return options.model_copy(update={"lexicons": pinned}), out


class _Stored(NamedTuple):
    grapheme: str
    kind: str
    value: str


def _stored_rules(data: str) -> list[_Stored]:
    """A stored version's rules, written by ``create``/``update`` once checked: read back
    without validating each again (50,000 of them for a job naming 10 full dictionaries)."""
    return [_Stored(r["grapheme"], r["kind"], r["value"]) for r in json.loads(data)["rules"]]


def _checked(body: Rules) -> Rules:
    rules = check_rules(body.rules, [f"rules[{i}]" for i in range(len(body.rules))])
    return body.model_copy(update={"rules": rules})


def _well_formed(lexicon_id: str) -> bool:
    return lexicon_id.isalnum() and lexicon_id.isascii() and len(lexicon_id) <= 64
