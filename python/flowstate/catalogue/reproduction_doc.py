"""The generated tables of docs/REPRODUCTION.md, from a whole-catalogue reproduction.

::

    flowstate reproduce --all --out RESULTS
    python -m flowstate.catalogue.reproduction_doc RESULTS --write docs/REPRODUCTION.md
    python -m flowstate.catalogue.reproduction_doc RESULTS --check docs/REPRODUCTION.md

The document's hand-written prose stays as it is; only the blocks between a marker
``<!-- generated: NAME -->`` and the next ``<!-- end -->`` are rewritten. NAME is a
catalogue entry id (its claims: claim, the paper's value, ours with the spread over the
runs, verdict; :func:`entry_table`) or ``contents`` (one row per entry with its
verdict; :func:`contents_table`). The values come from RESULTS/<id>/results.json
(docs/CATALOGUE.md, "results.json"), so the same folder always gives the same text.
``tests/test_reproduction_doc.py`` checks, without simulating, that the committed blocks
and the catalogue's claims agree.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

from flowstate.catalogue import claims as claims_mod
from flowstate.errors import FlowstateError
from flowstate.metric_paths import metric_label, metric_stats
from flowstate.output_files import RESULTS_FILE

CONTENTS = "contents"
BLOCK = re.compile(r"^<!-- generated: (?P<name>[a-z0-9._-]+) -->\n(?P<body>.*?)^<!-- end -->$", re.M | re.S)
ENTRY_HEADER = ("claim", "paper", "ours: mean (min-max over the runs)", "verdict")
CONTENTS_HEADER = ("entry", "what it reproduces", "claims holding", "runs")


class DocError(FlowstateError):
    """A results folder or a document the tables cannot be generated from."""


# --- reading ------------------------------------------------------------------------


def load_results(folder: str | Path) -> dict[str, dict[str, Any]]:
    """Every RESULTS/<id>/results.json of a full (not ``--short``) reproduction, by id."""
    folder = Path(folder)
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob(f"*/{RESULTS_FILE}")):
        document = json.loads(path.read_text(encoding="utf-8"))
        if document.get("short"):
            raise DocError(f"{path}: a --short reproduction; the reference tables are of the full entries")
        found[str(document["id"])] = document
    if not found:
        raise DocError(f"{folder}: no */{RESULTS_FILE} (run `flowstate reproduce --all --out {folder}`)")
    return found


def blocks(text: str) -> dict[str, str]:
    """The generated blocks of a document: name -> body (the text between the markers)."""
    found: dict[str, str] = {}
    for m in BLOCK.finditer(text):
        if m.group("name") in found:
            raise DocError(f"two blocks named {m.group('name')!r}")
        found[m.group("name")] = m.group("body")
    return found


def table_rows(body: str) -> list[list[str]]:
    """The data rows of the markdown table in ``body``, each as its unescaped cells
    (the header and its rule left out)."""
    lines = [line for line in body.splitlines() if line.startswith("|")]
    return [_cells(line) for line in lines[2:]]


def _cells(line: str) -> list[str]:
    inner = line.strip()[1:-1]
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", inner)]


# --- rendering ----------------------------------------------------------------------


def number(value: float) -> str:
    """A value as the tables show it: about three significant digits, no exponent
    above 0.01 (``305``, ``13.1``, ``1.45``, ``0.382``, ``0.0021``)."""
    size = abs(value)
    if size >= 100:
        return f"{value:.0f}"
    if size >= 10:
        return f"{value:.1f}"
    if size >= 1:
        return f"{value:.2f}"
    if size >= 0.01 or value == 0:
        return f"{value:.3f}"
    return f"{value:.2g}"


def paper_number(value: float) -> str:
    """A paper's value as the entry gives it (``0.37``, ``108``, ``1.299``)."""
    return f"{value:g}"


_UNIT = re.compile(r"^(?P<what>.*) \((?P<unit>ms|s|Mbit/s|bytes)\)$")


def with_unit(label: str, value: str) -> str:
    """``gcc RTT mean (ms)``, ``107`` -> ``gcc RTT mean 107 ms``; a label without a
    unit in brackets is followed by the value."""
    m = _UNIT.match(label)
    return f"{m.group('what')} {value} {m.group('unit')}" if m else f"{label} {value}"


def anchor(heading: str) -> str:
    """The fragment GitHub gives a heading: ``rfc8867-5.1`` -> ``rfc8867-51``."""
    return re.sub(r"[^a-z0-9 _-]", "", heading.strip().lower()).replace(" ", "-")


