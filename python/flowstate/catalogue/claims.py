"""The safe evaluator of ``[[claims]] check`` expressions (docs/CATALOGUE.md).

::

    check = "{none:aggregate.jain_index} < 0.75 and {none:flows.gcc.share} < 0.25"

``{point:metric}`` placeholders are replaced by the point's mean value of the metric;
the rest may only use numbers, ``+ - * /``, unary ``-``/``+``, comparisons (chains
too), ``and``, ``or``, ``not`` and calls to ``abs``, ``min`` and ``max``. The text is
parsed with :mod:`ast` and only those nodes are walked; nothing is ever passed to
``eval``. A placeholder whose value is missing (None) makes the claim "not evaluated".

A claim checks a direction ("below 75 % of the uncoupled RTT"); the paper's numbers for
the same metrics (results.json ``comparison``) say how far ours are from the paper's.
:func:`annotate_claims` adds them to each claim and flags a claim whose values are off
the paper's by more than :data:`VALUE_OFF_THRESHOLD` (docs/CATALOGUE.md, "Claims")::

    {"status": "holds", "value_off": true, "relative_difference": 0.76,
     "paper_values": [{"ref": "{fsev2:flows.gcc.rtt_ms.mean}", "paper": 115.0, "ours": 202.0,
                       "relative_difference": 0.76}]}
"""

from __future__ import annotations

import ast
import math
import operator
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Optional

from flowstate.errors import FlowstateError

PLACEHOLDER = re.compile(r"\{([^{}:]+):([^{}]+)\}")

HOLDS = "holds"
FAILS = "fails"
NOT_EVALUATED = "not evaluated"

