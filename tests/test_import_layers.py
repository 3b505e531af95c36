"""Imports flow one way: cli -> web -> appliance -> {players, vision, devices, rules}; players ->
rules (the web app is one more way into the appliance, wired in by the cli).

Vision and devices may use the pure bottom layer ``pi_reader.rules``; nothing below the appliance
imports the appliance, the command line or the config schema, and the config schema imports no
device. Two checks: every module of a package imported in a fresh interpreter loads no package it
may not use, and no import statement anywhere in a package (a lazy one inside a function included)
names one.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import pi_reader

ROOT = Path(pi_reader.__file__).parent
# What each part of pi_reader may import besides itself. camera_spec is a pure value (the camera
# spec strings the config, the devices and the command line share); models holds only weights.
ALLOWED: dict[str, frozenset[str]] = {
    "rules": frozenset(),
    "camera_spec": frozenset(),
    "config": frozenset({"camera_spec"}),
    "players": frozenset({"rules"}),
    "vision": frozenset({"rules", "models"}),
    "devices": frozenset({"rules", "camera_spec"}),
    "appliance": frozenset({"players", "vision", "devices", "rules", "config", "camera_spec"}),
    "web": frozenset(
        {"appliance", "players", "vision", "devices", "rules", "config", "camera_spec"}
    ),
    "cli": frozenset(
        {"web", "appliance", "players", "vision", "devices", "rules", "config", "camera_spec"}
    ),
}

LOADED = """
import importlib, pkgutil, sys
package = importlib.import_module(sys.argv[1])
for info in pkgutil.walk_packages(getattr(package, "__path__", []), package.__name__ + "."):
    importlib.import_module(info.name)
print(" ".join(sorted(name for name in sys.modules if name.startswith("pi_reader."))))
"""


def part_of(module: str) -> str | None:
    """The part of pi_reader a dotted module name belongs to (``pi_reader.vision.locate``:
    ``vision``); None outside the parts (another package, or ``pi_reader.__version__``)."""
    names = module.split(".")
    if names[0] != "pi_reader" or len(names) < 2 or names[1] not in {*ALLOWED, "models"}:
        return None
    return names[1]


def test_every_part_is_listed() -> None:
    parts = {path.stem for path in ROOT.glob("*.py") if path.stem not in ("__init__", "__main__")}
    parts |= {path.parent.name for path in ROOT.glob("*/__init__.py")}
    assert parts - {"models"} == set(ALLOWED)


@pytest.mark.parametrize("part", sorted(ALLOWED))
def test_importing_a_part_loads_only_what_it_may_use(part: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", LOADED, f"pi_reader.{part}"],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = {part_of(name) for name in result.stdout.split()}
    assert loaded - {part} <= ALLOWED[part]


def imported_modules(path: Path) -> set[str]:
    """Every module an import statement in ``path`` names, at any depth of the file."""
    package = ".".join(("pi_reader", *path.relative_to(ROOT).parent.parts))
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("part", sorted(ALLOWED))
def test_no_import_statement_reaches_up(part: str) -> None:
    module = ROOT / f"{part}.py"
    files = [module] if module.exists() else sorted((ROOT / part).rglob("*.py"))
    wrong = sorted(
        f"{path.relative_to(ROOT)} imports {name}"
        for path in files
        for name in imported_modules(path)
        if part_of(name) not in (None, part, *ALLOWED[part])
    )
    assert wrong == []
