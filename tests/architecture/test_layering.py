"""The package's floor plan: layers in one order, imports only downwards, no circle.

:data:`LAYERS` is the one place the order is written. Every ``import`` in every module of the package counts,
at module level, inside a function or under ``TYPE_CHECKING`` alike: a deferred import still ties two modules.
Deferring an import (for start-up time) is fine in any layer as long as it points down or sideways; a module
may import any module of its own layer or of a layer below it, never above, and no set of modules may import
each other in a circle (within one layer either).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# the source folders of the package (generators/ and oracles/ are installed as ptofuzz.generators / .oracles)
FOLDERS = {"ptofuzz": ROOT / "ptofuzz", "ptofuzz.generators": ROOT / "generators", "ptofuzz.oracles": ROOT / "oracles"}

#: bottom to top: a module may import from its own layer and the layers before it
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("ptofuzz", "ptofuzz.core", "ptofuzz.schemas")),  # ptofuzz itself: the package face (__version__)
    ("oracles", ("ptofuzz.oracles",)),
    ("bundle", ("ptofuzz.bundle",)),
    ("generators", ("ptofuzz.generators",)),
    ("instructions", ("ptofuzz.instructions",)),
    ("io", ("ptofuzz.io",)),
    ("backends", ("ptofuzz.backends",)),
    ("engine", ("ptofuzz.engine",)),
    ("report", ("ptofuzz.report",)),
    ("cli", ("ptofuzz.api", "ptofuzz.cli", "ptofuzz.entry", "ptofuzz.__main__", "ptofuzz.pytest_plugin")),
)


def layer_of(module: str) -> int:
    """Index in :data:`LAYERS` of the longest prefix naming ``module``."""
    best, length = -1, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > length and (p != "ptofuzz" or module == p):
                best, length = i, len(p)
    if best < 0:
        raise AssertionError(f"{module} lies in no layer of LAYERS: add its folder there")
    return best


def package_sources() -> dict[str, str]:
    """Every module of the package: dotted name -> source text."""
    out = {}
    for package, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            if package == "ptofuzz" and parts[0] in ("generators", "oracles"):  # a mutation run's link
                continue
            name = ".".join((package, *parts))
            out[name.removesuffix(".__init__")] = path.read_text()
    return out


def imports(module: str, source: str, known: set[str]) -> Iterator[tuple[int, str]]:
    """(line, imported ptofuzz module) for every import statement of ``source``, wherever it stands."""
    is_package = any(m.startswith(module + ".") for m in known)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "ptofuzz":
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against this module's package
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            if base.split(".")[0] != "ptofuzz":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield node.lineno, sub if sub in known else base


def graph(sources: Mapping[str, str]) -> dict[str, dict[str, int]]:
    """module -> {imported module: first line}."""
    known = set(sources)
    out: dict[str, dict[str, int]] = {}
    for module, source in sources.items():
        edges = out.setdefault(module, {})
        for line, target in imports(module, source, known):
            if target != module:
                edges.setdefault(target, line)
    return out


def upward(sources: Mapping[str, str]) -> list[str]:
    """Every import that points to a higher layer, as 'module:line imports target (layer a < layer b)'."""
    bad = []
    for module, edges in graph(sources).items():
        here = layer_of(module)
        for target, line in sorted(edges.items()):
            there = layer_of(target)
            if there > here:
                bad.append(f"{module}:{line} imports {target} ({LAYERS[here][0]} below {LAYERS[there][0]})")
    return bad


def circles(sources: Mapping[str, str]) -> list[list[str]]:
    """The strongly connected sets of two modules or more (Tarjan), each sorted."""
    g = {m: [t for t in e if t in sources] for m, e in graph(sources).items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return found


@pytest.fixture(scope="module")
def sources() -> dict[str, str]:
    return package_sources()


def test_every_module_lies_in_a_layer(sources):
    assert len(sources) > 40
    for module in sources:
        layer_of(module)


def test_no_import_runs_back_up(sources):
    assert upward(sources) == []


def test_no_modules_import_each_other_in_a_circle(sources):
    assert circles(sources) == []


UP_AT_MODULE_LEVEL = "from ptofuzz.engine import campaign\n"
UP_IN_A_FUNCTION = "def f():\n    from ptofuzz.report.case_folders import checked\n    return checked\n"


@pytest.mark.parametrize(("module", "planted", "target"), [
    ("ptofuzz.core.case", UP_AT_MODULE_LEVEL, "ptofuzz.engine.campaign"),
    ("ptofuzz.instructions.registry", UP_IN_A_FUNCTION, "ptofuzz.report.case_folders"),
    ("ptofuzz.oracles.ieee", "import ptofuzz.generators.values\n", "ptofuzz.generators.values"),
    ("ptofuzz.backends.target", "if True:\n    from ptofuzz import api\n", "ptofuzz.api"),
])
def test_a_planted_upward_import_fails(sources, module, planted, target):
    changed = {**sources, module: sources[module] + "\n" + planted}
    bad = upward(changed)
    assert len(bad) == 1 and bad[0].startswith(f"{module}:") and f"imports {target} " in bad[0], bad


def test_a_planted_circle_fails(sources):
    # sideways imports are allowed, but two modules of one layer may not import each other: core.case imports
    # core.errors, so errors importing case (even inside a function) closes a circle
    assert "ptofuzz.core.errors" in graph(sources)["ptofuzz.core.case"]
    changed = {**sources, "ptofuzz.core.errors": sources["ptofuzz.core.errors"] +
               "\ndef f():\n    from ptofuzz.core.case import Case\n    return Case\n"}
    assert upward(changed) == []
    assert circles(changed) == [["ptofuzz.core.case", "ptofuzz.core.errors"]]


def test_a_downward_import_in_a_function_is_allowed(sources):
    changed = {**sources, "ptofuzz.report.case_folders": sources["ptofuzz.report.case_folders"] +
               "\ndef g():\n    from ptofuzz.core import dtypes\n    return dtypes\n"}
    assert upward(changed) == upward(sources)


def test_relative_imports_resolve_to_the_module_they_name():
    known = {"ptofuzz.core", "ptofuzz.core.case", "ptofuzz.core.dtypes", "ptofuzz.engine", "ptofuzz.engine.x"}
    got = list(imports("ptofuzz.core.case", "from . import dtypes\nfrom ..engine import x\n", known))
    assert got == [(1, "ptofuzz.core.dtypes"), (2, "ptofuzz.engine.x")]
