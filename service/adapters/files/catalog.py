"""The voice catalog file (voices/catalog.json): read once per path, and its edge part
replaced from edge-tts's live list by `narrate voices --refresh`."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from service.domain.voices import Catalog, CatalogData, edge_entries


@lru_cache(maxsize=4)
def load_catalog(path: Path) -> Catalog:
    return Catalog.from_data(json.loads(Path(path).read_text(encoding="utf-8")))


# edge_tts.list_voices() records as edge's live JSON gives them (a wire format not ours, its fields
# read with care one by one): domain.voices.edge_entries takes them in this type.
def refresh_catalog(path: Path, listed: list[dict[str, Any]]) -> int:
    """Replace the edge part of the catalog file at ``path`` with ``listed`` (atomically);
    espeak voices and the defaults are kept. Returns the number of edge voices."""
    data: CatalogData = json.loads(path.read_text(encoding="utf-8"))
    previous = Catalog.from_data(data)
    edge = edge_entries(listed, previous)
    ids = {e["id"] for e in edge}
    for language in {v.language for v in previous.voices if v.engine == "edge" and v.default}:
        if not any(e.get("default") and e["language"] == language for e in edge):
            first = next((e for e in edge if e["language"] == language), None)
            if first is not None:
                first["default"] = True  # the old default is gone: the first of the language
    others = [v for v in data["voices"] if v["engine"] != "edge"]
    source = dict(data.get("source", {}))
    source["edge"] = "edge_tts.list_voices(), by `narrate voices --refresh`"
    out: CatalogData = {"source": source, "voices": edge + others}
    tmp = path.with_suffix(".json.tmp")
    lines = ["{", '  "source": ' + json.dumps(source, ensure_ascii=False) + ",", '  "voices": [']
    lines.append(",\n".join("    " + json.dumps(v, ensure_ascii=False) for v in out["voices"]))
    lines += ["  ]", "}"]
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(path)
    load_catalog.cache_clear()
    return len(ids)
