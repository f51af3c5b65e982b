"""The errors of flowstate. Every user-facing error is a :class:`FlowstateError` (a
ValueError) with a one-line message naming what is wrong: the native module's
``CouplingError`` and ``ScenarioError``, and the Python package's own (``PathError``
in overrides, ``CatalogueError``, ``ClaimError``, ``DerivedError``, ``ReportError``,
``FigureError``, ``SweepError``, ``MetricError``, ``PlanError``, ``EventLogError``,
:class:`UsageError`).
The command line reports exactly these as bad input (one line, exit status 2); any other
exception, a ``ValueError`` included, is a bug and keeps its traceback.

``FlowstateError`` is defined by the native module so that its errors share the base.
"""

from __future__ import annotations

from flowstate._native import CouplingError, FlowstateError, ScenarioError

__all__ = ["CouplingError", "FlowstateError", "ScenarioError", "UsageError"]


class UsageError(FlowstateError):
    """A command-line argument argparse cannot check alone (``compare`` with one folder,
    ``run --set`` with several values, a malformed ``--netns`` side)."""