def _escape(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(_escape(c) for c in cells) + " |"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    lines = [_row(header), "|" + "---|" * len(header), *(_row(r) for r in rows)]
    return "\n".join(lines) + "\n"


_REF = claims_mod.PLACEHOLDER


def _refs(claim: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(placeholder text, point, metric) of each value the claim reads."""
    out = []
    for ref in (claim.get("values") or {}).keys():
        m = _REF.fullmatch(str(ref))
        if m:
            out.append((str(ref), m.group(1).strip(), m.group(2).strip()))
    return out


def _paper_cell(claim: Mapping[str, Any], labels: Mapping[tuple[str, str], str], several: bool) -> str:
    parts = []
    for row in claim.get("paper_values") or []:
        m = _REF.fullmatch(str(row.get("ref")))
        if not m or not isinstance(row.get("paper"), (int, float)):
            continue
        point, metric = m.group(1).strip(), m.group(2).strip()
        label = labels.get((point, metric))
        label = metric_label(metric) if not label or label == metric else label
        where = f"{point}: " if several else ""
        parts.append(where + with_unit(label, paper_number(float(row["paper"]))))
    return "; ".join(parts) if parts else "-"


def _ours_cell(claim: Mapping[str, Any], points: Mapping[str, Mapping[str, Any]], several: bool) -> str:
    parts = []
    for _, point, metric in _refs(claim):
        stats = metric_stats(points[point], metric) if point in points else None
        where = f"{point}: " if several else ""
        if stats is None:
            parts.append(f"{where}{metric_label(metric)} missing")
            continue
        parts.append(where + with_unit(metric_label(metric), number(stats["mean"])) + spread(stats["min"], stats["max"]))
    return "; ".join(parts) if parts else "-"


def spread(low: float, high: float) -> str:
    """`` (0.38-0.41)``, `` (-1.45 to -1.43)`` with a negative end, nothing when the
    runs agree."""
    if low == high:
        return ""
    joint = " to " if low < 0 or high < 0 else "-"
    return f" ({number(low)}{joint}{number(high)})"


def verdict(claim: Mapping[str, Any]) -> str:
    """``holds``, ``**fails**``, ``not evaluated``; with the paper-value flag of
    :func:`flowstate.catalogue.claims.status_text` (``holds, value off by +76 %``)."""
    text = claims_mod.status_text(claim)
    return f"**{text}**" if claim.get("status") == claims_mod.FAILS else text


def entry_table(results: Mapping[str, Any]) -> str:
    """One row per claim of an entry's results.json."""
    points = {str(p["name"]): p for p in results.get("points") or []}
    labels = {(str(c["point"]), str(c["metric"])): str(c.get("label") or "") for c in results.get("comparison") or []}
    rows = []
    for claim in results.get("claims") or []:
        several = len({point for _, point, _ in _refs(claim)}) > 1
        rows.append((
            str(claim["text"]),
            _paper_cell(claim, labels, several),
            _ours_cell(claim, points, several),
            verdict(claim),
        ))
    header = (*ENTRY_HEADER[:2], ENTRY_HEADER[2].replace("the runs", f"{results.get('runs')} runs"), ENTRY_HEADER[3])
    return _table(header, rows)


def holding(results: Mapping[str, Any]) -> tuple[int, int]:
    """(claims that hold, claims) of an entry's results.json."""
    claims = results.get("claims") or []
    return sum(1 for c in claims if c.get("status") == claims_mod.HOLDS), len(claims)


def contents_table(results: Mapping[str, Mapping[str, Any]], order: Sequence[str]) -> str:
    """One row per entry, in ``order`` (the document's): its id linked to its section,
    its title, its claims holding and its runs per point; a last row with the totals."""
    rows = []
    total_held = total = 0
    for exp_id in order:
        held, count = holding(results[exp_id])
        total_held, total = total_held + held, total + count
        mark = "all" if held == count else f"**{held}** of"
        rows.append((f"[{exp_id}](#{anchor(exp_id)})", str(results[exp_id].get("title", "")), f"{mark} {count}", str(results[exp_id].get("runs"))))
    rows.append(("all entries", f"{len(order)} entries", f"{total_held} of {total}", ""))
    return _table(CONTENTS_HEADER, rows)


# --- rewriting ----------------------------------------------------------------------


def regenerate(text: str, results: Mapping[str, Mapping[str, Any]]) -> str:
    """``text`` with every generated block rewritten from ``results``. Every block must
    name an entry of ``results`` (or be ``contents``) and every entry must have a block."""
    names = list(blocks(text))
    entries = [n for n in names if n != CONTENTS]
    missing_results = [n for n in entries if n not in results]
    if missing_results:
        raise DocError(f"no results for the blocks {', '.join(missing_results)} (is the folder a --all reproduction?)")
    missing_blocks = [i for i in results if i not in entries]
    if missing_blocks:
        raise DocError(
            f"no block for {', '.join(missing_blocks)}: add '<!-- generated: ID -->' and '<!-- end -->' "
            "to the entry's section"
        )

    def body(m: re.Match[str]) -> str:
        name = m.group("name")
        table = contents_table(results, entries) if name == CONTENTS else entry_table(results[name])
        return f"<!-- generated: {name} -->\n{table}<!-- end -->"

    return BLOCK.sub(body, text)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m flowstate.catalogue.reproduction_doc",
        description="Rewrite the generated tables of docs/REPRODUCTION.md from a "
        "`flowstate reproduce --all --out RESULTS` folder; the prose stays.",
    )
    parser.add_argument("results", metavar="RESULTS", help="the reproduction's output folder (RESULTS/<id>/results.json)")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", metavar="DOC", help="rewrite DOC's generated blocks in place")
    mode.add_argument("--check", metavar="DOC", help="exit status 1 when DOC's blocks differ from what RESULTS gives")
    args = parser.parse_args(argv)
    doc = Path(args.write or args.check)
    try:
        text = doc.read_text(encoding="utf-8")
        new = regenerate(text, load_results(args.results))
    except (DocError, OSError, ValueError, KeyError) as e:
        print(f"reproduction_doc: error: {e}", file=sys.stderr)
        return 2
    if args.check:
        if new != text:
            print(f"{doc}: the generated tables differ from {args.results}", file=sys.stderr)
            return 1
        return 0
    if new != text:
        doc.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
