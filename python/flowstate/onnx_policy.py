"""Learned bandwidth estimators in ONNX files as flow controllers (``kind = "onnx"``, or
``controller = "onnx:model.onnx"`` on a ``python`` flow), run by onnxruntime (the
``onnx`` extra: ``pip install 'flowstate-rtc[onnx]'``).

The model is fed the ACM MMSys 2024 challenge's 150-value observation
(:class:`flowstate.observation.MmsysObservation`) at every feedback report, with the
challenge's signature: an input ``obs`` of shape (1, 1, 150), and for a stateful model
``hidden_states`` and ``cell_states`` (fed back from the outputs 1 and 2); the first
output's first value is the estimate in bit/s, which becomes the target rate. A model
with one input of another name is fed the observation under that name.
"""

from __future__ import annotations

from typing import Any

from flowstate._native import ControllerError


def require_onnxruntime() -> Any:
    """onnxruntime, or a one-line ControllerError saying how to install it."""
    try:
        import onnxruntime
    except ImportError:
        raise ControllerError(
            "onnx flows need onnxruntime and numpy: pip install 'flowstate-rtc[onnx]'"
        ) from None
    return onnxruntime


class OnnxPolicy:
    """An ONNX bandwidth estimator as a controller (see the module's docstring).
    ``observation``: ``mmsys2024`` (default) or ``basic``; ``step_s``: the length of a
    short monitor interval (the feedback interval)."""

    def __init__(self, model: str, seed: int = 0, observation: str = "mmsys2024", step_s: float = 0.06):
        import numpy as np

        from flowstate.observation import observer

        ort = require_onnxruntime()
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001 - onnxruntime's own exception types
            raise ControllerError(f"{model}: not an ONNX model onnxruntime can run ({str(e).splitlines()[0][:160]})") from None
        inputs = [i.name for i in self.session.get_inputs()]
        self.obs_name = "obs" if "obs" in inputs else inputs[0]
        self.stateful = "hidden_states" in inputs and "cell_states" in inputs
        self.np = np
        self.observer = observer(observation, step_s)
        self.hidden = np.zeros((1, 1), dtype=np.float32)
        self.cell = np.zeros((1, 1), dtype=np.float32)
        self.model = model

    def on_feedback(self, feedback: Any) -> float:
        obs = self.observer.update([feedback], feedback.now_s, feedback.target_bps)
        feed = {self.obs_name: obs.reshape(1, 1, -1)}
        if self.stateful:
            feed["hidden_states"] = self.hidden
            feed["cell_states"] = self.cell
        out = self.session.run(None, feed)
        if self.stateful and len(out) >= 3:
            self.hidden, self.cell = out[1], out[2]
        return float(self.np.asarray(out[0]).reshape(-1)[0])
