"""`flowstate list-options`: everything a scenario can name, from the one definition the
native module exports (``_native.definitions()``: the core's mechanism and GCC preset
lists, the simulator's flow kinds, overrides and bounds): coupling mechanisms with their
options, GCC and SCTP presets, flow kinds, every flow override with its default and
unit, and the bounds of the inputs that size a run.
``--json`` prints the export itself."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Iterable, Mapping, Optional, Sequence, TextIO

from flowstate import _native
from flowstate.cli.exit_status import ExitStatus
from flowstate.cli.listing import Listing, print_listings


def _text(value: Any) -> str:
    """A cell as a scenario file spells it: ``-`` for nothing, lists joined by commas,
    booleans ``true`` / ``false``."""
    if value is None or value == "" or value == []:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ", ".join(_text(v) for v in value)
    return str(value)


def _listing(title: str, headers: Sequence[str], rows: Iterable[Iterable[Any]]) -> Listing:
    return Listing(title, headers, [[_text(v) for v in row] for row in rows])


def listings(definitions: Mapping[str, Any]) -> list[Listing]:
    """The tables of ``definitions`` (the shape of ``_native.definitions()``)."""
    mechanisms = definitions["mechanisms"]
    options = [(m["name"], o["name"], o["default"], o["unit"], o["description"]) for m in mechanisms for o in m["options"]]
    return [
        _listing(
            f"{len(mechanisms)} coupling mechanisms ([coupling] mechanism = \"NAME\")",
            ("name", "printed as", "flow kinds", "description", "source"),
            ((m["name"], m["display_name"], m["flow_kinds"], m["description"], m["source"]) for m in mechanisms),
        ),
        _listing(
            f"{len(options)} mechanism options ([coupling] options = {{ OPTION = value }})",
            ("mechanism", "option", "default", "unit", "description"),
            options,
        ),
        _listing(
            f"{len(definitions['gcc_presets'])} GCC presets ([[flows]] preset = \"NAME\" on a gcc flow)",
            ("name", "description"),
            ((p["name"], p["description"]) for p in definitions["gcc_presets"]),
        ),
        _listing(
            f"{len(definitions['sctp_presets'])} SCTP presets ([[flows]] preset = \"NAME\" on an sctp flow)",
            ("name", "description"),
            ((p["name"], p["description"]) for p in definitions["sctp_presets"]),
        ),
        _listing(
            f"{len(definitions['flow_kinds'])} flow kinds ([[flows]] kind = \"NAME\")",
            ("name", "coupled as", "default group", "description"),
            (
                (k["name"], k["coupling"], k.get("default_group"), k["description"])
                for k in definitions["flow_kinds"]
            ),
        ),
        _listing(
            f"{len(definitions.get('ecn', []))} ECN settings ([[flows]] ecn = \"NAME\", any flow kind)",
            ("name", "codepoint", "description"),
            ((e["name"], e["codepoint"], e["description"]) for e in definitions.get("ecn", [])),
        ),
        _listing(
            f"{len(definitions['overrides'])} flow overrides ([[flows]] KEY = value, e.g. overrides.fps = 25)",
            ("key", "flow kinds", "default", "unit", "description"),
            ((o["key"], o["applies_to"], o["default"], o["unit"], o["description"]) for o in definitions["overrides"]),
        ),
        _listing(
            f"{len(definitions.get('bounds', []))} bounds (inputs that size a run; docs/SCENARIOS.md, \"Bounds\")",
            ("field", "limit", "why"),
            ((b["field"], b["limit"], b["why"]) for b in definitions.get("bounds", [])),
        ),
    ]


def main(*, as_json: bool = False, stdout: Optional[TextIO] = None) -> dict[str, Any]:
    """Prints the definitions (tables on a terminal, tab-separated text into a pipe, or
    JSON with ``as_json``) and returns them."""
    stdout = stdout if stdout is not None else sys.stdout
    definitions = _native.definitions()
    if as_json:
        print(json.dumps(definitions, indent=2), file=stdout)
        return definitions
    print_listings(listings(definitions), stdout)
    return definitions


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "list-options",
        help="list coupling mechanisms and their options, GCC and SCTP presets, flow kinds, ECN settings, flow overrides and bounds",
        description="Print everything a scenario file can name (docs/SCENARIOS.md): the coupling mechanisms "
        "(with the flow kinds they couple and their options, defaults and units), the GCC and SCTP presets, the flow "
        "kinds, every flow override with its default and unit, and the bounds of the inputs that size a run. Read "
        "from the simulator's own definitions.",
    )
    p.add_argument("--json", action="store_true", help="print the definitions as JSON")
    return p


def run(args: argparse.Namespace) -> ExitStatus:
    main(as_json=args.json)
    return ExitStatus.OK
