"""A batch request's body -> its items, each parsed (spec, options, paired video and music)
or refused with problems under its place (["items", i, ...]). JSON:
``{"items": [{"name", "spec" | "script", "options"?, "video"?, "music"?}], "options"?,
"preset"?, "partial"?}``; multipart: ``script`` parts (each an item named by its file),
``video``/``music`` parts paired by name (intro.mp4 with intro.md) or named by an item's
``video``/``music`` field, ``take`` parts paired by name (intro.take-2.wav: segment 2 of
intro), ``options`` (shared) and ``batch`` (that JSON, for overrides)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from pydantic import ValidationError

from service.api.intake import check_unicode, json_object
from service.domain.batch import (
    ItemsInvalid,
    check_distinct,
    check_item_name,
    item_name,
    item_problems,
    merged,
)
from service.domain.errors import InputError, Problem
from service.domain.fields import FORBIDDEN
from service.domain.options import options_error
from service.domain.script import parse_script
from service.domain.spec import JobSpec, RenderOptions, spec_from_data
from service.domain.takes import is_take
from service.domain.wire import JsonObject, JsonValue
from service.jobs.batches import ItemRequest


@dataclass
class Groups:
    """Uploads by name group: each group's job id and its files' local paths."""

    ids: dict[str, str] = field(default_factory=dict)  # group -> job id
    files: dict[str, tuple[str, str, Path]] = field(default_factory=dict)  # file -> group
    claimed: dict[str, str] = field(default_factory=dict)  # group -> item name


ABSENT: Final = object()  # a field the item does not give (``"spec": null`` is given)


@dataclass(frozen=True)
class Entry:
    """One item of the request: its fields as sent (each checked when the item is parsed, so
    a problem names its item) and the script part it came from, if any."""

    name: object = None
    spec: object = ABSENT  # a JSON job spec
    script: object = ABSENT  # a script's text
    options: object = ABSENT  # its own options, over the batch's
    video: object = None  # the name of its uploaded video part
    music: object = None
    upload: tuple[str, bytes] | None = None  # (file name, bytes) of its script part

    @classmethod
    def of(cls, sent: Mapping[str, object], upload: tuple[str, bytes] | None = None) -> Entry:
        """An item of ``items`` as sent (its other fields are ignored, as they always were)."""
        return cls(
            name=sent.get("name"),
            spec=sent.get("spec", ABSENT),
            script=sent.get("script", ABSENT),
            options=sent.get("options", ABSENT),
            video=sent.get("video"),
            music=sent.get("music"),
            upload=upload,
        )


@dataclass(frozen=True)
class Shared:
    """What the batch gives every item: its options and its preset."""

    options: JsonObject  # as sent: each item's own merged over them, then validated
    preset: JsonValue  # as sent, validated with the options

    def options_of(self, entry: Entry) -> RenderOptions:
        own = {} if entry.options is ABSENT else entry.options
        if not isinstance(own, dict):
            raise InputError("options must be an object", loc=("options",))
        data = merged(self.options, own)
        if self.preset is not None and "preset" not in own:
            data["preset"] = self.preset
        try:
            return RenderOptions.model_validate(data)
        except ValidationError as exc:
            raise options_error(exc.errors()) from None


def batch_request(listed: object, scripts: list[tuple[str, bytes]]) -> list[Entry]:
    """The items in order: one per script part (by its file's name, overridden by an item of
    that name in ``items``: ``listed``, as sent), then the other ``items``."""
    if not isinstance(listed, list) or not all(isinstance(e, dict) for e in listed):
        raise InputError("'items' must be a list of objects", loc=("items",))
    names = [e["name"] for e in listed if isinstance(e.get("name"), str)]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputError(f"item names used twice: {', '.join(twice)}", loc=("items",))
    by_name = {e["name"]: e for e in listed if isinstance(e.get("name"), str)}
    out: list[Entry] = []
    for filename, raw in scripts:
        name = item_name(filename)
        out.append(Entry.of({"name": name, **by_name.pop(name, {})}, (filename, raw)))
    out += [
        Entry.of(e) for e in listed if not isinstance(e.get("name"), str) or e["name"] in by_name
    ]
    check_distinct(e.name for e in out if isinstance(e.name, str))
    return out


def _spec(entry: Entry, name: str) -> JobSpec:
    if entry.spec is not ABSENT:
        spec = spec_from_data(entry.spec)
    elif entry.script is not ABSENT or entry.upload is not None:
        filename, raw = entry.upload or (f"{name}.md", entry.script)
        try:
            text = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
        except UnicodeDecodeError:
            raise InputError("the script is not UTF-8 text", loc=("script",)) from None
        spec = parse_script(text, filename)
    else:
        raise InputError(f"no script: give 'spec' or 'script', or upload {name}.md", loc=())
    check_unicode(spec)
    return spec


def _pair(entry: Entry, name: str, groups: Groups, kind: str) -> tuple[str | None, Path | None]:
    """The group the item's ``kind`` upload is in (named, or by the item's name) and its file."""
    named = entry.video if kind == "video" else entry.music
    if named is not None:
        if (
            not isinstance(named, str)
            or named not in groups.files
            or groups.files[named][1] != kind
        ):
            raise InputError(f"{kind} {named!r} is not an uploaded {kind} part", loc=(kind,))
        group, _, path = groups.files[named]
        return group, path
    for group, k, path in groups.files.values():
        if group == name and k == kind:
            return group, path
    return None, None


def _takes(name: str, groups: Groups) -> dict[str, tuple[str, Path]]:
    """The item's takes, paired by its name: take part (take-2, take) -> (file, its path)."""
    return {
        kind: (file, path)
        for file, (group, kind, path) in groups.files.items()
        if group == name and is_take(kind)
    }


