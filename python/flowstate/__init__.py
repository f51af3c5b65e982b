"""flowstate: coupled congestion control for real-time media and data.

The coupling managers of the Flow State Exchange family, embeddable in any Python
WebRTC stack (e.g. aiortc)::

    from flowstate import CouplingManager

    fse = CouplingManager("fsev2")
    video = fse.register_rate(group=1, priority=1.0, initial_rate_bps=300_000)
    data = fse.register_window(group=1, priority=1.0, initial_cwnd=4800, initial_rtt_s=0.1)
    for a in fse.update_rate(now_s=0.0, flow=video, rate_bps=1_000_000):
        ...  # apply a.rate_bps to GCC, or a.cwnd / a.ssthresh to SCTP

Units: rates in bit/s, sizes in bytes, times in seconds.

The deterministic simulator runs scenarios (a TOML path, a dict, or TOML text given as
``toml=``; docs/SCENARIOS.md)::

    result = flowstate.run("scenario.toml", seed=1, runs=3, out="out/x")
    result = flowstate.run(toml=text)           # a positional string is always a path
    result.summary, result.runs, result.timeseries, result.flows
    flowstate.check_scenario("scenario.toml")   # the run's checks, without running

Your own coupling rule in Python (``[coupling] mechanism = "python"``,
flowstate.coupling_rules), your own rate controller in Python (``kind = "python"``, flowstate.controllers), ONNX
policies (``kind = "onnx"``, flowstate.onnx_policy) and a Gymnasium environment
(flowstate.gym): docs/PYTHON.md.

The W3C freeze and pause figures of any series of render times (a real receiver's
too)::

    flowstate.freezes([0.0, 0.033, 0.066, ...])  # {"freezes": ..., "freeze_duration_s": ...}
"""

from __future__ import annotations

from flowstate._native import (
    MECHANISMS,
    Allocation,
    ControllerError,
    CoupledFlow,
    CouplingError,
    CouplingManager,
    CouplingRuleError,
    Feedback,
    FlowstateError,
    ScenarioError,
    __version__,
)
from flowstate.simulation import RunResult, check_scenario, run
from flowstate.video import freezes

__all__ = [
    "MECHANISMS",
    "Allocation",
    "ControllerError",
    "CoupledFlow",
    "CouplingError",
    "CouplingManager",
    "CouplingRuleError",
    "Feedback",
    "FlowstateError",
    "RunResult",
    "ScenarioError",
    "__version__",
    "check_scenario",
    "freezes",
    "run",
]
