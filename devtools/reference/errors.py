"""docs/reference/errors.md: every error and warning code, found in the code that raises it
(service/ and workers/, read with ast), with the meaning written for it in NOTES. A code in
the code without a note, or a note without a code, is an error of the generator's caller
(tests/unit/test_reference_docs.py), so a new code cannot ship undocumented."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from devtools.reference.error_notes import ERRORS, HEAD, WARNINGS

ROOT = Path(__file__).resolve().parents[2]
CODE = re.compile(r"^[a-z]+(\.[a-z_]+)?$")
# Calls whose first argument is a code: a warning, a 422's problem.
CODE_CALLS = {"warning", "Problem", "problem"}


@dataclass
class Found:
    """Where a code is raised (``file`` owner)."""

    places: set[str] = field(default_factory=set)


def _strings(node: ast.AST | None) -> list[str]:
    """The code-shaped string constants in an expression (``"a" if x else "b"`` gives both)."""
    if node is None:
        return []
    return [
        n.value
        for n in ast.walk(node)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and CODE.match(n.value)
    ]


def _constants(trees: dict[str, ast.Module]) -> dict[str, str]:
    """Module-level NAME = "code" constants (listen.py's MISMATCH), by name."""
    out: dict[str, str] = {}
    for tree in trees.values():
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
                if isinstance(target, ast.Name) and target.id.isupper():
                    for s in _strings(stmt.value):
                        out[target.id] = s
    return out


def _in_call(node: ast.Call, consts: dict[str, str]) -> list[str]:
    """The codes a call hands over: warning("x"), Problem("x"), Notice(code="x")."""
    name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
    found: list[str] = []
    if name in CODE_CALLS and node.args:
        first = node.args[0]
        named = [consts[first.id]] if isinstance(first, ast.Name) and first.id in consts else []
        found += named or _strings(first)
    for kw in node.keywords:
        if kw.arg == "code":
            found += _strings(kw.value)
    return found


def _in_assign(node: ast.AST) -> list[str]:
    """Codes given to ``code = ...`` / ``self.code = ...`` (an error class's), or as a dict's
    ``"code"`` (a plain sentence read as a warning)."""
    if isinstance(node, ast.Dict):
        pairs = zip(node.keys, node.values, strict=True)
        return [
            s
            for k, v in pairs
            if isinstance(k, ast.Constant) and k.value == "code"
            for s in _strings(v)
        ]
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign):
        targets = [node.target]
    else:
        return []
    named = any(
        getattr(t, "id", None) == "code" or getattr(t, "attr", None) == "code" for t in targets
    )
    return _strings(node.value) if named else []


def _owner(
    tree: ast.AST, prefix: str = "", owner: dict[ast.AST, str] | None = None
) -> dict[ast.AST, str]:
    """Every node -> the innermost class or function it is in, qualified (``Class.method``)."""
    owner = {} if owner is None else owner
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            name = f"{prefix}{child.name}"
            for n in ast.walk(child):
                owner[n] = name
            _owner(child, f"{name}.", owner)
        else:
            _owner(child, prefix, owner)
    return owner


def found() -> dict[str, Found]:
    """Every code raised in service/ and workers/, with the places that raise it."""
    paths = sorted([*ROOT.glob("service/**/*.py"), *ROOT.glob("workers/**/*.py")])
    trees = {
        p.relative_to(ROOT).as_posix(): ast.parse(p.read_text(encoding="utf-8")) for p in paths
    }
    consts = _constants(trees)
    codes: dict[str, Found] = {}
    for rel, tree in trees.items():
        owner = _owner(tree)
        for node in ast.walk(tree):
            named = _in_assign(node)
            if isinstance(node, ast.Call):
                named += _in_call(node, consts)
            for code in named:
                codes.setdefault(code, Found()).places.add(
                    f"`{rel}` {owner.get(node, '')}".rstrip()
                )
    return codes


def page() -> str:
    codes = found()
    parts = [
        HEAD,
        "\n## Errors\n\n| code | what | API | in a job | raised in |\n|---|---|---|---|---|\n",
    ]
    for code, (what, api, job) in ERRORS.items():
        where = "<br>".join(sorted(codes[code].places)) if code in codes else "—"
        parts.append(f"| `{code}` | {what} | {api} | {job} | {where} |\n")
    parts.append("\n## Warnings\n\n| code | what | raised in |\n|---|---|---|\n")
    for code, what in WARNINGS.items():
        where = "<br>".join(sorted(codes[code].places)) if code in codes else "—"
        parts.append(f"| `{code}` | {what} | {where} |\n")
    return "".join(parts)