_BINOPS: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_CMPOPS: dict[type, Callable[[Any, Any], bool]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
_FUNCTIONS: dict[str, Callable[..., float]] = {"abs": abs, "min": min, "max": max}
# How many arguments each function takes: (at least, at most; None: no limit).
_ARITY: dict[str, tuple[int, Optional[int]]] = {"abs": (1, 1), "min": (2, None), "max": (2, None)}
# A claim's value is "off" when one of its metrics differs from the paper's number for
# it by more than this fraction of the paper's number (either way).
VALUE_OFF_THRESHOLD = 0.25
# Deepest expression tree a check may have (Python's parser and the evaluator recurse).
MAX_DEPTH = 50


class ClaimError(FlowstateError):
    """A check expression that is not allowed or does not parse."""


class _Missing(Exception):
    """A placeholder without a value."""


@dataclass(frozen=True)
class Check:
    """A parsed check: its placeholders (in order of first use) and the expression."""

    text: str
    refs: tuple[tuple[str, str], ...]  # (point, metric), one per variable _v<i>
    tree: ast.Expression


def parse(text: str) -> Check:
    """Parses and checks ``text``; raises ClaimError naming the offending construct."""
    if not isinstance(text, str) or not text.strip():
        raise ClaimError("check must be a non-empty string")
    refs: list[tuple[str, str]] = []

    def var(m: re.Match[str]) -> str:
        ref = (m.group(1).strip(), m.group(2).strip())
        if ref not in refs:
            refs.append(ref)
        return f" _v{refs.index(ref)} "

    expression = PLACEHOLDER.sub(var, text)
    if "{" in expression or "}" in expression:
        raise ClaimError("unbalanced or malformed {point:metric} placeholder")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as e:
        raise ClaimError(f"syntax error: {e.msg}") from None
    except (RecursionError, MemoryError):
        raise ClaimError(f"nested more than {MAX_DEPTH} levels deep") from None
    if _depth(tree.body) > MAX_DEPTH:
        raise ClaimError(f"nested more than {MAX_DEPTH} levels deep")
    names = {f"_v{i}" for i in range(len(refs))}
    callees = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        _check_node(node, names)
        if isinstance(node, ast.Name) and node.id in _FUNCTIONS and id(node) not in callees:
            raise ClaimError(f"{node.id} may only be called")
    if not _is_condition(tree.body):
        raise ClaimError("must be a comparison such as {point:metric} < 0.75 (joined by and, or, not)")
    return Check(text, tuple(refs), tree)


def _depth(node: ast.AST) -> int:
    """Depth of the expression tree (iterative: the tree may be deeper than Python's stack)."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        n, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((c, d + 1) for c in ast.iter_child_nodes(n))
    return deepest


def _is_condition(node: ast.AST) -> bool:
    """True for a comparison, or comparisons joined by ``and`` / ``or`` / ``not``: a bare
    number (``{p:m}``, ``1``) would "hold" whenever it is not zero."""
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.BoolOp):
        return all(_is_condition(v) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _is_condition(node.operand)
    return False


def _check_node(node: ast.AST, names: set[str]) -> None:
    allowed = (
        ast.Expression,
        ast.BoolOp,
        ast.And,
        ast.Or,
        ast.UnaryOp,
        ast.USub,
        ast.UAdd,
        ast.Not,
        ast.BinOp,
        ast.Compare,
        ast.Call,
        ast.Name,
        ast.Load,
        ast.Constant,
        *_BINOPS,
        *_CMPOPS,
    )
    if not isinstance(node, allowed):
        raise ClaimError(f"not allowed in a check: {type(node).__name__}")
    if isinstance(node, ast.Constant) and (
        isinstance(node.value, bool) or not isinstance(node.value, (int, float))
    ):
        raise ClaimError(f"not allowed in a check: the constant {node.value!r}")
    if isinstance(node, ast.Name) and node.id not in names and node.id not in _FUNCTIONS:
        raise ClaimError(f"unknown name {node.id!r} (metrics are written {{point:metric}})")
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            raise ClaimError("only abs(), min() and max() may be called")
        if node.keywords or not node.args:
            raise ClaimError(f"{node.func.id}() takes positional arguments only")
        low, high = _ARITY[node.func.id]
        if len(node.args) < low or (high is not None and len(node.args) > high):
            wanted = f"{low}" if low == high else f"at least {low}"
            raise ClaimError(f"{node.func.id}() takes {wanted} argument{'s' if low > 1 else ''}, got {len(node.args)}")


def evaluate(check: Check, lookup: Callable[[str, str], Optional[float]]) -> tuple[str, dict[str, Optional[float]]]:
    """``(status, values)``: status is "holds", "fails" or "not evaluated"; ``values``
    maps each placeholder text ``{point:metric}`` to the value used (None: missing)."""
    values = [lookup(point, metric) for point, metric in check.refs]
    shown = {f"{{{p}:{m}}}": v for (p, m), v in zip(check.refs, values)}
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values):
        return NOT_EVALUATED, shown
    env = {f"_v{i}": float(v) for i, v in enumerate(values)}  # type: ignore[arg-type]
    try:
        result = _eval(check.tree.body, env)
    except (ZeroDivisionError, OverflowError, _Missing):
        return NOT_EVALUATED, shown
    return (HOLDS if result else FAILS), shown


def _eval(node: ast.AST, env: Mapping[str, float]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise _Missing(node.id)
        return env[node.id]
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, env)
        if isinstance(node.op, ast.Not):
            return not value
        return -value if isinstance(node.op, ast.USub) else +value
    if isinstance(node, ast.BinOp):
        return _BINOPS[type(node.op)](_eval(node.left, env), _eval(node.right, env))
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            return all(_eval(v, env) for v in node.values)
        return any(_eval(v, env) for v in node.values)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        for op, comparator in zip(node.ops, node.comparators):
            right = _eval(comparator, env)
            if not _CMPOPS[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        return _FUNCTIONS[node.func.id](*(_eval(a, env) for a in node.args))
    raise ClaimError(f"not allowed in a check: {type(node).__name__}")  # pragma: no cover


def _number(value: Any) -> Optional[float]:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def relative_difference(ours: Optional[float], paper: Optional[float]) -> Optional[float]:
    """``(ours - paper) / |paper|``; None without both values or for a paper value of 0."""
    if ours is None or paper is None or paper == 0:
        return None
    return (ours - paper) / abs(paper)


def paper_values(values: Mapping[str, Any], comparison: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The claim's placeholders (``values``: placeholder text -> our value) that the
    paper gives a number for (``comparison``: results.json's rows with ``point``,
    ``metric``, ``paper``): ``{"ref", "paper", "ours", "relative_difference"}`` each."""
    paper: dict[tuple[str, str], float] = {}
    for row in comparison:
        number = _number(row.get("paper"))
        if number is not None and isinstance(row.get("point"), str) and isinstance(row.get("metric"), str):
            paper.setdefault((row["point"].strip(), row["metric"].strip()), number)
    rows = []
    for ref, ours in values.items():
        match = PLACEHOLDER.fullmatch(str(ref))
        key = (match.group(1).strip(), match.group(2).strip()) if match else None
        if key in paper:
            value = _number(ours)
            rows.append({
                "ref": ref, "paper": paper[key], "ours": value,  # type: ignore[index]
                "relative_difference": relative_difference(value, paper[key]),  # type: ignore[index]
            })
    return rows


def annotate_claims(claims: Iterable[dict[str, Any]], comparison: Iterable[Mapping[str, Any]]) -> None:
    """Adds to each claim ``paper_values`` (:func:`paper_values`), ``relative_difference``
    (the largest in size of theirs, None without any) and ``value_off`` (that one is over
    VALUE_OFF_THRESHOLD). Idempotent."""
    comparison = list(comparison)
    for claim in claims:
        values = claim.get("values")
        rows = paper_values(values if isinstance(values, Mapping) else {}, comparison)
        differences = [r["relative_difference"] for r in rows if r["relative_difference"] is not None]
        worst = max(differences, key=abs, default=None)
        claim["paper_values"] = rows
        claim["relative_difference"] = worst
        claim["value_off"] = worst is not None and abs(worst) > VALUE_OFF_THRESHOLD


def percent(fraction: float) -> str:
    """``+76 %`` / ``-30 %``: a relative difference in whole percent, signed."""
    whole = round(fraction * 100)
    return f"{whole:+d} %" if whole else "0 %"


def status_text(claim: Mapping[str, Any]) -> str:
    """The claim's status, with the flag of :func:`annotate_claims`: ``holds, value off
    by +76 %``."""
    status = str(claim.get("status", NOT_EVALUATED))
    worst = claim.get("relative_difference")
    if claim.get("value_off") and isinstance(worst, (int, float)):
        return f"{status}, value off by {percent(float(worst))}"
    return status
