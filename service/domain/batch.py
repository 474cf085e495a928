"""A batch: many jobs submitted in one request, each an ordinary job carrying the batch's id.
The record keeps the items (name -> job id) and the items refused at the door; everything
else (states, progress) is read from the jobs themselves."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict, cast

from service.domain import schemas
from service.domain.errors import InputError, Problem, TakeError
from service.domain.fields import FORBIDDEN
from service.domain.job import STATES
from service.domain.presets import merged_values
from service.domain.takes import is_take
from service.domain.wire import JsonObject

_NAME = re.compile(r"[A-Za-z0-9\u00c0-\uffff][\w\u00c0-\uffff.\- ]{0,99}")
# What reads as a folder separator or a dot in a file manager: a name with one looks like
# another item's path (intro∕..／x): refused beside what the name rule refuses.
_LOOKALIKE = re.compile(
    "[\u2024\u2044\u2215\u2216\u2571\u2572\u29f8\u29f9\ufe52\uff0e\uff0f\uff3c]"
)


@dataclass(frozen=True, slots=True)
class BatchItem:
    name: str  # the item's folder in artifacts.zip and in `narrate batch --out`
    job: str


class ProblemData(TypedDict):
    """A problem as a 422 lists it (service/api/schemas.py ProblemItem)."""

    code: str
    msg: str
    loc: list[str | int]


class Refused(TypedDict):
    """An item refused at the door (``"partial": true``): its name and its 422 problems."""

    name: str
    detail: list[ProblemData]


class ItemData(TypedDict):
    name: str
    job: str


class BatchData(TypedDict):
    """A batch as its store keeps it (JSON)."""

    id: str
    tenant: str
    created: float
    items: list[ItemData]
    refused: list[Refused]
    schema: NotRequired[int]  # schemas.SCHEMA_FIELD: absent in records of version 1


@dataclass
class Batch:
    id: str
    tenant: str
    created: float
    items: list[BatchItem]
    refused: list[Refused] = field(default_factory=list)

    def to_data(self) -> BatchData:
        """The record as stored, with its schema version (service/domain/schemas.py)."""
        return {
            "id": self.id,
            "tenant": self.tenant,
            "created": self.created,
            "items": [{"name": i.name, "job": i.job} for i in self.items],
            "refused": self.refused,
            "schema": schemas.current(schemas.BATCH),
        }

    @classmethod
    def from_data(cls, data: BatchData) -> Batch:
        """A stored record (one of an older schema upgraded first)."""
        r = cast(BatchData, schemas.upgrade(schemas.BATCH, cast(JsonObject, data)))
        items = [BatchItem(i["name"], i["job"]) for i in r["items"]]
        return cls(r["id"], r["tenant"], float(r["created"]), items, r["refused"])


class ItemsInvalid(InputError):
    """Items of a batch refused at the door: every problem, each ``loc`` starting at its item
    (["items", 3, "segments", 1, "seconds"])."""

    code = "batch.invalid"

    def __init__(self, found: list[Problem]) -> None:
        super().__init__(found[0].message, found)
        self.found = found
        self.loc = found[0].loc

    def problems(self) -> list[Problem]:
        return list(self.found)


def item_problems(index: int, name: str, exc: InputError) -> list[Problem]:
    """An item's error as the batch's 422 lists it: its loc under the item, its name said."""
    return [
        Problem(p.code, f"item {index + 1} ({name}): {p.message}", ("items", index, *p.loc))
        for p in exc.problems()
    ]


def item_name(filename: str) -> str:
    """The item a file belongs to: its name without the folder and the last suffix
    ("talks/intro.md" -> "intro"), so intro.mp4 pairs with intro.md."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, _ = base.rpartition(".")
    return stem if dot and stem else base


def take_of(filename: str) -> tuple[str, str]:
    """The item and the take a batch's ``take`` part is, by its file's name: intro.take-2.wav
    is segment 2's take of intro, intro.take.wav the take of its whole script."""
    item, dot, take = item_name(filename).rpartition(".")
    if not (dot and item and is_take(take)):
        raise TakeError(
            f"{filename}: a take's file is named <item>.take-N.<ext> (segment N's) or "
            "<item>.take.<ext> (the whole script's)",
            filename,
            loc=("take", filename),
        )
    return item, take


def by_file(exc: InputError, files: dict[str, str]) -> InputError:
    """A take's error (named by its part, ``take-3: no segment 3``) as a batch names it: by
    the file (take part -> file name), ``intro.take-3.wav: no segment 3``."""
    part = exc.loc[0] if isinstance(exc, TakeError) and exc.loc else None
    file = files.get(str(part))
    if file is None:
        return exc
    said = exc.message.removeprefix(str(part))
    said = file + said if said != exc.message else f"{file}: {said}"
    return TakeError(said, file, ("take", file))


def check_item_name(name: object) -> str:
    """A name fit to be a folder (in the zip, on the caller's disk): no path, no dot first,
    no control, bidi mark or lone surrogate (an RLO shows another name than it is; a
    surrogate is no text at all), nothing that looks like a slash or a dot."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name.strip() != name:
        raise InputError(
            f"item name {ascii(name)[:120]} must be 1-100 letters, digits, spaces, '.', '_' "
            "or '-' (not first), with no folder",
            loc=("name",),
        )
    bad = FORBIDDEN.search(name) or _LOOKALIKE.search(name)
    if bad:
        raise InputError(
            f"item name {name!a} has {bad.group()!a} at {bad.start()}: a control or "
            "bidi character, or one that looks like a slash or a dot",
            loc=("name",),
        )
    return name


def folded(name: str) -> str:
    """What a name is on a case-insensitive disk that normalises Unicode (macOS, Windows):
    Intro and intro, é and e + U+0301, ｉｎｔｒｏ and intro are one folder there."""
    return unicodedata.normalize("NFKC", name).casefold()


def check_distinct(names: Iterable[str]) -> None:
    """InputError naming two items whose folders would be one once the zip is unpacked."""
    seen: dict[str, str] = {}
    for name in names:
        other = seen.setdefault(folded(name), name)
        if other != name:
            raise InputError(
                f"item names {other!a} and {name!a} are one folder once unzipped "
                "on many systems (they differ only in case or Unicode form): rename one",
                loc=("items",),
            )


# An item's options: the batch's, with the item's own over them (objects key by key), as a
# job's options go over its preset's.
merged = merged_values


def counts(statuses: Iterable[str]) -> dict[str, int]:
    """Items by state, every state present (0 where none)."""
    out = dict.fromkeys(STATES, 0)
    for s in statuses:
        out[s] = out.get(s, 0) + 1
    return out


def batch_status(by_state: dict[str, int]) -> str:
    """queued until one starts, running until every item ends; then succeeded if all did,
    failed if any failed, canceled otherwise."""
    total = sum(by_state.values())
    if by_state["queued"] == total:
        return "queued"
    if by_state["queued"] or by_state["running"]:
        return "running"
    if by_state["succeeded"] == total:
        return "succeeded"
    return "failed" if by_state["failed"] else "canceled"
