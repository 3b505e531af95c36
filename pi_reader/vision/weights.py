"""Where the trained weights shipped with the reader are found, and how they are run.

The repository keeps them in its top-level ``models/`` folder, each beside its model card; a
wheel installs that folder as the ``pi_reader.models`` package (see ``pyproject.toml``), so an
installed appliance finds them there. A checkout, or an editable install of one, has no such
package: the weights are then read from ``models/`` beside the package.

The reader has no fallback without them (a classical reader read far fewer dice and invented
some): a missing file is :class:`WeightsMissing`, which ``run`` and ``doctor`` report.
"""

from __future__ import annotations

import threading
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

CHECKOUT_MODELS = Path(__file__).resolve().parents[2] / "models"
# Every weights file the reader ships: the dice detector and the face classifier.
SHIPPED = ("dice-detector.onnx", "face-classifier.onnx")


class WeightsMissing(FileNotFoundError):
    """A trained network the reader needs is not installed."""


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
    """The shipped weights files that cannot be found: for ``pi-reader doctor`` to report."""
    return [path for path in map(shipped, SHIPPED) if not path.is_file()]


class Network:
    """One ONNX network, loaded by OpenCV's dnn module once per thread that runs it: a
    ``cv2.dnn.Net`` keeps its buffers between calls and is not safe to share between threads
    (the appliance reads frames in its loop while the web app's setup page previews)."""

    def __init__(self, path: Path, what: str) -> None:
        if not path.is_file():
            raise WeightsMissing(f"the {what}'s weights are missing: {path} (reinstall pi-reader)")
        self.path = path
        self._local = threading.local()

    def forward(self, blob: np.ndarray) -> np.ndarray:
        net = getattr(self._local, "net", None)
        if net is None:
            net = cv2.dnn.readNetFromONNX(str(self.path))
            self._local.net = net
        net.setInput(blob)
        return np.asarray(net.forward())
