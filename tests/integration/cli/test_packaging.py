"""The wheel carries its data: installed outside the checkout, narrate finds the voice catalog,
the style presets and the lexicon (voices/ is a package of data files)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.support.data import ROOT

PROBE = """
import json, service, voices
from service import wiring
from service.config import Settings
s = Settings()
pipeline = wiring.pipeline(s)
print(json.dumps({
    "service": service.__file__, "voices": str(voices.DIR), "catalog": str(s.voices_file),
    "n_voices": len(pipeline.catalog.voices), "n_lexicon": len(pipeline.lexicons("zh")),
}))
"""


def test_a_wheel_outside_the_checkout_finds_its_catalog_styles_and_lexicon(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    # uv (scripts/setup.sh installs it beside the interpreter) builds in an isolated
    # environment as pip wheel does, from its cache: ~1 s where pip took ~8.
    uv = Path(sys.executable).parent / "uv"
    subprocess.run(
        [str(uv), "build", "-q", "--wheel", "--out-dir", str(wheels), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = wheels.glob("narrate-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"voices/catalog.json", "voices/styles.json", "voices/lexicon/zh.tsv"} <= names
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # The unpacked wheel comes first on the path: the checkout's editable install is not used.
    env = {**os.environ, "PYTHONPATH": str(site), "NARRATE_DATA_DIR": str(tmp_path / "data")}
    env.pop("NARRATE_VOICES_FILE", None)
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert found["service"].startswith(str(site)) and found["voices"].startswith(str(site))
    assert found["catalog"] == str(site / "voices" / "catalog.json")
    assert found["n_voices"] > 100 and found["n_lexicon"] > 10
    styles = subprocess.run(
        [sys.executable, "-m", "service.cli.main", "styles"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert styles.returncode == 0, styles.stderr
    assert "vertical-safe" in styles.stdout
