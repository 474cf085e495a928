"""Methods per Protocol in service/ports (inherited ones counted too), largest first: the
ports are kept small, by role (issue 34: none over MAX_METHODS). ``python -m
devtools.protocols`` prints them; tests/unit/test_protocol_sizes.py holds the line."""

from __future__ import annotations

import ast
from pathlib import Path

PORTS = Path(__file__).resolve().parent.parent / "service" / "ports"
MAX_METHODS = 8


def _protocols() -> dict[str, tuple[list[str], list[str]]]:
    """Protocol name -> (its own methods, the names of its bases)."""
    found: dict[str, tuple[list[str], list[str]]] = {}
    for path in sorted(PORTS.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.ClassDef):
                continue
            bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
            if "Protocol" not in bases:
                continue
            methods = [
                f.name for f in node.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
            found[f"{path.stem}.{node.name}"] = (methods, [b for b in bases if b != "Protocol"])
    return found


def method_counts() -> dict[str, int]:
    """Every Protocol's methods, its bases' (Protocols of service/ports) included."""
    protocols = _protocols()
    by_name = {name.split(".", 1)[1]: name for name in protocols}

    def methods(name: str) -> set[str]:
        own, bases = protocols[name]
        out = set(own)
        for base in bases:
            if base in by_name:
                out |= methods(by_name[base])
        return out

    return {name: len(methods(name)) for name in protocols}


def main() -> None:
    for name, n in sorted(method_counts().items(), key=lambda item: (-item[1], item[0])):
        print(f"{n:3d}  {name}")


if __name__ == "__main__":
    main()
