"""A Gymnasium environment on the simulator: an agent sets one flow's rate, one step per
feedback interval (docs/PYTHON.md, "A Gymnasium environment"). Needs the ``gym`` extra
(``pip install 'flowstate-rtc[gym]'``: gymnasium and numpy).

::

    from flowstate.gym import FlowstateEnv

    env = FlowstateEnv("scenarios/p000-table5.toml", flow="gcc")   # or trace="x.mahimahi"
    obs, info = env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step([1.5e6])   # target rate, bit/s

An episode is one run of the scenario (its links, cross traffic and coupling); the
agent's flow (``flow``: its name; default the first ``python`` / ``onnx`` flow, else the
first flow) becomes a ``python`` flow whose rate the actions set. A step sets the rate,
runs the simulation ``step_ms`` further (flowstate-sim's ``Simulation::run_until``; the
run waits while the agent decides, no threads) and returns the observation of the
feedback reports that arrived in the step. The episode ends at the scenario's duration
(``terminated``). Same scenario, same ``reset(seed=...)``, same actions: the same
episode.

* Action: ``Box(min_rate_bps, max_rate_bps, (1,), float32)``, the target rate in bit/s
  (default 10 kbit/s to 10 Mbit/s; values outside are clipped).
* Observation: ``basic`` (5 values, default) or ``mmsys2024`` (the MMSys 2024 challenge's
  150 values); definitions in :mod:`flowstate.observation`.
* Reward: by default ``throughput_mbps - 0.01 * queuing_delay_ms - 10 * loss_ratio`` over
  the step (the packets reported in it: received bytes x 8 / step, mean one-way delay
  above the smallest seen, lost / reported); ``reward={"throughput": a, "delay": b,
  "loss": c}`` changes the weights, ``reward=callable(info) -> float`` replaces it.
"""

from __future__ import annotations

import math
import os
import tomllib
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from flowstate import _native
from flowstate.errors import FlowstateError
from flowstate.observation import observer

EXTERNAL_KINDS = ("python", "onnx")
DEFAULT_REWARD = {"throughput": 1.0, "delay": 0.01, "loss": 10.0}
# Bounds of an episode's scenario made from a trace alone.
TRACE_DELAY = "20ms"
TRACE_QUEUE = "300ms"


def _scenario_dict(scenario: Any, toml: Optional[str], trace: Optional[str], duration: Optional[str]) -> tuple[dict[str, Any], Optional[str]]:
    from flowstate.overrides import PathError, load_toml

    if trace is not None:
        if scenario is not None or toml is not None:
            raise TypeError("give a scenario or a trace, not both")
        path = os.path.abspath(os.fspath(trace))
        fmt = "gym-json" if path.endswith(".json") else ("csv" if path.endswith(".csv") else "mahimahi")
        return {
            "name": Path(path).stem,
            "duration": duration or "60s",
            "link": {"capacity_trace": {"file": path, "format": fmt}, "delay": TRACE_DELAY, "queue": TRACE_QUEUE},
            "flows": [{"name": "agent", "kind": "python", "controller": "flowstate.controllers:Hold"}],
        }, None
    if toml is not None:
        return tomllib.loads(toml), None
    if isinstance(scenario, Mapping):
        return dict(scenario), None
    if isinstance(scenario, (str, os.PathLike)):
        try:
            return load_toml(os.fspath(scenario)), os.fspath(Path(os.fspath(scenario)).parent)
        except PathError as e:
            raise FlowstateError(str(e)) from None
    raise TypeError("scenario must be a path, a dict, toml= text or trace= a trace file")


def _agent(scenario: dict[str, Any], flow: Optional[str], step_ms: float) -> int:
    flows = scenario.get("flows")
    if not isinstance(flows, list) or not flows:
        raise FlowstateError("the scenario has no flows: the agent needs one")
    if flow is not None:
        names = [f.get("name") for f in flows]
        if flow not in names:
            raise FlowstateError(f"flow {flow!r} is not in the scenario (its flows: {', '.join(map(str, names))})")
        index = names.index(flow)
    else:
        kinds = [str(f.get("kind", "")).lower() for f in flows]
        index = next((i for i, k in enumerate(kinds) if k in EXTERNAL_KINDS), 0)
    entry = flows[index]
    if int(entry.get("count", 1)) != 1:
        raise FlowstateError(f"flows[{index}] ({entry.get('name')}): the agent's flow cannot have a count")
    if any(int(f.get("count", 1)) != 1 for f in flows[:index]):
        raise FlowstateError("flows before the agent's cannot have a count (the agent's index would move)")
    if str(entry.get("kind", "")).lower() not in EXTERNAL_KINDS:
        keep = {k: v for k, v in entry.items() if k in ("name", "start", "stop", "priority", "group", "desired_rate", "direction", "path_delay", "route", "return_route", "return_delay", "hops", "host", "cross_traffic", "pauses", "priority_schedule")}
        entry = {**keep, "kind": "python", "controller": "flowstate.controllers:Hold"}
    overrides = dict(entry.get("overrides") or {})
    overrides.setdefault("feedback_interval_ms", step_ms)
    flows[index] = {**entry, "overrides": overrides}
    return index


