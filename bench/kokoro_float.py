"""A float twin of a kokoro pack, to measure against it (bench/kokoro.py --against).

The pack's graph is the kokoro-onnx export, dynamically quantised: each ConvInteger and
MatMulInteger quantises its input to uint8 at run time and scales the int32 products back.
Here every one is replaced by a float Conv or MatMul on the same weights, (q - zero point) x
scale, written as Cast, Sub and Mul on the int8 initializers (onnxruntime folds them into float
constants as it loads the session, so the file keeps its size). Tried for issue 32 (ConvInteger
is 62 % of the int8 graph's time): on this machine's CPU (AVX-512 VNNI) the float graph cost
~1.3x the CPU per second of speech (1.07 against 0.83 s), the recogniser's hanzi CER the same
within noise; so the pack keeps the int8 graph. A CPU without fast int8 products may differ:
    .venv/bin/python bench/kokoro_float.py PACK OUT
    .venv/bin/python bench/kokoro.py --against OUT
The ``onnx`` package (kokoro.TOOLCHAIN) is put in a throwaway directory, as the pack build does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

try:
    import onnx
    from onnx import helper, numpy_helper
except ImportError:  # not in narrate's venv: main() puts it in a throwaway dir and runs again
    onnx = None

QUANTISED = ("MatMulInteger", "ConvInteger")


class Graph:
    """Who makes and who reads each tensor, and the initializers by name."""

    def __init__(self, graph: Any) -> None:
        self.inits = {i.name: i for i in graph.initializer}
        self.maker = {o: n for n in graph.node for o in n.output}
        self.readers: dict[str, list[Any]] = {}
        for n in graph.node:
            for i in n.input:
                self.readers.setdefault(i, []).append(n)

    def next(self, node: Any, op: str) -> Any:
        """The one node reading ``node``'s output, which must be an ``op``."""
        readers = self.readers.get(node.output[0], [])
        if len(readers) != 1 or readers[0].op_type != op:
            raise SystemExit(f"{node.name}: expected one {op} after it, found {readers}")
        return readers[0]

    def array(self, name: str) -> np.ndarray:
        return np.asarray(numpy_helper.to_array(self.inits[name]), np.float32)


def chain(g: Graph, node: Any) -> tuple[list[Any], str | None, str]:
    """The quantised product's nodes up to the float result (MatMulInteger -> Cast -> Mul;
    ConvInteger -> Add of the int32 bias -> Cast -> Mul), its float bias (the initializer the
    int32 one is made from, at run time: Reshape(Cast(Floor(Div(bias, scale))))) and the
    weight's scale (an initializer, multiplied by the input's scale into the last Mul's)."""
    nodes, bias = [node], None
    after = g.readers.get(node.output[0], [])
    if node.op_type == "ConvInteger" and len(after) == 1 and after[0].op_type == "Add":
        add = after[0]
        nodes.append(add)
        made = g.maker[next(i for i in add.input if i != node.output[0])]
        for op in ("Reshape", "Cast", "Floor", "Div"):
            if made.op_type != op:
                raise SystemExit(f"{node.name}: its bias is made by {made.op_type}, not {op}")
            bias = made.input[0]
            made = g.maker.get(bias, made)
    cast = g.next(nodes[-1], "Cast")
    mul = g.next(cast, "Mul")
    scales = g.maker[next(i for i in mul.input if i != cast.output[0])]
    weight_scale = [i for i in scales.input if i in g.inits]
    if scales.op_type != "Mul" or len(weight_scale) != 1:
        raise SystemExit(f"{node.name}: its output scale is not input scale x weight scale")
    return [*nodes, cast, mul], bias, weight_scale[0]


