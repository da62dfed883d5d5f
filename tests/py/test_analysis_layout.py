"""The analysis package's rooms (analysis/__init__.py): each sub-package imports only the ones below
it (io <- stats <- verdicts <- views <- commands, then cli), no module imports itself back through
another, each subcommand is one module of commands/ that cli.py lists, and every module is named in
its package's docstring. Read from the sources, so a misplaced import fails here, not at a user's
first run of the one command that takes that path."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = ROOT / "analysis"
LAYERS = ("io", "stats", "verdicts", "views", "commands")


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def imports(name: str, path: Path) -> set[str]:
    """The modules of the package `name` imports anywhere in it (a function's import too),
    absolute; `from PACKAGE import MODULE` names the module."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    known = modules()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "analysis"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "analysis":
                continue
            subs = {f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in known}
            found |= subs or {target}
    return found


def layer(name: str) -> int:
    """0 for io ... 4 for commands, 5 for the front door (cli, __main__), -1 for the package itself."""
    parts = name.split(".")
    if len(parts) == 1:
        return -1
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else len(LAYERS)


def test_every_module_is_in_a_room() -> None:
    loose = [n for n in modules() if n.count(".") == 1 and n.split(".")[1] not in LAYERS + ("cli", "__main__")]
    assert loose == [], "a module beside the rooms: put it in the one its role is"


@pytest.mark.parametrize("name", sorted(modules()))
def test_imports_go_down_the_layers(name: str) -> None:
    path = modules()[name]
    own = layer(name)
    for target in imports(name, path):
        if target == "analysis":
            continue
        assert layer(target) <= own, f"{name} imports {target}, a room above it"


def test_no_import_cycles() -> None:
    graph = {n: {t for t in imports(n, p) if t in modules() and t != n} for n, p in modules().items()}
    done: set[str] = set()

    def visit(n: str, stack: list[str]) -> None:
        if n in stack:
            raise AssertionError(" -> ".join(stack[stack.index(n):] + [n]))
        if n in done:
            return
        for t in sorted(graph[n]):
            if not n.startswith(t + "."):  # a module's own package is no cycle
                visit(t, stack + [n])
        done.add(n)

    for n in sorted(graph):
        visit(n, [])


def test_each_subcommand_is_one_module_cli_lists() -> None:
    from analysis import cli
    files = sorted(p.stem for p in (PACKAGE / "commands").glob("*.py") if p.stem not in ("__init__", "common"))
    assert sorted(cli.COMMANDS) == files
    for name, module in cli.commands().items():
        assert callable(module.add_parser) and callable(module.run), name
    sub = cli._parser(cli.commands())._subparsers._group_actions[0]
    assert list(sub.choices) == list(cli.COMMANDS)


def test_each_plot_module_draws_one_domain() -> None:
    """views/plots/: a module per domain, sharing base only: none imports another plot module."""
    for name, path in modules().items():
        if name.startswith("analysis.views.plots.") and not name.endswith(".base"):
            others = {t for t in imports(name, path) if t.startswith("analysis.views.plots.")} - {
                "analysis.views.plots.base"}
            assert others == set(), f"{name} imports {sorted(others)}"


def test_every_room_and_module_is_named_in_its_docstring() -> None:
    top = ast.get_docstring(ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))) or ""
    for room in LAYERS:
        assert re.search(rf"\b{room}/", top), f"analysis/__init__.py does not name {room}/"
        for package in [PACKAGE / room] + [p for p in (PACKAGE / room).iterdir() if (p / "__init__.py").exists()]:
            doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
            for module in package.glob("*.py"):
                # the subcommands are listed once, in cli.COMMANDS (a new one: its file and a name there)
                if module.stem != "__init__" and (room != "commands" or module.stem == "common"):
                    assert re.search(rf"\b{module.stem}\b", doc), f"{package.relative_to(ROOT)}: {module.stem}"


def test_the_analysis_never_imports_the_tools() -> None:
    for name, path in modules().items():
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import) tools\b", text, re.M), name


def test_the_placement_model_takes_whole_blocks_of_processes_only() -> None:
    """As --target-ci's rule (bench/measure/stoprule.c): the placements are balanced over whole blocks
    of 8 processes, so the model is fitted only to two or more whole blocks; 6 processes (part of a
    block) once left it one degree of freedom and an interval 30 times the t interval's (CI)."""
    import numpy as np
    import pandas as pd

    from analysis.verdicts.compare import placement_levels

    def frame(n: int) -> pd.DataFrame:
        p = np.arange(n)
        return pd.DataFrame({"process": p, "kernel_placement": p % 8, "code_placement_v": (p * 3) % 8,
                             "code_placement_b": np.full(n, -1)})

    for n in (3, 6, 8, 12, 20, 30):
        assert placement_levels(frame(n), np.arange(n)) is None, n
    for n in (16, 24, 32):
        levels = placement_levels(frame(n), np.arange(n))
        assert levels is not None and levels.shape == (n, 3)
