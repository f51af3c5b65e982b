"""Setting values inside a scenario by path (docs/CATALOGUE.md, "Paths").

::

    from flowstate.overrides import load_toml, set_path

    scenario = load_toml("scenarios/p000-table5/base.toml")
    set_path(scenario, "coupling.mechanism", "fsev2")
    set_path(scenario, "flows.sctp.priority", 0.5)      # the flow named "sctp"
    set_path(scenario, "flows[1].overrides.mtu", "1200B")
    remove_path(scenario, "link.capacity")               # e.g. before a capacity_schedule

A path is dotted keys, ``[i]`` for an element of an array of tables,
``flows.<name>`` for the flow with that name and ``links.<name>`` for the named link
(``[[links]]``) with that name. Missing intermediate tables are created; a missing flow
or link or an index past the end raises :class:`PathError` naming the path.
"""

from __future__ import annotations

import copy
import os
import re
import tomllib
from pathlib import Path
from typing import Any, Mapping, MutableMapping, Sequence

from flowstate.errors import FlowstateError
from flowstate.input_file import NotReadable, read_bytes

_SEGMENT = re.compile(r"^([A-Za-z0-9_\-]+)((?:\[\d+\])*)$")
_INDEX = re.compile(r"\[(\d+)\]")


class PathError(FlowstateError):
    """A path that does not address anything in the scenario."""


def parse_path(path: str) -> list[str | int]:
    """``"flows[1].overrides.mtu"`` -> ``["flows", 1, "overrides", "mtu"]``."""
    if not isinstance(path, str) or not path:
        raise PathError(f"path must be a non-empty string, got {path!r}")
    steps: list[str | int] = []
    for segment in path.split("."):
        m = _SEGMENT.match(segment)
        if m is None:
            raise PathError(f"{path}: bad path segment {segment!r}")
        steps.append(m.group(1))
        steps.extend(int(i) for i in _INDEX.findall(m.group(2)))
    return steps


def _parent(scenario: MutableMapping[str, Any], steps: list[str | int], path: str, create: bool) -> Any:
    """The node holding the last step of ``steps`` (tables created on the way when
    ``create``)."""
    node: Any = scenario
    i = 0
    while i < len(steps) - 1:
        step, nxt = steps[i], steps[i + 1]
        if step in ("flows", "links") and isinstance(nxt, str) and isinstance(node, Mapping) and node is scenario:
            node = _flow_by_name(scenario, nxt, path, step)
            i += 2
            continue
        node = _child(node, step, path, create=create and not isinstance(nxt, int))
        i += 1
    return node


def set_path(scenario: MutableMapping[str, Any], path: str, value: Any) -> None:
    """Set ``value`` at ``path`` inside ``scenario`` (in place)."""
    steps = parse_path(path)
    node = _parent(scenario, steps, path, create=True)
    last = steps[-1]
    if isinstance(last, int):
        if not isinstance(node, list) or last >= len(node):
            raise PathError(f"{path}: index {last} is past the end")
        node[last] = value
    elif isinstance(node, MutableMapping):
        node[last] = value
    else:
        raise PathError(f"{path}: {last!r} is not inside a table")


def remove_path(scenario: MutableMapping[str, Any], path: str) -> None:
    """Remove what ``path`` addresses inside ``scenario`` (in place): a key, an element
    of an array (``flows[1]``) or a named flow or link (``flows.video``). Nothing there
    is a PathError naming the path (a typo must not pass unnoticed)."""
    steps = parse_path(path)
    if len(steps) == 2 and steps[0] in ("flows", "links") and isinstance(steps[1], str):
        items = scenario.get(str(steps[0]))
        item = _flow_by_name(scenario, steps[1], path, str(steps[0]))
        assert isinstance(items, list)
        items.remove(item)
        return
    node = _parent(scenario, steps, path, create=False)
    last = steps[-1]
    if isinstance(last, int):
        if not isinstance(node, list) or last >= len(node):
            raise PathError(f"{path}: index {last} is past the end")
        del node[last]
    elif isinstance(node, MutableMapping) and last in node:
        del node[last]
    elif isinstance(node, MutableMapping):
        keys = ", ".join(str(k) for k in node) or "none"
        raise PathError(f"{path}: {last!r} is not there to remove (keys: {keys})")
    else:
        raise PathError(f"{path}: {last!r} is not inside a table")


