"""Where the trained weights shipped with the reader are found.

The repository keeps them in its top-level ``models/`` folder; a wheel installs that folder as
the ``pi_reader.models`` package (see ``pyproject.toml``), so an installed appliance finds them
there. A checkout, or an editable install of one, has no such package: the weights are then read
from ``models/`` beside the package.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

import cv2

CHECKOUT_MODELS = Path(__file__).resolve().parents[2] / "models"
# Every weights file the reader ships: the pip classifier and the generic-mode dice detector.
SHIPPED = ("pips_cnn.onnx", "locate-centernet.onnx")


def shipped(name: str) -> Path:
    """The path of the shipped weights file ``name``, installed or in the checkout.

    The path is returned even when the file is missing: callers say "weights missing" with it.
    """
    try:
        installed = Path(str(resources.files("pi_reader.models") / name))
    except ModuleNotFoundError:
        return CHECKOUT_MODELS / name
    return installed if installed.is_file() else CHECKOUT_MODELS / name


def missing() -> list[Path]:
    """The shipped weights files that cannot be found (the reader then falls back to its
    classical readers, which read fewer dice): for ``pi-reader doctor`` to report."""
    return [path for path in map(shipped, SHIPPED) if not path.is_file()]


@cache
def network(path: Path, what: str) -> cv2.dnn.Net:
    """The ONNX network at ``path``, loaded once per process by OpenCV's dnn module.

    ``what`` names the network in the error raised when its file is missing.
    """
    if not path.is_file():
        raise FileNotFoundError(f"{what} weights missing: {path}")
    return cv2.dnn.readNetFromONNX(str(path))
