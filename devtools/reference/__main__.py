"""python -m devtools.reference [--check]: write docs/reference/*.md from the code, or (with
--check) exit 1 naming the pages that differ from what the code says."""

from __future__ import annotations

import sys

from devtools.reference import OUT, generate, stale


def main(argv: list[str]) -> int:
    pages = generate()
    if "--check" in argv:
        old = stale(pages)
        for path in old:
            print(f"{path} is stale: run python -m devtools.reference", file=sys.stderr)
        return 1 if old else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in pages.items():
        (OUT / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(pages)} pages into {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
