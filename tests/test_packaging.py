"""The installed package carries everything the appliance needs, the trained weights included.

``pyproject.toml`` lists the packages by hand because one of them, ``pi_reader.models``, is the
repository's top-level ``models/`` folder; these tests keep that list and the tree in step, and
(slow) build the wheel to see the weights inside it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from pi_reader.vision import weights

REPO = Path(__file__).resolve().parents[1]
WEIGHTS = ("dice-detector.onnx", "face-classifier.onnx", "lean-gauge.onnx")


def listed_packages() -> set[str]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return set(config["tool"]["setuptools"]["packages"])


def test_every_package_in_the_tree_is_listed_for_the_wheel():
    in_tree = {
        ".".join(init.parent.relative_to(REPO).parts)
        for init in (REPO / "pi_reader").rglob("__init__.py")
    }
    assert listed_packages() == in_tree | {"pi_reader.models"}


@pytest.mark.parametrize("name", WEIGHTS)
def test_the_shipped_weights_are_found_from_a_checkout(name):
    path = weights.shipped(name)
    assert path.is_file()
    assert path.parent == REPO / "models"


def test_missing_weights_still_get_a_path_to_name_in_the_error():
    assert weights.shipped("no-such-model.onnx") == REPO / "models" / "no-such-model.onnx"


@pytest.mark.slow
def test_the_wheel_carries_the_weights(tmp_path):
    # Built from a copy, so the build leaves nothing in the checkout.
    source = tmp_path / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "tests"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path),
         str(source)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("pi_reader-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {f"pi_reader/models/{name}" for name in WEIGHTS} <= names
    assert "pi_reader/vision/reader.py" in names
