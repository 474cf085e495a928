"""Kokoro-82M on onnxruntime: the pack's model, vocabulary and voices, one call at a time.

The graph (service/voicepacks/convert_kokoro.py) returns the audio and the frames each token
lasts (``durations``, start and end pads included; 600 samples a frame at 24 kHz). A voice is
510 style vectors, one per input length: the vector for n tokens is row n - 1, as the model's
own pipeline picks it. The pack's predictor (the graph's front half) gives the same durations
without the audio, for 3 % of a call's CPU."""

from __future__ import annotations

import json
import os
import threading
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from service.domain.errors import EngineError

SAMPLE_RATE = 24000
FRAME = 600  # samples per duration frame
MAX_TOKENS = 510  # a call's phoneme tokens, pads excluded (the voices have 510 rows)
INSTALL_COMMAND = "narrate voices install kokoro"


class KokoroModel:
    def __init__(self, pack: Path, threads: int = 1) -> None:
        self.pack = pack
        self.threads = max(1, threads)
        # Runs at once: as many as the cores hold at ``threads`` each. A worker process runs
        # one task at a time anyway; a local render's threads (2) then share the session, each
        # run on a core of its own, rather than queueing behind one single-threaded run.
        self._runs = threading.BoundedSemaphore(max(1, (os.cpu_count() or 1) // self.threads))
        self._voices: dict[str, np.ndarray] = {}

    def _broken(self, what: object) -> EngineError:
        return EngineError("kokoro", f"the voice pack in {self.pack} is unusable ({what}); "
                           f"reinstall it: {INSTALL_COMMAND}")  # fmt: skip

    @cached_property
    def vocab(self) -> dict[str, int]:
        try:
            table = json.loads((self.pack / "vocab.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise self._broken(exc) from None
        return {str(k): int(v) for k, v in table.items()}

    @cached_property
    def session(self) -> Any:
        """The ONNX session, made on first use (about 0.5 s)."""
        session = self._open("kokoro-v1.0.int8.onnx")
        if [o.name for o in session.get_outputs()] != ["audio", "durations"]:
            raise self._broken("the model has no durations output")
        return session

    @cached_property
    def predictor(self) -> Any:
        """The durations-only session, made on first use (about 0.1 s)."""
        session = self._open("kokoro-durations.onnx")
        if [o.name for o in session.get_outputs()] != ["durations"]:
            raise self._broken("the predictor does not return durations")
        return session

    def _open(self, name: str) -> Any:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        # Idle intra-op threads spin by default: on a shared 2-core machine that was 19 % more
        # CPU per second of speech (2.54 -> 2.06 s) for no gain in wall time.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            return ort.InferenceSession(
                str(self.pack / name), opts, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own types for a bad file
            raise self._broken(str(exc)[:200]) from None

    def style(self, voice: str, tokens: int) -> np.ndarray:
        """The voice's style vector for an input of ``tokens`` tokens, shape (1, 256)."""
        if voice not in self._voices:
            path = self.pack / "voices" / f"{voice}.bin"
            if not path.is_file():
                raise EngineError("kokoro", f"the pack has no voice {voice!r}")
            try:
                self._voices[voice] = np.fromfile(path, dtype=np.float32).reshape(-1, 256)
            except (OSError, ValueError) as exc:
                raise self._broken(exc) from None
        table = self._voices[voice]
        row = min(max(tokens, 1), len(table)) - 1
        return table[row : row + 1]

    def run(
        self, tokens: list[int], style: np.ndarray, speed: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """One call: (audio float32, frames per token with the two pads)."""
        audio, durations = self._run(self.session, tokens, style, speed)
        return np.asarray(audio, np.float32).reshape(-1), np.asarray(durations).reshape(-1)

    def durations(self, tokens: list[int], style: np.ndarray, speed: float) -> np.ndarray:
        """The frames per token (with the two pads) that ``run`` would give, without audio."""
        (durations,) = self._run(self.predictor, tokens, style, speed)
        return np.asarray(durations).reshape(-1)

    def _run(self, session: Any, tokens: list[int], style: np.ndarray, speed: float) -> Any:
        if not 0 < len(tokens) <= MAX_TOKENS:
            raise EngineError("kokoro", f"{len(tokens)} tokens in one call (1..{MAX_TOKENS})")
        feed = {
            "tokens": np.asarray([[0, *tokens, 0]], np.int64),
            "style": np.asarray(style, np.float32).reshape(1, 256),
            "speed": np.asarray([speed], np.float32),
        }
        try:
            with self._runs:
                return session.run(None, feed)
        except Exception as exc:  # an onnxruntime failure is the engine's, never a crash
            raise EngineError("kokoro", f"onnxruntime: {str(exc)[:200]}") from None
