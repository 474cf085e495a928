"""Adds Kokoro's per-token durations to the int8 ONNX graph as an output named ``durations``.

Run by service/voicepacks/kokoro.py with the ``onnx`` package from a throwaway target
directory on PYTHONPATH (narrate itself never imports ``onnx``): ``python convert_kokoro.py
IN.onnx OUT.onnx``. The model computes the durations inside (the duration predictor's
sigmoid sum, divided by ``speed``, rounded, clipped to at least one frame, cast to int64) and
uses them to expand the tokens into frames; the exported graph only returns the audio. With
the tensor as an output, word boundaries come from the model itself, not from guessing in the
audio.
"""

from __future__ import annotations

import sys
from pathlib import Path

import onnx
from onnx import helper
from onnx.utils import Extractor

# The int64 cast of the clipped, rounded durations (one per token, start/end pads included),
# in kokoro-v1.0.int8.onnx; the node that makes it is checked below, so a different export
# fails the build instead of exposing some other tensor.
DURATIONS = "/encoder/Cast_output_0"
OUTPUT = "durations"
PREDICTOR = "kokoro-durations.onnx"


def add_durations(model: onnx.ModelProto) -> None:
    graph = model.graph
    maker = next((n for n in graph.node if DURATIONS in n.output), None)
    if maker is None or maker.op_type != "Cast":
        raise SystemExit(f"{DURATIONS}: not found (or not a Cast) in the graph")
    clip = next(n for n in graph.node if maker.input[0] in n.output)
    if clip.op_type != "Clip":
        raise SystemExit(f"{DURATIONS}: made from {clip.op_type}, expected Clip")
    if any(o.name == OUTPUT for o in graph.output):
        return
    identity = helper.make_node("Identity", [DURATIONS], [OUTPUT], name="narrate_durations")
    graph.node.append(identity)
    shape = [1, "tokens"]  # the checker wants a shape: one duration per token, pads included
    graph.output.append(helper.make_tensor_value_info(OUTPUT, onnx.TensorProto.INT64, shape))


def predictor(model: onnx.ModelProto) -> onnx.ModelProto:
    """The nodes ``durations`` depends on, with the model's inputs (the decoder is left out)."""
    inputs = [i.name for i in model.graph.input]
    return Extractor(model).extract_model(inputs, [OUTPUT])


def main(src: str, dst: str) -> None:
    model = onnx.load(src)
    add_durations(model)
    onnx.checker.check_model(model)
    onnx.save(model, dst)
    front = predictor(model)
    onnx.checker.check_model(front)
    onnx.save(front, str(Path(dst).with_name(PREDICTOR)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
