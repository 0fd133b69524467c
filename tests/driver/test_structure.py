"""The package's shape: layers that import only downwards, no import cycles, small modules
and folders, targets reached only through their package interface, and an entry module
that imports almost nothing.

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

from helpers.croktilec import driver_env

PACKAGE = Path(croktile_driver.__file__).resolve().parent


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: Set[str]) -> Set[str]:
    """Every module of the package that ``path`` imports, at its top or inside a function."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in _run_time_nodes(ast.parse(path.read_text(encoding="utf-8"))):
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


def _run_time_nodes(tree: ast.AST):
    """Every node but those under ``if TYPE_CHECKING:`` (names for annotations, never
    imported when the program runs)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and isinstance(child.test, ast.Name) and child.test.id == "TYPE_CHECKING":
                todo.extend(child.orelse)
                continue
            todo.append(child)


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
    assert "croktile_driver.driver.jobs" in graph["croktile_driver.cli"], "cli imports driver (lazily)"
    assert "croktile_driver.driver.inputs" in graph["croktile_driver.driver.jobs"]


def test_cycles_are_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_module_imports_one_that_imports_it_back():
    """cli -> driver, never back: what both need (reading inputs, -D/-U) is in inputs.py."""
    graph = import_graph()
    assert "croktile_driver.cli" not in graph["croktile_driver.driver.jobs"]
    assert cycles(graph) == []


def test_the_entry_module_imports_almost_nothing(tmp_path):
    code = ("import sys; import croktile_driver.cli; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('croktile_driver'))))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=str(tmp_path), env=driver_env(),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["croktile_driver", "croktile_driver.cli", "croktile_driver.driver",
                                    "croktile_driver.driver.interrupts"]


# ---------------------------------------------------------------------------------------
# Layers: each folder imports only from the layers below it (its __init__ says which).
# ---------------------------------------------------------------------------------------

SHARED = {"diagnostics", "cstrings", "paths"}
MAY_IMPORT = {
    "ir": {"diagnostics"},
    "analysis": {"ir", "diagnostics", "cstrings"},
    "frontend": {"ir", "analysis", "diagnostics", "cstrings", "paths"},
    "codegen": {"ir", "analysis", "frontend"} | SHARED,
    "targets": {"ir", "analysis", "codegen", "frontend", "driver.toolchain", "driver.profiles",
                "driver.interrupts"} | SHARED,
    "compiler": {"frontend", "analysis", "driver.toolchain"} | SHARED,
    "visualize": {"ir", "frontend", "analysis", "codegen", "targets", "compiler", "driver"} | SHARED,
}


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_each_layer_imports_only_the_layers_below_it():
    graph = import_graph()
    wrong = []
    for module, imported in graph.items():
        allowed = MAY_IMPORT.get(layer_of(module))
        if allowed is None:
            continue
        for target in imported:
            rest = target.split(".", 1)[1] if "." in target else ""
            if layer_of(target) == layer_of(module) or not rest:
                continue
            if not any(rest == a or rest.startswith(a + ".") or a.startswith(rest + ".") for a in allowed):
                wrong.append(f"{module} imports {target}")
    assert wrong == []


def test_a_target_is_reached_only_through_its_package():
    """Outside ``targets/<t>/``, only ``croktile_driver.targets.<t>`` itself is imported."""
    graph = import_graph()
    wrong = []
    for module, imported in graph.items():
        for target in imported:
            parts = target.split(".")
            if parts[1:2] == ["targets"] and len(parts) > 3 and module.split(".")[:3] != parts[:3]:
                wrong.append(f"{module} imports {target}")
    assert wrong == []


def test_no_private_name_is_imported_across_packages():
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not node.level:
                continue
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            source = base + ("." + node.module if node.module else "")
            source_package = source if (PACKAGE.parent / source.replace(".", "/")).is_dir() else source.rpartition(".")[0]
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and alias.name != "_parsetab" and source_package != package:
                    wrong.append(f"{name} imports {source}.{alias.name}")
    assert wrong == []


def test_modules_and_folders_stay_small():
    """No module over 1,000 lines (the PLY grammar aside: its rules are its docstrings) and
    no folder with more than 15 modules, so that a folder's list of files reads as a table
    of contents."""
    long = [f"{p.relative_to(PACKAGE)}: {n}" for p in sorted(PACKAGE.rglob("*.py"))
            if p.name not in ("parser.py", "_parsetab.py")
            and (n := len(p.read_text(encoding="utf-8").splitlines())) > 1000]
    assert long == []
    crowded = [f"{d.relative_to(PACKAGE.parent)}: {n}" for d in [PACKAGE, *sorted(PACKAGE.rglob("*/"))]
               if d.is_dir() and (n := len([p for p in d.glob("*.py") if p.name != "_parsetab.py"])) > 15]
    assert crowded == []


def test_every_package_says_what_it_holds_and_may_import():
    missing = [str(p.relative_to(PACKAGE)) for p in sorted(PACKAGE.rglob("__init__.py"))
               if p.parent != PACKAGE and "May import" not in (ast.get_docstring(ast.parse(p.read_text())) or "")]
    assert missing == []
