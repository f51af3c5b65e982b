"""No import cycles inside the flowstate package: the graph of which module imports which
(read with ``ast``, every import statement, also those inside functions) is acyclic."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Optional

import flowstate

PACKAGE = Path(flowstate.__file__).parent


def _module_names(root: Path) -> dict[str, Path]:
    """Module name -> file for every module of the package at ``root`` (``__init__.py``
    is the package's own name; extension modules count by their stub or binary)."""
    names: dict[str, Path] = {}
    for path in root.rglob("*"):
        if path.suffix not in (".py", ".pyi", ".so") or "__pycache__" in path.parts:
            continue
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        parts[-1] = parts[-1].split(".")[0]  # _native.abi3.so -> _native
        if parts[-1] == "__init__":
            parts.pop()
        names.setdefault(".".join(parts), path)
    return names


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports. ``from a.b import c`` is an edge to
    ``a.b.c`` when that is a module, else to ``a.b``; relative imports are resolved. The
    parent packages Python imports on the way are not edges (they are not a choice of
    the importing module)."""
    modules = _module_names(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges: set[str] = set()
        if path.suffix == ".py":
            is_package = path.name == "__init__.py"
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                if isinstance(node, ast.Import):
                    edges.update(a.name for a in node.names if a.name in modules)
                elif isinstance(node, ast.ImportFrom):
                    base = node.module or ""
                    if node.level:
                        anchor = name.split(".") if is_package else name.split(".")[:-1]
                        anchor = anchor[: len(anchor) - (node.level - 1)]
                        base = ".".join([*anchor, base] if base else anchor)
                    for alias in node.names:
                        target = f"{base}.{alias.name}"
                        if target in modules:
                            edges.add(target)
                        elif base in modules:
                            edges.add(base)
        edges.discard(name)
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> Optional[list[str]]:
    """One cycle of ``graph`` as a path ``[a, b, ..., a]``, or None if it is acyclic."""
    WHITE, GREY, BLACK = 0, 1, 2
    color = dict.fromkeys(graph, WHITE)
    stack: list[str] = []

    def visit(node: str) -> Optional[list[str]]:
        color[node] = GREY
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if color.get(nxt, BLACK) == GREY:
                return stack[stack.index(nxt) :] + [nxt]
            if color.get(nxt) == WHITE:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        color[node] = BLACK
        return None

    for start in sorted(graph):
        if color[start] == WHITE:
            found = visit(start)
            if found:
                return found
    return None


def test_the_package_has_no_import_cycle():
    graph = import_graph(PACKAGE)
    assert "flowstate.cli.main" in graph and "flowstate.sweep.run" in graph  # the walk saw the subpackages
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_a_cycle_through_a_lazy_import_is_found(tmp_path):
    # The shape of the old cli.py <-> sweep_command.py cycle: one side imports the other
    # inside a function.
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "cli.py").write_text("from pkg.sub import command\n\ndef out_dir(text):\n    return text\n")
    (pkg / "sub" / "command.py").write_text("def add_parser(sub):\n    from pkg.cli import out_dir\n")
    (pkg / "other.py").write_text("from . import cli\n")
    graph = import_graph(pkg)
    assert graph["pkg.other"] == {"pkg.cli"}  # a relative import, resolved
    assert find_cycle(graph) == ["pkg.cli", "pkg.sub.command", "pkg.cli"]


def test_output_file_names_are_defined_once():
    # Every name of a file flowstate writes is a constant of flowstate.output_files; no
    # other module spells one (prose in docstrings and help texts may mention them).
    from flowstate import output_files

    names = {v for k, v in vars(output_files).items() if k.isupper() and isinstance(v, str) and "." in v}
    assert {"summary.json", "timeseries.csv", "results.json", "report.html", "sweep.json"} <= names
    spelled = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "output_files.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in names:
                spelled.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value!r}")
    assert not spelled, "\n".join(spelled)