def with_overrides(scenario: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of ``scenario`` with every ``path = value`` of ``overrides`` set in order."""
    out = copy.deepcopy(dict(scenario))
    for path, value in overrides.items():
        set_path(out, path, value)
    return out


def with_changes(
    scenario: Mapping[str, Any],
    sets: Mapping[str, Any],
    unsets: Sequence[str] = (),
    paths_from: str | Path | None = None,
) -> dict[str, Any]:
    """A deep copy of ``scenario`` with every path of ``unsets`` removed, then every
    ``path = value`` of ``sets`` set, in order; then every relative trace file made
    absolute from ``paths_from`` (default: the current folder). This is how the
    command line's ``--unset`` / ``--set`` and the Python API's ``unset=`` / ``set=``
    change a scenario: a path given there is relative to the current folder, whereas
    the paths written in a scenario file are relative to the file's folder (made
    absolute by :func:`load_toml` before the changes)."""
    out = copy.deepcopy(dict(scenario))
    for path in unsets:
        remove_path(out, path)
    for path, value in sets.items():
        set_path(out, path, value)
    return resolve_trace_files(out, paths_from if paths_from is not None else os.getcwd())


def resolve_trace_files(scenario: dict[str, Any], folder: str | Path) -> dict[str, Any]:
    """``scenario`` with a relative ``capacity_trace.file`` of ``[link]``,
    ``[reverse_link]``, ``parking_lot.link`` and every ``[[links]]`` entry, and a flow's
    controller file (``python`` / ``onnx`` flows) and a coupling rule's file, made absolute from ``folder`` (the scenario file's folder), as
    the simulator reads a scenario file: the dict can then be checked and run from
    anywhere (the catalogue, sweeps, ``run --set``). Changed in place and returned."""
    lot = scenario.get("parking_lot")
    named = [l for l in scenario.get("links") or [] if isinstance(l, dict)]
    lot_link = lot.get("link") if isinstance(lot, dict) else None
    for link in [scenario.get("link"), scenario.get("reverse_link"), lot_link, *named]:
        trace = link.get("capacity_trace") if isinstance(link, dict) else None
        file = trace.get("file") if isinstance(trace, dict) else None
        if isinstance(file, str) and file.strip() and not os.path.isabs(file):
            trace["file"] = os.path.abspath(os.path.join(os.fspath(folder), file))
    for flow in scenario.get("flows") or []:
        if isinstance(flow, dict) and isinstance(flow.get("controller"), str):
            flow["controller"] = _absolute_controller(flow, os.fspath(folder))
    coupling = scenario.get("coupling")
    if isinstance(coupling, dict) and isinstance(coupling.get("rule"), str):
        coupling["rule"] = _absolute_controller({"controller": coupling["rule"]}, os.fspath(folder))
    return scenario


def _absolute_controller(flow: dict[str, Any], folder: str) -> str:
    """A ``python`` / ``onnx`` flow's ``controller`` with a relative file (``file.py:Class``,
    ``model.onnx``, ``onnx:model.onnx``) made absolute from ``folder``; a module name as it is."""
    controller = flow["controller"].strip()
    absolute = lambda path: path if os.path.isabs(path) else os.path.abspath(os.path.join(folder, path))  # noqa: E731
    kind = str(flow.get("kind", "")).strip().lower()
    if kind == "onnx":
        return absolute(controller)
    if controller.startswith("onnx:"):
        return "onnx:" + absolute(controller[len("onnx:"):])
    module, sep, name = controller.rpartition(":")
    if sep and module.endswith(".py"):
        return absolute(module) + ":" + name
    return controller


def load_toml(file: str | Path) -> dict[str, Any]:
    """A scenario (or any TOML file) as a dict, relative trace files made absolute
    (:func:`resolve_trace_files`). Errors name the file."""
    try:
        text = read_bytes(file, "a TOML file").decode("utf-8")
        return resolve_trace_files(tomllib.loads(text), Path(file).parent)
    except NotReadable as e:
        raise PathError(f"{file}: {e}") from None
    except OSError as e:
        raise PathError(f"{file}: cannot read: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise PathError(f"{file}: {e}") from None
    except UnicodeDecodeError:
        raise PathError(f"{file}: not UTF-8 text") from None


def _flow_by_name(scenario: Mapping[str, Any], name: str, path: str, key: str = "flows") -> Any:
    """The entry of the array of tables ``key`` (``flows`` or ``links``) named ``name``."""
    items = scenario.get(key)
    if isinstance(items, list):
        for item in items:
            if isinstance(item, Mapping) and item.get("name") == name:
                return item
    raise PathError(f"{path}: no {key[:-1]} named {name!r}")


def _child(node: Any, step: str | int, path: str, create: bool) -> Any:
    if isinstance(step, int):
        if not isinstance(node, list) or step >= len(node):
            raise PathError(f"{path}: index {step} is past the end")
        return node[step]
    if not isinstance(node, MutableMapping):
        raise PathError(f"{path}: {step!r} is not inside a table")
    if step not in node:
        if not create:
            raise PathError(f"{path}: {step!r} is missing")
        node[step] = {}
    return node[step]
