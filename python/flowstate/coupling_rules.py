"""Coupling rules written in Python, for ``[coupling] mechanism = "python"``
(docs/PYTHON.md, "A coupling rule in Python").

A rule is a class; the scenario names it and the parameters its constructor takes::

    [coupling]
    mechanism = "python"
    rule = "myrule:SimpleFse"         # module:Class, or "path/to/file.py:Class"
    params = { headroom = 1.0 }       # keyword arguments of the constructor
    gcc_report = "delay-based"        # what GCC flows report: "target" (default) or "delay-based"

The coupling manager keeps the flow groups (flows that share a bottleneck), their ids
and the checks of every report; it makes one object of the class per group, when the
group's first flow registers (``SimpleFse(headroom=1.0, seed=S)``; ``seed``, the
group's own, drawn from the run's seed, when the constructor takes a ``seed`` argument
or ``**kwargs``), and calls it at each event of the group:

* ``on_register(now_s, flow, flows)`` (optional): ``flow`` joined; returns None (a join
  changes the allowances at the group's next report, as with the built-in mechanisms);
* ``on_report(now_s, flow, flows)``: ``flow``'s controller reported a new value
  (``flow.rate_bps``, or ``flow.cwnd_bytes`` and ``flow.rtt_s``);
* ``on_leave(now_s, flow, flows)`` (optional): ``flow`` left.

``flows`` is a tuple of :class:`flowstate.CoupledFlow`, the group's flows in
registration order after the event. ``on_report`` and ``on_leave`` return the
allowances to apply, ``{flow.id: value}`` (bit/s for a rate flow; cwnd bytes for a
window flow, rounded down to whole MTUs, at least one), or None for no change. A class
attribute ``flow_kinds = ("rate", "window")`` lets window flows (SCTP, TCP) join; by
default only rate flows are coupled and the others run uncoupled.

A wrong answer (an id that is not in the group, NaN, a negative value, a list) stops
the run with a one-line :class:`CouplingRuleError`; an exception raised by the rule
stops it with the rule's own traceback and a note naming the hook and the simulated
time.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from flowstate._native import CoupledFlow, CouplingRuleError
from flowstate.controllers import _takes_seed, load_class

__all__ = ["CoupledFlow", "CouplingRuleError", "FLOW_KINDS", "load_rule", "make_rule"]

FLOW_KINDS = ("rate", "window")


def _kinds(cls: type, rule: str) -> tuple[bool, bool]:
    kinds = getattr(cls, "flow_kinds", ("rate",))
    if isinstance(kinds, str):
        kinds = (kinds,)
    try:
        names = [str(k).strip().lower() for k in kinds]
    except TypeError:
        names = [repr(kinds)]
    bad = [n for n in names if n not in FLOW_KINDS]
    if bad or not names:
        raise CouplingRuleError(
            f"{rule}: flow_kinds must name \"rate\", \"window\" or both, got {kinds!r}"
        )
    return "rate" in names, "window" in names


def load_rule(rule: str, base_dir: Optional[str] = None) -> type:
    """The class ``rule`` (``"module:Class"`` or ``"file.py:Class"``) names, checked:
    it has ``on_report``. CouplingRuleError (one line) otherwise."""
    cls = load_class(rule, base_dir, field="rule", error=CouplingRuleError)
    if not callable(getattr(cls, "on_report", None)):
        raise CouplingRuleError(
            f"{rule.strip()} has no method on_report(now_s, flow, flows): define it to return "
            "{flow id: allowance} for the flows of the group"
        )
    _kinds(cls, rule.strip())
    return cls


def make_rule(rule: str, params: Optional[dict[str, Any]] = None, seed: int = 0,
              base_dir: Optional[str] = None) -> Any:
    """One group's object of the rule ``rule`` with ``params`` (what a
    ``mechanism = "python"`` run makes for each flow group)."""
    cls = load_rule(rule, base_dir)
    params = dict(params or {})
    if "seed" in params:
        raise CouplingRuleError(
            "coupling.params.seed: the seed is the group's own (drawn from the run's seed); name the parameter otherwise"
        )
    if _takes_seed(cls):
        params["seed"] = seed
    return cls(**params)


def _maker(rule: str, params: dict[str, Any], base_dir: Optional[str],
           _check_only: bool) -> tuple[Callable[[int], Any], bool, bool]:
    """The simulator's call: ``(make(seed), couples rate flows, couples window flows)``."""
    cls = load_rule(rule, base_dir)
    if "seed" in params:
        raise CouplingRuleError(
            "params.seed: the seed is the group's own (drawn from the run's seed); name the parameter otherwise"
        )
    takes_seed = _takes_seed(cls)
    rate, window = _kinds(cls, rule.strip())

    def make(seed: int) -> Any:
        kwargs = dict(params)
        if takes_seed:
            kwargs["seed"] = seed
        return cls(**kwargs)

    return make, rate, window
