"""The two maps of the tree agree with it: README.md's "Where things are" table and
docs/ARCHITECTURE.md's "Layout" block name only paths that exist, and each names every
crate, every Python subpackage and every top-level folder (README also every component
folder of flowstate-core); README's quick-start commands name scripts that exist;
tools/README.md has one line for every tool in tools/ and for nothing else."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# ARCHITECTURE's layout block: a path in the left column, its description from this column.
DESCRIPTION_COLUMN = 27
# A folder of flowstate-core's src/ that holds no component a reader looks for.
CORE_SUPPORT_FOLDERS = {"testing"}  # closed-loop test support, built only for tests


def section(text: str, heading: str) -> str:
    """The text under the markdown heading ``heading`` up to the next heading of its level."""
    level = heading.split(" ")[0]
    start = text.index(heading + "\n") + len(heading) + 1
    end = re.search(rf"^{level} ", text[start:], re.M)
    return text[start:] if end is None else text[start:start + end.start()]


def readme_paths() -> set[str]:
    """Every path README's "Where things are" table names (backticked, with a slash)."""
    table = section((ROOT / "README.md").read_text(encoding="utf-8"), "## Where things are")
    return {p for p in re.findall(r"`([^`\s]+)`", table) if "/" in p}


def layout_paths(text: str) -> set[str]:
    """Every path in the left column of ARCHITECTURE's layout block; an indented name is
    under the last folder (a path ending in /) less indented than it."""
    block = section(text, "## Layout")
    block = block[block.index("```\n") + 4:block.rindex("```")]
    paths, folders = set(), []  # folders: (indent, path) of the enclosing folders
    for line in block.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        if not line.strip() or indent >= DESCRIPTION_COLUMN:
            continue  # a description's continuation
        name = line.split()[0]
        while folders and folders[-1][0] >= indent:
            folders.pop()
        path = (folders[-1][1] if folders else "") + name
        paths.add(path)
        if path.endswith("/"):
            folders.append((indent, path))
    return paths


def architecture_paths() -> set[str]:
    return layout_paths((ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8"))


def tracked() -> list[str]:
    return subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()


def top_level_folders() -> set[str]:
    return {name.split("/")[0] for name in tracked() if "/" in name}


def crates() -> set[str]:
    return {name.split("/")[1] for name in tracked() if re.match(r"crates/[^/]+/Cargo\.toml$", name)}


def python_subpackages() -> set[str]:
    return {name.split("/")[2] for name in tracked() if re.match(r"python/flowstate/[^/]+/__init__\.py$", name)}


def core_components() -> set[str]:
    src = ROOT / "crates" / "flowstate-core" / "src"
    return {p.name for p in src.iterdir() if p.is_dir()} - CORE_SUPPORT_FOLDERS


def missing(paths: set[str]) -> list[str]:
    return sorted(p for p in paths if not (ROOT / p).exists() or (p.endswith("/") and not (ROOT / p).is_dir()))


def names(paths: set[str], prefix: str) -> bool:
    return any(p.startswith(prefix) for p in paths)


def test_every_path_readme_names_exists():
    paths = readme_paths()
    assert len(paths) > 20
    assert not missing(paths), f"README.md's 'Where things are' names paths that do not exist: {missing(paths)}"


def test_every_path_architecture_names_exists():
    paths = architecture_paths()
    assert len(paths) > 20
    assert not missing(paths), f"docs/ARCHITECTURE.md's layout names paths that do not exist: {missing(paths)}"


def test_both_maps_name_every_crate_subpackage_and_top_level_folder():
    expected = ([f"crates/{c}/" for c in sorted(crates())]
                + [f"python/flowstate/{s}/" for s in sorted(python_subpackages())]
                + [f"{d}/" for d in sorted(top_level_folders())])
    assert "crates/flowstate-core/" in expected and "python/flowstate/cli/" in expected and "tools/" in expected
    for doc, paths in (("README.md", readme_paths()), ("docs/ARCHITECTURE.md", architecture_paths())):
        absent = [e for e in expected if not names(paths, e)]
        assert not absent, f"{doc} does not name {absent}"


def test_readme_names_every_component_of_the_core():
    paths = readme_paths()
    components = core_components()
    assert {"gcc", "nada", "scream", "fec", "window", "endpoint"} <= components
    absent = sorted(c for c in components if not names(paths, f"crates/flowstate-core/src/{c}/"))
    assert not absent, f"README.md's 'Where things are' does not name flowstate-core's {absent}"


def test_the_quick_start_commands_name_existing_scripts():
    quick = section((ROOT / "README.md").read_text(encoding="utf-8"), "## Quick start")
    commands = re.findall(r"^bash (\S+)", quick, re.M)
    assert commands == ["scripts/main.sh", "scripts/test.sh"]
    assert not missing(set(commands))


def test_tools_readme_has_one_line_per_tool():
    text = (ROOT / "tools" / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([^`]+)` \|", text, re.M)
    tools = sorted(p.name for p in (ROOT / "tools").iterdir() if p.suffix == ".py")
    assert len(listed) == len(set(listed)), listed
    assert sorted(listed) == tools, f"tools/README.md lists {sorted(listed)}, tools/ holds {tools}"


def test_the_layout_reader_nests_by_indentation():
    text = """## Layout

```
crates/
  one/                     a crate
    src/a.rs               a file
                           continued
  two/                     another
top.txt                    a file at the top
```
"""
    assert layout_paths(text) == {"crates/", "crates/one/", "crates/one/src/a.rs", "crates/two/", "top.txt"}
