"""Every file git tracks reads as the state of the project, not as its history: no
leftover merge-conflict markers (one once hid in a doc), no references to tracker issue
numbers, no numbered rounds of work ("the ninth pass"), no links to paths outside the
repository (public URLs are fine), and every relative link of a markdown file leads to a
file of the tree (and to a heading of it, when it names one). History goes to CHANGELOG.md, which is exempt;
the write-ups of docs/investigations/ keep their dates and rounds, not issue numbers.

The patterns were chosen against the tree: each catches the forms that occurred, none
matches a legitimate use (CSS colours, a Chromium commit position, HyStart's rounds, a
Python "session"); the last test pins both sides."""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKERS = ("<<<<<<< ", ">>>>>>> ")
# This file: it names the patterns and tries them on examples.
SELF = "tests/test_repository_hygiene.py"
HISTORY = "CHANGELOG.md"
INVESTIGATIONS = "docs/investigations/"

# The space between two words, also across a line break and the next line's comment marker.
GAP = r"(?:[ \t]*\n[ \t]*(?:#|//[/!]?|\*|--)?[ \t]*|[ \t]+)"
ORDINALS = (
    "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|"
    "fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|\\d+(?:st|nd|rd|th)"
)
# An issue of the tracker: "issue 21", "Issues 21 and 23", "(issue", "issue21-...", "#21".
ISSUE = re.compile(
    rf"\bissues?(?:[_-]|{GAP})?#?\d+"
    r"|\(issue\b"
    r"|(?<![\w&#/-])#\d{1,4}\b(?![\w;\"'])",  # not a colour (#555;), an anchor, a 5-digit commit position
    re.IGNORECASE,
)
# A numbered round of work: "the ninth pass", "Fourteenth session", "session 12", "this session".
ROUND = re.compile(
    rf"\b(?:{ORDINALS})(?:-|{GAP})(?:pass|passes|session|sessions)\b"
    rf"|\b(?:pass|session){GAP}\d+\b(?![,.]\d)"  # not "would pass 1,000"
    rf"|\bthis{GAP}(?:pass|session)\b"
    rf"|\bwork{GAP}diary\b",
    re.IGNORECASE,
)
# A path outside the repository: the workspace's shared folder or its absolute paths.
OUTSIDE = re.compile(r"\.\./shared\b|(?<![\w.])/work/|(?<![\w.])/home/")
# A relative markdown link, to check that it stays inside the repository.
MD_LINK = re.compile(r"\]\(([^)\s#]+)")
# A markdown link's whole target (file, #heading or both).
MD_TARGET = re.compile(r"\]\(([^)\s]+)\)")


def tracked_text() -> dict[str, list[str]]:
    """Every tracked text file (path -> lines); binary and unreadable files are left out."""
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    out = {}
    for name in files:
        try:
            out[name] = (ROOT / name).read_text(encoding="utf-8").splitlines()
        except (UnicodeDecodeError, OSError):
            continue  # binary or unreadable: not text we write by hand
    return out


