"""The import graph of service/ and workers/, read from the source (ast, nothing imported):
no import circle (a module-level import or one under TYPE_CHECKING; an import inside a
function is a deliberate late edge and is left out), and the pipeline reaches adapters only
through the ports that service/wiring.py fills."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("service", "workers")
# Circles known on this branch, each to go (none may join them): RenderOptions.apply names
# JobSpec under TYPE_CHECKING while spec.py builds on options.py (service/domain: issue 34's
# typed-domain work untangles it).
KNOWN: list[list[str]] = []


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {_module(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """The module's own statements, and those under ``if TYPE_CHECKING:``/try/if blocks."""
    out: list[ast.stmt] = []
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop(0)
        out.append(node)
        if isinstance(node, ast.If | ast.Try):
            todo += [*node.body, *node.orelse, *getattr(node, "finalbody", [])]
            todo += [s for h in getattr(node, "handlers", []) for s in h.body]
    return out


def imports(name: str) -> set[str]:
    """The modules of this tree that module ``name`` imports at its top level."""
    known, found = modules(), set()
    tree = ast.parse(known[name].read_text(encoding="utf-8"))
    for node in _top_level(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's package
                package = name.split(".")
                keep = len(package) - node.level + (known[name].name == "__init__.py")
                base = ".".join(package[:keep] + ([base] if base else []))
            found |= {
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            }
    return {m for m in found if m in known and m != name}


def graph() -> dict[str, set[str]]:
    return {name: imports(name) for name in modules()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_reader_sees_an_edge_and_a_circle() -> None:
    """The graph reader itself: a known edge is there, and a made-up circle is found."""
    assert "service.pipeline.stages" in imports("service.pipeline.finalize")
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_itself_back() -> None:
    assert [c for c in cycles(graph()) if c not in KNOWN] == []


def test_the_pipeline_imports_no_adapter() -> None:
    """Every adapter the pipeline uses comes through a port (service/ports), wired in
    service/wiring.py: at the top of a module or inside a function alike."""
    reached = {}
    for name, path in modules().items():
        if not name.startswith("service.pipeline"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            reached[name] = [n for n in names if n.startswith("service.adapters")]
            if reached[name]:
                break
    assert {k: v for k, v in reached.items() if v} == {}
