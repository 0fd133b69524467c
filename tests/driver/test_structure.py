"""The package's shape: no import cycles, and an entry module that imports almost nothing.

The entry point's first imports are what runs before croktilec's signal handler is
installed, so they stay light (see test_interrupts.py for what that buys).
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Set

import croktile_driver

from .util import driver_env

PACKAGE = Path(croktile_driver.__file__).resolve().parent


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: Set[str]) -> Set[str]:
    """Every module of the package that ``path`` imports, at its top or inside a function."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(max(node.level - 1, 0)):
                base = base.rpartition(".")[0]
            target = (base + ("." + node.module if node.module else "")) if node.level else node.module
            targets = [target] + [f"{target}.{a.name}" for a in node.names]
        else:
            continue
        found.update(t for t in targets if t in modules and t != name)
    return found


def import_graph() -> Dict[str, Set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, modules) for p in paths}


def cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module."""
    order, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v: str) -> None:
        order[v] = low[v] = len(order)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in order:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], order[w])
        if low[v] == order[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in order:
            visit(v)
    return found


def test_the_graph_sees_imports_inside_functions():
    graph = import_graph()
    assert "croktile_driver.driver" in graph["croktile_driver.cli"], "cli imports driver (lazily)"
    assert "croktile_driver.inputs" in graph["croktile_driver.driver"]


def test_cycles_are_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_module_imports_one_that_imports_it_back():
    """cli -> driver, never back: what both need (reading inputs, -D/-U) is in inputs.py."""
    graph = import_graph()
    assert "croktile_driver.cli" not in graph["croktile_driver.driver"]
    assert cycles(graph) == []


def test_the_entry_module_imports_almost_nothing(tmp_path):
    code = ("import sys; import croktile_driver.cli; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('croktile_driver'))))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=str(tmp_path), env=driver_env(),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["croktile_driver", "croktile_driver.cli", "croktile_driver.interrupts"]