def escapes(name: str, target: str) -> bool:
    """Whether the relative link ``target`` in file ``name`` leads outside the repository."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("/"):
        return False  # a URL (or a site path), not a file of the tree
    here = (ROOT / name).parent
    return not (here / target).resolve().is_relative_to(ROOT.resolve())


def matched_lines(pattern: re.Pattern, lines: list[str]) -> list[int]:
    """The numbers of the lines on which a match of ``pattern`` starts (a match may run
    on into the next line: "the fourteenth" / "session")."""
    text = "\n".join(lines)
    return sorted({text.count("\n", 0, m.start()) + 1 for m in pattern.finditer(text)})


def hits(files: dict[str, list[str]]) -> dict[str, list[str]]:
    """Per rule, the ``path:line: text`` of every line that breaks it."""
    found: dict[str, list[str]] = {"issue": [], "round": [], "outside": []}
    for name, lines in files.items():
        if name in (SELF, HISTORY):
            continue

        def where(i: int) -> str:
            return f"{name}:{i}: {lines[i - 1].strip()[:120]}"

        found["issue"] += [where(i) for i in matched_lines(ISSUE, lines)]
        if not name.startswith(INVESTIGATIONS):
            found["round"] += [where(i) for i in matched_lines(ROUND, lines)]
        for i, line in enumerate(lines, 1):
            if OUTSIDE.search(line) or (name.endswith(".md") and any(escapes(name, t) for t in MD_LINK.findall(line))):
                found["outside"].append(where(i))
    return found


def heading_anchors(text: str) -> set[str]:
    """The anchors GitHub gives a markdown file's headings (lower case; what is not a
    letter, digit, space, hyphen or underscore dropped; spaces as hyphens; a repeated
    heading gets -1, -2, ...), and explicit ``<a id>`` / ``<a name>`` anchors."""
    anchors, seen, in_code = set(), Counter(), False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        heading = None if in_code else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
            anchors.add(slug if not seen[slug] else f"{slug}-{seen[slug]}")
            seen[slug] += 1
    return anchors | set(re.findall(r'<a (?:id|name)="([^"]+)"', text))


def broken_links(files: dict[str, list[str]]) -> list[str]:
    """``path: target`` of every relative link of a markdown file whose file does not
    exist, or whose #heading is not one of that file's headings."""
    broken = []
    for name, lines in files.items():
        if not name.endswith(".md"):
            continue
        for target in MD_TARGET.findall("\n".join(lines)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # a URL
            path, _, anchor = target.partition("#")
            file = (ROOT / name).parent / path if path else ROOT / name
            if not file.exists():
                broken.append(f"{name}: {target} (no such file)")
            elif anchor and file.suffix == ".md" and anchor not in heading_anchors(file.read_text(encoding="utf-8")):
                broken.append(f"{name}: {target} (no such heading)")
    return broken


def per_folder(lines: list[str]) -> str:
    """How many hits in each folder (docs/ and crates/ by file or crate)."""
    def folder(hit: str) -> str:
        parts = hit.split(":", 1)[0].split("/")
        return "/".join(parts[:2]) if parts[0] in ("docs", "crates") and len(parts) > 1 else parts[0]

    return ", ".join(f"{k} {n}" for k, n in sorted(Counter(map(folder, lines)).items()))


def test_no_conflict_markers_in_tracked_files():
    found = []
    for name, lines in tracked_text().items():
        found += [f"{name}:{i}" for i, line in enumerate(lines, 1) if line.startswith(MARKERS)]
    assert not found, f"merge-conflict markers at {found}"


def test_no_issue_numbers_rounds_of_work_or_outside_paths():
    found = hits(tracked_text())
    report = [
        f"{rule}: {len(lines)} lines ({per_folder(lines)})\n  " + "\n  ".join(lines[:40])
        for rule, lines in found.items()
        if lines
    ]
    assert not report, "history or outside paths in the tree (CHANGELOG.md is the place for history):\n" + "\n".join(
        report
    )


def test_relative_links_lead_to_files_and_headings_of_the_tree():
    broken = broken_links(tracked_text())
    assert not broken, "links that lead nowhere:\n" + "\n".join(broken)


def test_heading_anchors_follow_github():
    text = "# Layout\n## The `chromium-m156` preset: x0.6, today's\n```\n# not a heading\n```\n## Layout\n"
    assert heading_anchors(text) == {"layout", "the-chromium-m156-preset-x06-todays", "layout-1"}
    assert broken_links({"README.md": ["[a](docs/ARCHITECTURE.md#layout) [b](#nowhere) [c](no-such.md) [d](https://x.y/z)"]}) == [
        "README.md: #nowhere (no such heading)", "README.md: no-such.md (no such file)"]


def test_the_patterns_catch_what_occurred_and_nothing_legitimate():
    bad = {
        "issue": ["(issue 21, `chromium_fec`)", "Issue 21: the `nack_rtx` override", "issues 21 and 23",
                  "scripts/patches/issue21-trace-aimd.patch", "fixed in #21.", "(issue"],
        "round": ['docs/BENCHMARKS.md, "Ninth pass"', "(issue 21, fourteenth session)", "session 12",
                  "this session's figures", "the 12th pass", "since the fourteenth\n# session;"],
        "outside": ["`../shared/design/ARCHITECTURE.md`", "/work/baseline/hashes-c27d7b3.json", "[a](../../x.md)"],
    }
    fine = [
        'CAPACITY_COLOUR = "#222222"', "p.ref { color: #555; margin-top: 0; }", "Cr-Commit-Position #44709",
        "// First round sets delay_min = 100 ms", "one namespace, like one Python session",
        "a list that would pass 1,000 is cleared", "the train passes 20 ms", "see [the layout](#layout)",
        "RFC 8699 section 4", "https://github.com/x/y/issues", "[Scenarios](SCENARIOS.md)", "#[derive(Debug)]",
    ]
    for rule, lines in bad.items():
        for line in lines:
            found = hits({"docs/X.md": line.split("\n")})
            assert found[rule], (rule, line)
    for line in fine:
        assert hits({"docs/X.md": [line]}) == {"issue": [], "round": [], "outside": []}, line
    # A word at a line's end and a number on the next are not one phrase unless they are
    # one sentence: a table's row of issues and the next row's figure are apart.
    assert hits({"docs/X.md": ["| open issues |", "| 3 |"]})["issue"] == []
    # History has its places: CHANGELOG.md; docs/investigations/ keeps rounds, not issues.
    assert hits({HISTORY: ["issue 21, ninth pass"]}) == {"issue": [], "round": [], "outside": []}
    found = hits({INVESTIGATIONS + "x.md": ["the ninth pass (issue 21)"]})
    assert found["issue"] and not found["round"]
