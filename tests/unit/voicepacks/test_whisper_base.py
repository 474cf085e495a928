"""The recogniser pack: found only when whole; a missing one names the command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.voicepacks import whisper_base as wb


def test_a_missing_pack_is_an_error_naming_the_install_command(tmp_path: Path) -> None:
    with pytest.raises(wb.RecogniserMissing) as err:
        wb.located(tmp_path)
    assert "narrate recogniser install" in str(err.value) and "--no-check-speech" in str(err.value)


def test_a_pack_with_a_file_of_the_wrong_size_is_not_built(tmp_path: Path) -> None:
    pack = wb.pack_dir(tmp_path)
    pack.mkdir(parents=True)
    for name in wb.FILES:
        (pack / name).write_bytes(b"x" * 10)
    (pack / "pack.json").write_text(json.dumps({"sizes": dict.fromkeys(wb.FILES, 10)}))
    assert wb.located(tmp_path) == pack
    (pack / "model.bin").write_bytes(b"x" * 9)  # a copy cut short
    assert not wb.is_built(pack)
