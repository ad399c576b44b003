"""The package layout's rules, read from the source (no import is executed):

- no import circle between modules (function-level imports count too);
- no upward import between packages: every package sits on one layer of ``LAYERS`` and imports
  only packages of lower layers (or itself);
- ``memmaint.maintenance.core`` imports no stage;
- no module over about 600 lines;
- no test skips itself because a module of this project fails to import.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("maintenance", "clustering", "optimize", "datasets")
MAX_LINES = 620

M = "memmaint.maintenance"
#: Lower layers first; a package may import its own layer's package only if it is itself.
LAYERS: list[set[str]] = [
    {f"{M}.core"},
    {"memmaint.clustering", "memmaint.datasets", f"{M}.store", f"{M}.embed", f"{M}.plan"},
    {f"{M}.retrieve", f"{M}.apply", f"{M}.report"},
    {f"{M}.agents"},
    {f"{M}.job"},
    {f"{M}.evaluation", "memmaint.optimize", f"{M}.review"},
    {f"{M}.cli"},
]


def module_files() -> dict[str, Path]:
    out = {}
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out["memmaint." + ".".join(parts)] = path
    return out


MODULES = module_files()


def imports_of(name: str, path: Path) -> set[str]:
    """Every project module ``name`` imports, resolved to a module of ``MODULES``."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                       for a in node.names]
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph() -> nx.DiGraph:
    g = nx.DiGraph()
    for name, path in MODULES.items():
        g.add_node(name)
        for target in imports_of(name, path):
            # a package importing its own submodules (re-exports) is not a dependency cycle
            if target.startswith(name + "."):
                continue
            g.add_edge(name, target)
    return g


def package_of(module: str) -> str:
    if module == M:  # the namespace's own __init__ re-exports core records only
        return f"{M}.core"
    for layer in LAYERS:
        for pkg in sorted(layer, key=len, reverse=True):
            if module == pkg or module.startswith(pkg + "."):
                return pkg
    raise AssertionError(f"{module} is on no layer of tests/test_layout.py")


def layer_of(pkg: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if pkg in layer)


def test_every_module_is_on_a_layer():
    for name in MODULES:
        package_of(name)


def test_no_import_circle():
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph()) if len(c) > 1]
    assert not cycles, f"import circles: {cycles}"


def test_no_upward_or_sideways_import_between_packages():
    bad = []
    for a, b in graph().edges:
        pa, pb = package_of(a), package_of(b)
        if pa != pb and layer_of(pb) >= layer_of(pa):
            bad.append(f"{a} -> {b}")
    assert not bad, "imports that go up or sideways:\n" + "\n".join(sorted(bad))


def test_core_imports_no_stage():
    g = graph()
    core = [m for m in MODULES if package_of(m) == f"{M}.core"]
    for m in core:
        for target in g.successors(m):
            assert package_of(target) == f"{M}.core", f"{m} imports {target}"


def test_modules_stay_small():
    long = {name: n for name, path in MODULES.items()
            if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_no_test_importorskips_a_project_module():
    pattern = re.compile(r"importorskip\(\s*[\"']memmaint")
    offenders = [p.name for p in (ROOT / "tests").glob("*.py")
                 if p.name != Path(__file__).name and pattern.search(p.read_text())]
    assert not offenders, f"tests that would hide a broken import as a skip: {offenders}"


@pytest.mark.parametrize("source,expected", [
    ("from memmaint.maintenance.core import errors", {"memmaint.maintenance.core.errors"}),
    ("from memmaint.maintenance.core.errors import InputError",
     {"memmaint.maintenance.core.errors"}),
    ("def f():\n    import memmaint.clustering.pipeline", {"memmaint.clustering.pipeline"}),
])
def test_import_resolution(tmp_path, source, expected):
    """The checker itself sees module-level, aliased and function-level imports."""
    path = tmp_path / "x.py"
    path.write_text(source)
    assert imports_of("memmaint.maintenance.job.x", path) == expected


def test_the_checker_finds_a_circle():
    g = graph()
    g.add_edge(f"{M}.core.errors", f"{M}.job.run")
    assert any(len(c) > 1 for c in nx.strongly_connected_components(g))