def _item(
    i: int, entry: Entry, shared: Shared, groups: Groups, new_id: Callable[[], str]
) -> ItemRequest:
    raw_name = entry.name
    try:
        name = check_item_name(raw_name)
        if name in groups.claimed.values():
            raise InputError(f"item name {name!r} is used twice", loc=("name",))
        vgroup, video = _pair(entry, name, groups, "video")
        mgroup, music = _pair(entry, name, groups, "music")
        if vgroup and mgroup and vgroup != mgroup:
            raise InputError("an item's video and music must share a name", loc=("music",))
        takes = _takes(name, groups)
        group = vgroup or mgroup or (name if takes else None)
        if group is not None and group in groups.claimed:
            raise InputError(f"{group!r} is already paired with item {groups.claimed[group]!r}")
        groups.claimed[group or f"\0{name}"] = name
        if takes and group != name:  # the takes are this item's: its problem, not unpaired
            groups.claimed.setdefault(name, name)
            raise InputError(f"an item's takes and its video or music must share a name ({name})")
        job_id = groups.ids[group] if group else new_id()
        return ItemRequest(
            name, job_id, _spec(entry, name), shared.options_of(entry), video, music,
            takes={k: p for k, (_, p) in takes.items()},
            take_files={k: f for k, (f, _) in takes.items()},
        )  # fmt: skip
    except InputError as exc:
        # as given when it is one (a lone surrogate cannot even be written out as JSON)
        good = isinstance(raw_name, str) and len(raw_name) <= 100
        shown = raw_name if good and not FORBIDDEN.search(str(raw_name)) else f"#{i + 1}"
        return ItemRequest(str(shown), "", problems=item_problems(i, str(shown), exc))


def parse_items(
    data: JsonObject,  # the body as sent (parse_json, or the multipart's parts)
    scripts: list[tuple[str, bytes]],
    groups: Groups,
    new_id: Callable[[], str],
) -> tuple[list[ItemRequest], bool]:
    """Every item parsed or refused, and whether the caller asked for ``partial``; uploads
    that pair with no item are a problem of their own (["video", "x.mp4"])."""
    shared = data.get("options", {})
    if not isinstance(shared, dict):
        raise InputError("options must be an object", loc=("options",))
    entries = batch_request(data.get("items", []), scripts)
    given = Shared(shared, data.get("preset"))
    items = [_item(i, e, given, groups, new_id) for i, e in enumerate(entries)]
    part = {f: "take" if is_take(kind) else kind for f, (_, kind, _) in groups.files.items()}
    stray = [
        Problem(
            "batch.unpaired",
            f"{part[f]} {f!r} pairs with no item (no {g}.md, no item {g!r})",
            (part[f], f),
        )
        for f, (g, _, _) in groups.files.items()
        if g not in groups.claimed
    ]
    if stray:  # the whole batch's problem, whatever ``partial`` says
        raise ItemsInvalid(stray)
    return items, bool(data.get("partial", False))


def parse_json(body: bytes) -> JsonObject:
    """The batch's JSON body, its wire format (parse_items reads it item by item)."""
    data = json_object(body)
    if "items" not in data:
        raise InputError("a batch needs 'items' (a list of {name, spec | script})", loc=("items",))
    return data


def parse_part(raw: str, field: str) -> JsonObject:
    """A multipart JSON field (``options``, ``batch``) as an object: its wire format."""
    try:
        found = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"{field} is not valid JSON: {exc}", loc=(field,)) from None
    if not isinstance(found, dict):
        raise InputError(f"{field} must be a JSON object", loc=(field,))
    return found