class FlowstateEnv(gymnasium.Env):
    """One flow's rate as the action, its feedback as the observation (module docstring)."""

    metadata = {"render_modes": []}

    def __init__(
        self,
        scenario: Union[str, "os.PathLike[str]", Mapping[str, Any], None] = None,
        *,
        toml: Optional[str] = None,
        trace: Union[str, "os.PathLike[str]", None] = None,
        flow: Optional[str] = None,
        step_ms: float = 60.0,
        observation: str = "basic",
        reward: Union[Mapping[str, float], Callable[[dict[str, Any]], float], None] = None,
        min_rate_bps: float = 10e3,
        max_rate_bps: float = 10e6,
        duration: Optional[str] = None,
    ):
        if not (isinstance(step_ms, (int, float)) and math.isfinite(step_ms) and step_ms >= 1):
            raise FlowstateError(f"step_ms must be a number >= 1, got {step_ms!r}")
        if not (0 < min_rate_bps < max_rate_bps and math.isfinite(max_rate_bps)):
            raise FlowstateError(f"rates must be 0 < min_rate_bps < max_rate_bps, got {min_rate_bps}, {max_rate_bps}")
        self._scenario, self._base_dir = _scenario_dict(scenario, toml, trace, duration)
        if duration is not None and trace is None:
            self._scenario["duration"] = duration
        self._agent = _agent(self._scenario, flow, float(step_ms))
        agent = self._scenario["flows"][self._agent]
        initial = agent["overrides"].get("initial_rate")
        initial_bps = _native.parse_rate_bps(initial) if isinstance(initial, str) else None
        if initial_bps is None or not (min_rate_bps <= initial_bps <= max_rate_bps):
            initial_bps = min(max(300e3, min_rate_bps), max_rate_bps)
        self._initial_bps = float(initial_bps)
        bps = lambda v: f"{float(v)!r}bps"  # noqa: E731 - the scenario's unit syntax
        agent["overrides"] = {
            **agent["overrides"],
            "min_rate": bps(min_rate_bps),
            "max_rate": bps(max_rate_bps),
            "initial_rate": bps(initial_bps),
        }
        self._text = _native.scenario_toml(self._scenario)
        self._file = str(self._scenario.get("name", "<env>"))
        # Checked once here (a bad scenario fails at construction, not at reset).
        _native.validate_scenario(self._text, self._file, base_dir=self._base_dir)
        self.step_s = step_ms / 1e3
        self._observer = observer(observation, self.step_s)
        if callable(reward):
            self._reward: Callable[[dict[str, Any]], float] = reward
        else:
            weights = {**DEFAULT_REWARD, **dict(reward or {})}
            unknown = set(weights) - set(DEFAULT_REWARD)
            if unknown:
                raise FlowstateError(f"reward weights: unknown {sorted(unknown)} (known: throughput, delay, loss)")
            self._reward = lambda i: (
                weights["throughput"] * i["throughput_mbps"]
                - weights["delay"] * i["queuing_delay_ms"]
                - weights["loss"] * i["loss_ratio"]
            )
        self.action_space = spaces.Box(np.float32(min_rate_bps), np.float32(max_rate_bps), shape=(1,), dtype=np.float32)
        self.observation_space = spaces.Box(0.0, np.inf, shape=(self._observer.size,), dtype=np.float32)
        self._sim: Any = None
        self._min_owd = math.inf

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        run_seed = seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        self._sim = _native.Simulation(self._text, self._file, self._agent, seed=run_seed, base_dir=self._base_dir)
        self._steps = 0
        self._t = 0.0
        self._rate = self._initial_bps
        self._observer.reset()
        self._min_owd = math.inf
        obs = self._observer.update([], 0.0, self._rate)
        return np.maximum(obs, 0.0), {"time_s": 0.0, "seed": run_seed, "rate_bps": self._rate}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._sim is None:
            raise FlowstateError("call reset() before step()")
        rate = float(np.clip(np.asarray(action, dtype=np.float64).reshape(-1)[0], self.action_space.low[0], self.action_space.high[0]))
        if not math.isfinite(rate):
            raise FlowstateError(f"the action must be a finite rate in bit/s, got {action!r}")
        self._rate = rate
        self._sim.set_rate(rate)
        self._steps += 1
        self._t = self._steps * self.step_s
        more = self._sim.run_until(self._t)
        feedbacks = self._sim.take_feedback()
        obs = np.maximum(self._observer.update(feedbacks, self._t, rate), 0.0)
        info = self._step_info(feedbacks, rate)
        reward = float(self._reward(info))
        return obs, reward, not more, False, info

    def _step_info(self, feedbacks: list[Any], rate: float) -> dict[str, Any]:
        received = lost = total = 0
        owds: list[float] = []
        for fb in feedbacks:
            for s, a, b in zip(fb.send_time_s, fb.arrival_time_s, fb.size_bytes):
                total += 1
                if a != a:
                    lost += 1
                else:
                    received += b
                    owds.append(a - s)
        if owds:
            self._min_owd = min(self._min_owd, min(owds))
        qdelay_ms = (sum(owds) / len(owds) - self._min_owd) * 1e3 if owds else 0.0
        return {
            "time_s": self._t,
            "rate_bps": rate,
            "throughput_mbps": received * 8 / self.step_s / 1e6,
            "queuing_delay_ms": qdelay_ms,
            "loss_ratio": lost / total if total else 0.0,
            "reports": len(feedbacks),
        }

    def summary(self) -> dict[str, Any]:
        """End the episode's run where it is and return its summary (summary.json's
        fields); the environment then needs a reset."""
        import json

        if self._sim is None:
            raise FlowstateError("call reset() first")
        raw = self._sim.finish()
        self._sim = None
        return json.loads(raw["summary_json"])
