"""How fast does the simulator run a call whose rate a Python controller sets?

Simulated seconds per wall second of one 60 s call on a 2.5 Mbit/s, 50 ms bottleneck,
for the built-in GCC flow, a trivial Python controller (a constant rate), the AIMD of
examples/aimd.py, a small numpy controller (a linear rule over numpy arrays of each
report), and, with onnxruntime, an ONNX policy fed the MMSys 2024 observation (a linear
model made with the onnx helper API). The median of ``--repeat`` runs each, after one
warm-up run; one feedback report (one Python call) every 60 ms.

    .venv/bin/python tools/bench_python_controller.py [--repeat 5] [--seconds 60]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import flowstate

ROOT = Path(__file__).resolve().parent.parent

CONTROLLERS = '''
class Constant:
    def on_feedback(self, fb):
        return 2e6


class NumpyLinear:
    """A linear rule on numpy arrays: rate from the delivery rate and the delay trend."""

    def __init__(self, seed):
        import numpy as np
        self.np = np
        self.rate = 300e3

    def on_feedback(self, fb):
        np = self.np
        arrival = np.asarray(fb.arrival_time_s)
        sent = np.asarray(fb.send_time_s)
        ok = ~np.isnan(arrival)
        if ok.sum() < 2:
            return self.rate
        owd = arrival[ok] - sent[ok]
        trend = np.polyfit(sent[ok], owd, 1)[0]
        received = np.asarray(fb.size_bytes)[ok].sum() * 8 / max(np.ptp(arrival[ok]), 1e-3)
        self.rate = max(50e3, 1.05 * received if trend < 0.01 else 0.85 * received)
        return self.rate
'''


def scenario(kind: str, controller: str | None, seconds: float) -> dict:
    flow = {"name": "call", "kind": kind}
    if controller:
        flow["controller"] = controller
    return {
        "name": f"bench-{kind}",
        "duration": f"{seconds}s",
        "link": {"capacity": "2.5Mbps", "delay": "25ms", "queue": "200ms"},
        "flows": [flow],
        "measure": {"trace_hash": False},
    }


def onnx_model(path: Path) -> bool:
    try:
        import numpy as np
        import onnx
        from onnx import TensorProto, helper, numpy_helper
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    w = np.zeros((150, 1), dtype=np.float32)
    w[0, 0] = 1.05  # the newest short MI's receiving rate
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["obs", "shape"], ["flat"]),
         helper.make_node("MatMul", ["flat", "w"], ["y"]),
         helper.make_node("Max", ["y", "floor"], ["estimate"])],
        "bench",
        [helper.make_tensor_value_info("obs", TensorProto.FLOAT, [1, 1, 150])],
        [helper.make_tensor_value_info("estimate", TensorProto.FLOAT, [1, 1])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array([1, 150], dtype=np.int64), "shape"),
         numpy_helper.from_array(np.array([[300e3]], dtype=np.float32), "floor")],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return True


def bench(s: dict, repeat: int) -> float:
    """The median wall time of `repeat` runs after a warm-up run."""
    times = []
    for k in range(repeat + 1):
        t = time.perf_counter()
        flowstate.run(s, seed=1 + k)
        times.append(time.perf_counter() - t)
    return statistics.median(times[1:])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--seconds", type=float, default=60.0)
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "bench_ctl.py").write_text(CONTROLLERS)
        sys.path.insert(0, str(folder))
        sys.path.insert(0, str(ROOT / "examples"))
        cases = [
            ("built-in gcc", scenario("gcc", None, a.seconds)),
            ("python: constant rate", scenario("python", "bench_ctl:Constant", a.seconds)),
            ("python: AIMD (examples/aimd.py)", scenario("python", "aimd:Aimd", a.seconds)),
            ("python: numpy linear rule", scenario("python", "bench_ctl:NumpyLinear", a.seconds)),
        ]
        if onnx_model(folder / "linear.onnx"):
            cases.append(("onnx: linear model, MMSys 2024 observation", scenario("onnx", str(folder / "linear.onnx"), a.seconds)))
        print(f"| controller | wall s per {a.seconds:g} s call | simulated s per wall s |")
        print("|---|---|---|")
        for label, s in cases:
            wall = bench(s, a.repeat)
            print(f"| {label} | {wall:.3f} | {a.seconds / wall:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
