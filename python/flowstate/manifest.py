"""``manifest.json``: what produced an output folder (docs/SCENARIOS.md, "The output
folder and `manifest.json`").

Every command that writes an output folder (`flowstate run`, `reproduce` per entry,
`sweep`, `testbed`, `browser`) records, through :func:`recording`::

    {"flowstate_version": "0.1.0", "git_commit": "c38945b...", "git_dirty": false,
     "command": ["flowstate", "run", "x.toml", "--set", "link.capacity=4Mbps"],
     "kind": "run", "started_at": "2026-12-07T13:00:00Z", "finished_at": "...",
     "status": "complete", "platform": {"python": "3.11.2", "os": "Linux", ...},
     "seeds": [1, 2, 3], "sets": ["link.capacity=4Mbps"], "unsets": [],
     "scenario": {...the scenario after --set...},
     "coupling": {"mechanism": "fsev2", "groups": {"video": "call", "data": "call"}}}

The file is written at the start with ``"status": "running"`` and rewritten at the end
with ``"complete"``, ``"interrupted"`` (Ctrl-C) or ``"failed"``; each write goes to a
temporary file renamed into place, so a reader sees one whole version or the other.
A sweep's finished tasks carry the same document (kind ``"sweep-point"``, :func:`document`)
inside their point files.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from contextlib import contextmanager
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional, Sequence

from flowstate.output_files import MANIFEST_FILE

KINDS = ("run", "reproduce", "sweep", "sweep-point", "testbed", "browser")
RUNNING, COMPLETE, INTERRUPTED, FAILED = "running", "complete", "interrupted", "failed"
STATUSES = (RUNNING, COMPLETE, INTERRUPTED, FAILED)
# `git` answers in milliseconds; a hung one (a network file system) must not hold the run.
GIT_TIMEOUT_S = 5.0
DEFAULT_MECHANISM = "none"  # a scenario without [coupling] (docs/SCENARIOS.md)


def utc_now() -> str:
    """The current time as ISO 8601 UTC, to the second: ``2026-12-07T13:00:00Z``."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _git(source: Path, *args: str) -> Optional[str]:
    """``git -C source ARGS``'s output, or None when git is missing or fails."""
    try:
        done = subprocess.run(
            ["git", "-C", str(source), *args], capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


@lru_cache(maxsize=1)
def source_revision() -> tuple[Optional[str], Optional[bool]]:
    """(commit, dirty) of the git checkout the package is imported from; (None, None)
    when it is not one (an installed copy, no git on the machine). Only a checkout
    that tracks this very file counts: a package installed inside some other
    repository's folder (a virtualenv in a checkout) has no commit."""
    source = Path(__file__).resolve().parent
    if _git(source, "ls-files", "--error-unmatch", "__init__.py") is None:
        return None, None
    commit = _git(source, "rev-parse", "HEAD")
    if commit is None:
        return None, None
    status = _git(source, "status", "--porcelain", "--untracked-files=no")
    return commit.strip(), None if status is None else bool(status.strip())


def platform_info() -> dict[str, Any]:
    """The machine the command ran on."""
    return {
        "python": platform.python_version(),
        "os": platform.system(),
        "os_release": platform.release(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
    }


def _flow_names(flow: Mapping[str, Any]) -> list[str]:
    """The names a ``[[flows]]`` entry runs under: ``name``, or with ``count = N > 1``
    the copies ``name1 .. nameN`` (docs/SCENARIOS.md)."""
    name = str(flow.get("name", ""))
    count = flow.get("count", 1)
    if isinstance(count, int) and not isinstance(count, bool) and count > 1:
        return [f"{name}{k}" for k in range(1, count + 1)]
    return [name]


def coupling_of(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """``{"mechanism": ..., "groups_mode": ..., "groups": {flow name: group or None}}`` of
    a scenario dict, as the simulator reads it (``_native.scenario_coupling``: a call's
    own flows in group "call" unless grouped otherwise, other kinds and cross traffic
    None; docs/SCENARIOS.md "Coupling groups"). A scenario the simulator cannot read
    (never one a command runs) gives each flow's written ``group``."""
    from flowstate import _native

    try:
        return dict(_native.scenario_coupling(_native.scenario_toml(dict(scenario)), "<scenario>"))
    except (_native.FlowstateError, ValueError, TypeError):
        pass
    coupling = scenario.get("coupling")
    mechanism = coupling.get("mechanism", DEFAULT_MECHANISM) if isinstance(coupling, Mapping) else DEFAULT_MECHANISM
    groups: dict[str, Optional[str]] = {}
    flows = scenario.get("flows")
    for flow in flows if isinstance(flows, list) else []:
        if isinstance(flow, Mapping):
            group = flow.get("group")
            for name in _flow_names(flow):
                groups[name] = None if group is None else str(group)
    return {"mechanism": str(mechanism), "groups": groups}


def coupling_of_points(scenarios: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The coupling of several scenarios (a reproduction's points, by name): the
    distinct mechanisms in point order joined by ", ", each flow's first named group,
    and ``by_point``, each point's own :func:`coupling_of`."""
    by_point = {name: coupling_of(s) for name, s in scenarios.items()}
    mechanisms = list(dict.fromkeys(c["mechanism"] for c in by_point.values()))
    groups: dict[str, Optional[str]] = {}
    for c in by_point.values():
        for flow, group in c["groups"].items():
            if groups.get(flow) is None:
                groups[flow] = group
    return {"mechanism": ", ".join(mechanisms) or DEFAULT_MECHANISM, "groups": groups, "by_point": by_point}


def document(
    *,
    kind: str,
    command: Optional[Sequence[str]],
    seeds: Sequence[int],
    scenario: Mapping[str, Any],
    sets: Sequence[str] = (),
    unsets: Sequence[str] = (),
    coupling: Optional[Mapping[str, Any]] = None,
    status: str = RUNNING,
    started_at: Optional[str] = None,
    finished_at: Optional[str] = None,
) -> dict[str, Any]:
    """The manifest document. ``command``: the argv (default ``sys.argv``);
    ``coupling``: default :func:`coupling_of` ``scenario``."""
    if kind not in KINDS:
        raise ValueError(f"manifest kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if status not in STATUSES:
        raise ValueError(f"manifest status must be one of {', '.join(STATUSES)}, got {status!r}")
    commit, dirty = source_revision()
    from flowstate import __version__

    return {
        "flowstate_version": str(__version__),
        "git_commit": commit,
        "git_dirty": dirty,
        "command": [str(a) for a in (command if command is not None else sys.argv)],
        "kind": kind,
        "started_at": started_at or utc_now(),
        "finished_at": finished_at,
        "status": status,
        "platform": platform_info(),
        "seeds": [int(s) for s in seeds],
        "sets": list(sets),
        "unsets": list(unsets),
        "scenario": dict(scenario),
        "coupling": dict(coupling) if coupling is not None else coupling_of(scenario),
    }


def write(folder: Path, doc: Mapping[str, Any]) -> Path:
    """Writes ``folder/manifest.json`` through a temporary file and a rename."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / MANIFEST_FILE
    tmp = folder / f".{MANIFEST_FILE}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(doc, indent=2, default=str, allow_nan=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def read(folder: Path) -> Optional[dict[str, Any]]:
    """``folder/manifest.json`` as a dict; None when it is absent or unreadable (an
    older folder)."""
    try:
        doc = json.loads((Path(folder) / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


class Recording:
    """A manifest being kept: written when made (status "running"), rewritten by
    :meth:`finish`. ``status`` may be set before :func:`recording` finishes it (a
    command that ends early without an exception, e.g. a cut-short browser run)."""

    def __init__(self, folder: Path, doc: dict[str, Any]) -> None:
        self.folder = Path(folder)
        self.doc = doc
        self.status: Optional[str] = None
        # The folders the first write makes (the folder and any missing parent), leaf first.
        self.made_folders = [f for f in (self.folder, *self.folder.parents) if not f.exists()]
        write(self.folder, doc)

    def finish(self, status: str) -> Path:
        if status not in STATUSES:
            raise ValueError(f"manifest status must be one of {', '.join(STATUSES)}, got {status!r}")
        self.doc["status"] = status
        self.doc["finished_at"] = None if status == INTERRUPTED else utc_now()
        return write(self.folder, self.doc)


def _finish_quietly(record: Recording, status: str) -> None:
    """Records ``status`` while an exception propagates; a folder that cannot be
    written any more must not hide that exception."""
    try:
        record.finish(status)
    except OSError:
        pass


@contextmanager
def recording(folder: Path, **fields: Any) -> Iterator[Recording]:
    """Writes ``folder``'s manifest (``fields`` as :func:`document` takes them) with
    status "running", runs the block, then rewrites it: "complete" (or the block's
    ``Recording.status``), "interrupted" on KeyboardInterrupt, "failed" on any other
    exception, which propagates. A block that fails before writing anything (bad input
    found once the work began) leaves no manifest, and no folder if it made it."""
    record = Recording(folder, document(**fields))
    try:
        yield record
    except KeyboardInterrupt:
        _finish_quietly(record, INTERRUPTED)
        raise
    except BaseException:
        if _only_manifest(record.folder):
            _remove_quietly(record)  # failed before writing anything: as if never started
        else:
            _finish_quietly(record, FAILED)
        raise
    record.finish(record.status or COMPLETE)


def _only_manifest(folder: Path) -> bool:
    try:
        return [p.name for p in folder.iterdir()] == [MANIFEST_FILE]
    except OSError:
        return False


def _remove_quietly(record: Recording) -> None:
    """Removes the manifest of a command that wrote nothing else, and the folders the
    command made for it (while they are empty)."""
    try:
        (record.folder / MANIFEST_FILE).unlink()
        for folder in record.made_folders:
            folder.rmdir()
    except OSError:
        pass