def float_weight(g: Graph, node: Any, scale: str, made: dict[str, list[Any]]) -> str:
    """The float weight of a quantised product, (q - zero point) * scale, as nodes on the int8
    initializer (folded into a constant by onnxruntime at load; several products share one
    weight: ALBERT's layers are one layer run twelve times)."""
    q, zero = node.input[1], node.input[3]
    name = f"{q}_float"
    if name not in made:
        dims = len(g.inits[q].dims)
        # per output channel: the weight's last axis for MatMul, its first for Conv
        axis = dims - 1 if node.op_type == "MatMulInteger" else 0
        shape = [1] * dims
        zp, sc = g.array(zero), g.array(scale)
        shape[axis] = -1
        consts = [
            numpy_helper.from_array(zp.reshape(shape if zp.size > 1 else [1] * dims), f"{name}_zp"),
            numpy_helper.from_array(sc.reshape(shape if sc.size > 1 else [1] * dims), f"{name}_sc"),
        ]
        made[name] = [
            *consts,
            helper.make_node("Cast", [q], [f"{name}_q"], to=onnx.TensorProto.FLOAT),
            helper.make_node("Sub", [f"{name}_q", f"{name}_zp"], [f"{name}_c"]),
            helper.make_node("Mul", [f"{name}_c", f"{name}_sc"], [name]),
        ]
    return name


def dequantise(model: onnx.ModelProto) -> int:
    """Every MatMulInteger and ConvInteger (with the DynamicQuantizeLinear of its input, and
    the scaling after it) replaced by a float MatMul or Conv on the same weights. Returns how
    many."""
    graph = model.graph
    g = Graph(graph)
    made: dict[str, list[Any]] = {}
    swap: dict[int, Any] = {}  # id of the chain's last node -> the float node in its place
    gone: set[int] = set()
    for node in graph.node:
        if node.op_type not in QUANTISED:
            continue
        quantise = g.maker[node.input[0]]
        if quantise.op_type != "DynamicQuantizeLinear":
            raise SystemExit(f"{node.name}: its input is not quantised at run time")
        nodes, bias, scale = chain(g, node)
        inputs = [quantise.input[0], float_weight(g, node, scale, made), *([bias] if bias else [])]
        op = "MatMul" if node.op_type == "MatMulInteger" else "Conv"
        new = helper.make_node(op, inputs, [nodes[-1].output[0]],
                               name=f"{node.name}_float")  # fmt: skip
        new.attribute.extend(node.attribute)  # a Conv's kernel, pads, strides, groups
        swap[id(nodes[-1])] = new
        gone.update(id(n) for n in nodes[:-1])
    extra = [x for parts in made.values() for x in parts]
    nodes = [x for x in extra if isinstance(x, onnx.NodeProto)]
    nodes += [swap.get(id(n), n) for n in graph.node if id(n) not in gone]
    graph.initializer.extend(x for x in extra if isinstance(x, onnx.TensorProto))
    prune(graph, nodes)
    return len(swap)


def prune(graph: Any, nodes: list[Any]) -> None:
    """Set the graph's nodes, less those whose outputs nobody reads (the quantisers and scale
    products left over), and drop the initializers no node reads."""
    wanted = {o.name for o in graph.output}
    while True:
        read = {i for n in nodes for i in n.input} | wanted
        kept = [n for n in nodes if any(o in read for o in n.output)]
        if len(kept) == len(nodes):
            break
        nodes = kept
    del graph.node[:]
    graph.node.extend(nodes)
    inits = [i for i in graph.initializer if i.name in read]
    del graph.initializer[:]
    graph.initializer.extend(inits)
    del graph.value_info[:]  # shapes inferred for removed tensors


def twin(pack: Path, out: Path) -> None:
    """``out``: ``pack`` with the float graph (the rest hard-linked or copied)."""
    from service.voicepacks.kokoro import MODEL

    shutil.copytree(pack, out, copy_function=_link, dirs_exist_ok=True)
    (out / MODEL).unlink()
    model = onnx.load(str(pack / MODEL))
    print(f"{dequantise(model)} quantised products now in float")
    onnx.checker.check_model(model)
    onnx.save(model, str(out / MODEL))


def _link(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from service.voicepacks.kokoro import TOOLCHAIN

    if onnx is None:
        with tempfile.TemporaryDirectory() as lib:
            pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check", "install"]
            subprocess.run([*pip, "--no-deps", "--target", lib, *TOOLCHAIN], check=True)
            env = {**os.environ, "PYTHONPATH": lib}
            sys.exit(subprocess.run([sys.executable, *sys.argv], env=env, check=False).returncode)
    twin(Path(sys.argv[1]), Path(sys.argv[2]))


if __name__ == "__main__":
    main()
