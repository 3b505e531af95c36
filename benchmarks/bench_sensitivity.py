"""How much each named constant of the reader matters: accuracy at half and at double its value.

Run: ``python benchmarks/bench_sensitivity.py [--constants MODULE.NAME ...] [--renders DIR]``
(all of ``CONSTANTS``: about an hour here; ``--constants`` picks some). Writes
``benchmarks/results/sensitivity.json`` (``--out``; a sweep of some constants goes beside the
whole one as ``sensitivity-NAME.json``, which the docs render the same way) and prints a table.

Validation data only (test splits are for reporting, never for choosing): the validation splits
of ``real-d6-overhead``, ``real-d6-gamedice`` and ``real-d6-fisheye`` (``training/splits.py``,
generic mode) and of every generated set under ``--renders`` / ``$PI_READER_RENDERS`` (default
/work/renders; its appliance scenes calibrated). A constant is overridden in its module, in
every reader module that imported the same name, and in the defaults of functions declared
``param=NAME``; caches are emptied before each run. A constant whose override changes no reading
is reported as such: not exercised by this data, or bound somewhere the override cannot reach.

``CONSTANTS`` is the list to sweep; remove a constant from it once it is measured from the
scene instead of fixed.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any

from pi_reader.vision.recorded import (
    RecordedSet,
    RecordedSetError,
    load_recorded_set,
    shared_sets_dir,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # training/splits.py
from benchmarks.bench_targets import (
    DEFAULT_RENDERS,
    RENDERS_ENV,
    Timings,
    generated_sets,
    percent,
    provenance,
    read_set,
)
from training.splits import SplitError, select, shared_set

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "benchmarks" / "results" / "sensitivity.json"
REAL_SETS = ("real-d6-overhead", "real-d6-gamedice", "real-d6-fisheye")
FACTORS = (0.5, 2.0)
# The reader's named constants that change a reading (module.NAME, scalars). Sizes of trained
# networks' inputs, file formats and odd-only kernel sizes are left out: they are not tunable.
CONSTANTS = (
    "finding.MIN_VALUE_CONFIDENCE", "finding.MIN_VIEW_AGREEMENT",
    "finding.GENERIC_MIN_VALUE_CONFIDENCE", "finding.GENERIC_MIN_VIEW_AGREEMENT",
    "reader.COCKED_SIDE", "reader.COCKED_LEAN_DEG", "reader.GENERIC_COCKED_LEAN_DEG",
    "reader.CLOSER_LOOK", "lean.PATCH_OF_BOX",
    "lean.SURE_FLAT_DEG", "reader.EDGE_CUT_SHARE",
    "detector.TARGET_SIDE_PX", "detector.FIRST_LOOK_PX",
    "detector.LARGEST_INPUT_PX", "detector.PEAK_THRESHOLD", "detector.GENERIC_PEAK_THRESHOLD",
    "detector.SAME_DIE", "detector.PART_OF_DIE", "finding.SEEN_TWICE",
    "faces.PATCH_OF_BOX", "faces.MIN_PATCH_SPREAD", "faces.DOUBT_CONFIDENCE",
    "faces.DOUBT_AGREEMENT", "faces.NO_DIE_SHARE", "faces.TOP_FACE_OF_PATCH",
    "faces.MOST_SUPERSAMPLING", "faces.LEAST_TOP_FACE_AREA",
    "colour.MAX_JOINT_LOSS", "colour._DIE_MIDDLE", "colour._TRAY_RADIUS", "colour._RIM_SHARE",
    "colour._LIT_SHARE", "colour._MAX_HUE_TURN_DEG", "colour._DARK_FRACTION",
    "colour._GENERIC_WHITE_CHROMA", "colour._GENERIC_MAX_HUE_ERROR_DEG",
    "calibration.MAX_NAMING_COST", "calibration.MIN_NAMING_GAP", "calibration.APART_OVERLAP",
    "calibration_fit.MOVED_CHROMA", "calibration_fit.MOVED_SHARE",
    "quality.DARK_LEVEL", "quality.DARK_PERCENTILE", "quality.CLIPPED", "quality.BLOWN_FRACTION",
    "quality.BLOWN_DICE_FRACTION", "quality.BLOWN_FRAME_FRACTION", "quality.NEWLY_CLIPPED_TRAY",
    "quality.FACE_MIDDLE", "quality.WASHED_OUT_SHARE", "quality.BLURRED_EDGE_SPREAD",
)  # fmt: skip
VISION = "pi_reader.vision"
_UNSET = object()
FIGURES = ("dice_right", "rolls_right", "silently_wrong_rolls", "refusal_rate", "phantoms",
           "missed", "misread_dice")


def vision_modules() -> list[ModuleType]:
    """Every reader module, imported (so that the overrides reach their bindings)."""
    folder = Path(inspect.getfile(importlib.import_module(VISION))).parent
    return [importlib.import_module(f"{VISION}.{p.stem}") for p in sorted(folder.glob("*.py"))
            if p.stem != "__init__"]


def default_bindings(module: ModuleType, name: str) -> Iterator[tuple[FunctionType, str]]:
    """(function, parameter) for each top-level function or method of ``module`` declared
    with a parameter defaulting to ``name``."""
    tree = ast.parse(inspect.getsource(module))
    for owner, node in _functions(tree):
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        pairs = list(zip(positional[len(positional) - len(arguments.defaults):],
                         arguments.defaults, strict=True))
        pairs += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults,
                                         strict=True) if d is not None]
        for argument, default in pairs:
            if isinstance(default, ast.Name) and default.id == name:
                holder = getattr(module, owner) if owner else module
                function = inspect.unwrap(inspect.getattr_static(holder, node.name))
                function = getattr(function, "__func__", function)  # static or class method
                if isinstance(function, FunctionType):
                    yield function, argument.arg


def _functions(tree: ast.Module) -> Iterator[tuple[str | None, ast.FunctionDef]]:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield None, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    yield node.name, item


@contextmanager
def overridden(constant: str, value: object) -> Iterator[int]:
    """``constant`` (``module.NAME``) set to ``value`` wherever it is bound; yields how many
    bindings were changed. Everything is put back afterwards."""
    module_name, name = constant.split(".")
    home = importlib.import_module(f"{VISION}.{module_name}")
    original = getattr(home, name)
    undo: list[Callable[[], None]] = []
    for module in vision_modules():
        if module.__dict__.get(name, _UNSET) is original:  # its home, or a module importing it
            undo.append(partial(setattr, module, name, original))
            setattr(module, name, value)
        for function, parameter in default_bindings(module, name):
            undo.append(_set_default(function, parameter, value))
    _clear_caches()
    try:
        yield len(undo)
    finally:
        for step in reversed(undo):
            step()
        _clear_caches()


def _set_default(function: FunctionType, parameter: str, value: object) -> Callable[[], None]:
    """Set one parameter's default; return the function that puts it back."""
    code = function.__code__
    names = code.co_varnames[: code.co_argcount]
    if parameter in names:
        defaults = list(function.__defaults__ or ())
        index = names.index(parameter) - (len(names) - len(defaults))
        before = defaults[index]
        defaults[index] = value
        function.__defaults__ = tuple(defaults)

        def undo() -> None:
            restored = list(function.__defaults__ or ())
            restored[index] = before
            function.__defaults__ = tuple(restored)

        return undo
    keywords = dict(function.__kwdefaults__ or {})
    before_kw = keywords[parameter]
    function.__kwdefaults__ = {**keywords, parameter: value}

    def undo_keyword() -> None:
        function.__kwdefaults__ = {**(function.__kwdefaults__ or {}), parameter: before_kw}

    return undo_keyword


