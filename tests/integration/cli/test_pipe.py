"""`narrate ... | head`: a reader that leaves the pipe is no error, whether it leaves before
the command writes or while it is writing."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


@pytest.mark.parametrize("command", [["schema"], ["presets", "-v"], ["voices"]])
def test_a_reader_that_leaves_the_pipe_is_no_error(command: list[str], tmp_path: object) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line is written
    proc = subprocess.run(
        [sys.executable, "-m", "service.cli.main", *command],
        stdout=write,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        env={**os.environ, "NARRATE_DATA_DIR": str(tmp_path)},
    )
    os.close(write)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
