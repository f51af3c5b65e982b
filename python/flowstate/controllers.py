"""Rate controllers written in Python, for ``kind = "python"`` flows (docs/PYTHON.md,
"Your own rate controller"), and the ONNX policies of ``kind = "onnx"`` flows.

A controller is a class; the scenario names it and the parameters its constructor
takes::

    [[flows]]
    name = "mine"
    kind = "python"
    controller = "mycc:Aimd"          # module:Class, or "path/to/file.py:Class"
    params = { beta = 0.5 }           # keyword arguments of the constructor

The class is made once per flow and run, ``Aimd(beta=0.5, seed=S)`` (``seed``: the
flow's own seed, drawn from the run's seed, when the constructor takes a ``seed``
argument or ``**kwargs``; use it for any randomness, so that the run stays a function
of the scenario and the seed). At every RFC 8888 feedback report (every
``feedback_interval_ms``, 60 ms by default) the simulator calls
``on_feedback(feedback)`` with a :class:`flowstate.Feedback` (per-packet lists and the
report's RTT, the rate in force and the coupling allowance) and uses the answer:

* a number: the target rate in bit/s (also the pacing rate);
* a pair ``(target_bps, pacing_bps)``;
* ``None``: keep the rate in force.

The rate is held in the flow's ``[min_rate, max_rate]`` (``overrides``). Anything else
(NaN, a negative rate, a string) stops the run with a one-line ``ControllerError``; an
exception raised by the controller stops it with the controller's own traceback and a
note naming the flow and the simulated time.

Modules are imported by name with the scenario file's folder and the current folder on
the import path; ``file.py:Class`` reads the file (relative to the scenario's folder,
else the current folder).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
from pathlib import Path
from typing import Any, Callable, Optional

from flowstate._native import ControllerError, Feedback

__all__ = ["ControllerError", "Feedback", "load_class", "make_controller"]

ONNX_PREFIX = "onnx:"


def _split(controller: str, error: type = ControllerError) -> tuple[str, str]:
    module, _, name = controller.strip().rpartition(":")
    if not module or not name:
        hint = "" if error is not ControllerError else ' (or "onnx:model.onnx")'
        raise error(f'expected "module:Class"{hint}, got "{controller}"')
    return module.strip(), name.strip()


def _folders(base_dir: Optional[str]) -> list[str]:
    folders = [os.getcwd()]
    if base_dir:
        folders.insert(0, os.path.abspath(base_dir))
    return folders


def _file(path: str, base_dir: Optional[str], what: str, error: type = ControllerError) -> Path:
    p = Path(path).expanduser()
    candidates = [p] if p.is_absolute() else [Path(f) / p for f in _folders(base_dir)]
    for c in candidates:
        if c.is_file():
            return c.resolve()
    where = " or ".join(str(c.parent) for c in candidates)
    raise error(f"{what} {path} not found (looked in {where}): give a path relative to the scenario file")


def _module_from_file(path: Path) -> Any:
    key = "_flowstate_controller_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, path)
    if spec is None or spec.loader is None:
        raise ControllerError(f"{path} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[key]
        raise
    return module


def _import(module: str, base_dir: Optional[str], field: str = "controller", error: type = ControllerError) -> Any:
    if module.endswith(".py"):
        return _module_from_file(_file(module, base_dir, f"{field} file", error))
    added = [f for f in _folders(base_dir) if f not in sys.path]
    sys.path[:0] = added
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        missing = e.name or module
        if module == missing or module.startswith(missing + "."):
            raise error(
                f"no module named {missing!r}: put {missing.split('.')[0]}.py next to the scenario file "
                f"or on PYTHONPATH, or write {field} = \"path/to/file.py:Class\""
            ) from None
        raise  # the controller's own import failed: its traceback
    finally:
        for f in added:
            if f in sys.path:
                sys.path.remove(f)


def load_class(controller: str, base_dir: Optional[str] = None, *, field: str = "controller",
               error: type = ControllerError) -> type:
    """The class ``controller`` (``"module:Class"`` or ``"file.py:Class"``) names.
    ``error`` (ControllerError; one line naming ``field``) if the module or the class
    cannot be found."""
    module_name, class_name = _split(controller, error)
    module = _import(module_name, base_dir, field, error)
    cls = getattr(module, class_name, None)
    if cls is None:
        defined = sorted(n for n, v in vars(module).items() if isinstance(v, type) and not n.startswith("_"))
        raise error(
            f"module {module_name!r} has no class {class_name!r}"
            + (f" (it defines {', '.join(defined[:8])})" if defined else "")
        )
    if not callable(cls):
        raise error(f"{module_name}:{class_name} is a {type(cls).__name__}, not a class")
    return cls


def _takes_seed(cls: Callable[..., Any]) -> bool:
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):
        return False
    return any(p.name == "seed" or p.kind is p.VAR_KEYWORD for p in sig.parameters.values())


def make_controller(controller: str, params: Optional[dict[str, Any]] = None, seed: int = 0,
                    base_dir: Optional[str] = None) -> Any:
    """The controller object a ``python`` flow with this ``controller`` and ``params``
    runs (``"onnx:model.onnx"``: an :class:`flowstate.onnx_policy.OnnxPolicy`)."""
    params = dict(params or {})
    if controller.strip().startswith(ONNX_PREFIX):
        return _onnx(controller.strip()[len(ONNX_PREFIX):], params, seed, base_dir)
    cls = load_class(controller, base_dir)
    if "seed" in params:
        raise ControllerError("params.seed: the seed is the flow's own (drawn from the run's seed); name the parameter otherwise")
    if _takes_seed(cls):
        params["seed"] = seed
    obj = cls(**params)
    if not callable(getattr(obj, "on_feedback", None)):
        raise ControllerError(
            f"{controller} has no method on_feedback(feedback): define it to return the target rate in bit/s"
        )
    return obj


def _onnx(model: str, params: dict[str, Any], seed: int, base_dir: Optional[str]) -> Any:
    from flowstate.onnx_policy import OnnxPolicy

    path = _file(model, base_dir, "ONNX model")
    return OnnxPolicy(str(path), seed=seed, **params)


def _make(kind: str, controller: str, params: dict[str, Any], seed: int, base_dir: Optional[str],
          flow: str) -> Callable[[Feedback], Any]:
    """The simulator's call: flow ``flow``'s ``on_feedback``."""
    if kind == "onnx":
        return _onnx(controller, params, seed, base_dir).on_feedback
    return make_controller(controller, params, seed, base_dir).on_feedback


def _resolve(kind: str, controller: str, base_dir: Optional[str]) -> None:
    """The scenario check's call: the controller can be found (not made)."""
    controller = controller.strip()
    if kind == "onnx" or controller.startswith(ONNX_PREFIX):
        model = controller[len(ONNX_PREFIX):] if controller.startswith(ONNX_PREFIX) else controller
        _file(model, base_dir, "ONNX model")
        from flowstate.onnx_policy import require_onnxruntime

        require_onnxruntime()
        return
    cls = load_class(controller, base_dir)
    if not callable(getattr(cls, "on_feedback", None)):
        raise ControllerError(
            f"{controller} has no method on_feedback(feedback): define it to return the target rate in bit/s"
        )


class Hold:
    """A controller that keeps the rate in force (the gym environment's agent flow when
    the scenario names no controller for it)."""

    def on_feedback(self, feedback: Feedback) -> None:
        return None