def _clear_caches() -> None:
    for module in vision_modules():
        for item in vars(module).values():
            clear = getattr(item, "cache_clear", None)
            if callable(clear):
                clear()


def scaled(value: object, factor: float) -> object:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SystemExit(f"bench_sensitivity: {value!r} is not a number to halve or double")
    if isinstance(value, int):
        return max(1, round(value * factor))
    return value * factor


def read_sets(
    sets: list[tuple[str, RecordedSet, bool]],
) -> tuple[dict[str, dict[str, object]], list[tuple[object, ...]]]:
    """Each set read and scored (``bench_targets.read_set``), and what every reading said, to
    tell whether an override changed anything at all."""
    figures: dict[str, dict[str, object]] = {}
    seen: list[tuple[object, ...]] = []
    for label, recorded, calibrated in sets:
        summary = read_set(recorded, calibrated, Timings(), seen)
        figures[label] = {figure: summary[figure] for figure in FIGURES}
    return figures, seen


def validation_sets(datasets: Path, renders: Path) -> list[tuple[str, RecordedSet, bool]]:
    """The real sets' validation splits and those of the generated sets under ``renders`` that
    have validation rolls (a set rendered for training only has none, and no figure to give)."""
    sets = [(name, select(shared_set(datasets, name), "validation"), False) for name in REAL_SETS]
    for folder in generated_sets(renders):
        validation = select(load_recorded_set(folder), "validation")
        if any(True for _ in validation.rolls()):
            sets.append((f"generated:{folder.name}", validation, True))
    return sets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--constants", nargs="+", default=list(CONSTANTS), metavar="MODULE.NAME")
    parser.add_argument("--datasets", type=Path, default=shared_sets_dir(REPO))
    parser.add_argument("--renders", type=Path,
                        default=Path(os.environ.get(RENDERS_ENV, DEFAULT_RENDERS)))
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    unknown = [c for c in args.constants if c not in CONSTANTS]
    if unknown:
        parser.error(f"not in the list of constants: {', '.join(unknown)}")
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    try:
        sets = validation_sets(args.datasets, args.renders)
    except (SplitError, RecordedSetError) as error:
        parser.error(str(error))
    if not any(label.startswith("generated") for label, _, _ in sets):
        print(f"generated validation split: skipped, no generated set under {args.renders}")
    started = time.perf_counter()
    base, base_readings = read_sets(sets)
    rows = []
    for constant in args.constants:
        module_name, name = constant.split(".")
        value = getattr(importlib.import_module(f"{VISION}.{module_name}"), name)
        row: dict[str, object] = {"constant": constant, "value": value}
        for factor in FACTORS:
            new = scaled(value, factor)
            with overridden(constant, new) as bindings:
                figures, readings = read_sets(sets)
            row[f"x{factor:g}"] = {"value": new, "bindings": bindings,
                                   "changed_readings": sum(
                                       a != b for a, b in zip(readings, base_readings,
                                                              strict=True)),
                                   "sets": figures}
        rows.append(row)
        print(_row_text(row), flush=True)
    results = {
        "benchmark": "reader constants at half and double (validation splits only)",
        **provenance("benchmarks/bench_sensitivity.py", argv),
        "seconds": round(time.perf_counter() - started),
        "sets": {label: {"frames": sum(1 for _ in r.rolls()), "calibrated": c}
                 for label, r, c in sets},
        "baseline": base,
        "constants": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(f"written to {args.out}")
    return 0


def _row_text(row: dict[str, Any]) -> str:
    parts = [f"{row['constant']} = {row['value']}"]
    for factor in FACTORS:
        entry = row[f"x{factor:g}"]
        if not entry["changed_readings"]:
            parts.append(f"x{factor:g}: no reading changed")
            continue
        per_set = ", ".join(
            f"{label} {percent(f['dice_right'])} / {f['silently_wrong_rolls']} silent"
            for label, f in entry["sets"].items()
        )
        parts.append(f"x{factor:g} ({entry['changed_readings']} readings changed): {per_set}")
    return "; ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
