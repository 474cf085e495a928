"""docs/reference/settings.md from service/config.py: each Settings field as its NARRATE_*
variable, with its type, default and the comments written beside it in the source (the
comments are the documentation; pydantic never sees them, so the source is read with ast and
tokenize). The few variables read outside Settings are listed after."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.config import Settings

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "service" / "config.py"
# Variables the code reads with os.environ, outside Settings (caches, the CLI's client).
ENV_READ = re.compile(r"""["'](NARRATE_[A-Z0-9_]+)["']""")


@dataclass
class Group:
    """Fields declared together: the comment above them, and each field's own comment."""

    heading: str
    note: str = ""
    # (name, annotation as written, trailing comment)
    fields: list[tuple[str, str, str]] = field(default_factory=list)


def _comments(source: str) -> dict[int, tuple[str, bool]]:
    """line -> (comment text, whether the comment is the whole line)."""
    found: dict[int, tuple[str, bool]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            whole = not tok.line[: tok.start[1]].strip()
            found[tok.start[0]] = (tok.string.lstrip("#").strip(), whole)
    return found


def _block_above(line: int, comments: dict[int, tuple[str, bool]]) -> list[str]:
    """The whole-line comments directly above ``line``, in order."""
    block: list[str] = []
    n = line - 1
    while n in comments and comments[n][1]:
        block.insert(0, comments[n][0])
        n -= 1
    return block


def groups(source: str | None = None) -> list[Group]:
    """The Settings fields in source order, grouped by the comments and blank lines around them."""
    source = source if source is not None else SOURCE.read_text(encoding="utf-8")
    comments = _comments(source)
    lines = source.splitlines()
    cls = next(
        n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "Settings"
    )
    out: list[Group] = [Group("General")]
    for stmt in cls.body:
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
            continue
        block = _block_above(stmt.lineno, comments)
        start = stmt.lineno - len(block) - 1  # the line above the block, 1-based
        blank_before = start >= 1 and not lines[start - 1].strip()
        if len(block) == 1 and len(block[0].split()) <= 3:  # "# Audio": a section of its own
            out.append(Group(block[0]))
        elif block:
            out.append(Group(out[-1].heading, " ".join(block)))
        elif blank_before and out[-1].fields:
            out.append(Group(out[-1].heading))
        own = comments.get(stmt.lineno, ("", True))
        written = ast.get_source_segment(source, stmt.annotation) or ""
        out[-1].fields.append((stmt.target.id, written, "" if own[1] else own[0]))
    return [g for g in out if g.fields]


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n} ({n >> shift} {unit})"
    return str(n)


def default_text(name: str, value: Any) -> str:
    """A default as a person sets it: paths from the repository, sizes in MiB, None as unset."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, Path):
        shown = value.relative_to(ROOT).as_posix() if value.is_relative_to(ROOT) else str(value)
        return f"`{shown}`" if value.suffix else f"`{shown}/`"
    if isinstance(value, int) and name.endswith(("_bytes", "_size")):
        return f"`{_size(value)}`".replace(" (", "` (").replace(")`", ")")
    if isinstance(value, float):
        return f"`{value:g}`"
    if isinstance(value, str):
        return f'`"{value}"`' if value else '`""` (empty)'
    return f"`{value}`"


def type_text(name: str, annotation: str) -> str:
    """The field's annotation as written, with its bounds (ge, gt, le) after it; ``X | None``
    as "X or None" (a pipe would split the table's cell)."""
    bounds = []
    for meta in Settings.model_fields[name].metadata:
        for attr, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            if getattr(meta, attr, None) is not None:
                bounds.append(f"{sign} {getattr(meta, attr):g}")
    shown = " or ".join(f"`{part.strip()}`" for part in annotation.split("|"))
    return shown + (f" ({', '.join(bounds)})" if bounds else "")


def variables() -> list[str]:
    """Every NARRATE_* variable Settings reads, in source order."""
    return [f"NARRATE_{name.upper()}" for g in groups() for name, _, _ in g.fields]


def elsewhere() -> dict[str, str]:
    """NARRATE_* variables read outside Settings -> the files that read them."""
    known = set(variables())
    found: dict[str, set[str]] = {}
    for path in sorted([*ROOT.glob("service/**/*.py"), *ROOT.glob("workers/**/*.py")]):
        for var in ENV_READ.findall(path.read_text(encoding="utf-8")):
            if var not in known:
                found.setdefault(var, set()).add(path.relative_to(ROOT).as_posix())
    return {var: ", ".join(f"`{p}`" for p in sorted(files)) for var, files in sorted(found.items())}


HEAD = """# Settings

<!-- Generated by `python -m devtools.reference` from service/config.py; do not edit. -->

Every setting is an environment variable named `NARRATE_` and the field's name in capitals
(`data_dir` is `NARRATE_DATA_DIR`), read once per process by the API, the workers, the
reconciler and the CLI alike. A default works on one machine; what a fleet must set is in
[Operations](../operations/index.md). Booleans take `1`/`0`, `true`/`false`; sizes are bytes;
times are seconds unless the name says days.

One rule ties two settings: `NARRATE_WEBHOOK_LEASE` must be longer than
`NARRATE_WEBHOOK_TIMEOUT` (a process refuses to start otherwise).
"""


TABLE = "\n| variable | type | default | what |\n|---|---|---|---|\n"


def _section(groups_: list[Group], defaults: Settings) -> list[str]:
    """One section's tables: a comment over several fields is a paragraph before their table;
    a comment over one field is that field's description."""
    parts: list[str] = []
    table = False
    for group in groups_:
        shared = group.note if len(group.fields) > 1 else ""
        if shared:
            parts.append(f"\n{shared}\n")
            table = False
        if not table:
            parts.append(TABLE)
            table = True
        for name, annotation, own in group.fields:
            what = " ".join(x for x in (group.note if not shared else "", own) if x)
            value = default_text(name, getattr(defaults, name))
            parts.append(
                f"| `NARRATE_{name.upper()}` | {type_text(name, annotation)} | {value} | {what} |\n"
            )
        if shared:
            table = False
    return parts


def page() -> str:
    defaults = Settings.model_construct()  # the defaults, without reading the environment
    parts = [HEAD]
    sections: dict[str, list[Group]] = {}
    for group in groups():
        sections.setdefault(group.heading, []).append(group)
    for heading, members in sections.items():
        parts.append(f"\n## {heading}\n")
        parts += _section(members, defaults)
    parts.append(
        "\n## Read outside Settings\n\nThese are read where they are used, not by Settings"
        " (a cache's folder, the CLI's client):\n\n| variable | read by |\n|---|---|\n"
    )
    parts += [f"| `{var}` | {files} |\n" for var, files in elsewhere().items()]
    return "".join(parts)
