"""Where the trained weights shipped with the reader are found, and how they are run.

The repository keeps them in its top-level ``models/`` folder, each beside its model card; a
wheel installs that folder as the ``pi_reader.models`` package (see ``pyproject.toml``), so an
installed appliance finds them there. A checkout, or an editable install of one, has no such
package: the weights are then read from ``models/`` beside the package.

They run on ONNX Runtime, which gives the same answers as OpenCV's dnn module (within 1e-6)
in less than half the time for the face classifier and 0.6 of it for the detector on one core
(``python benchmarks/bench_targets.py`` measures the whole read).

The reader has no fallback without them (a classical reader read far fewer dice and invented
some): a missing file is :class:`WeightsMissing`, a file that is no network it can run
:class:`WeightsUnreadable`; ``run`` and ``doctor`` report them.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import cv2
import numpy as np
import onnxruntime

CHECKOUT_MODELS = Path(__file__).resolve().parents[2] / "models"
# Every weights file the reader ships, and what it is called in messages. Each mode reads with
# its own detector (stages.CALIBRATED_NETWORKS, stages.GENERIC_NETWORKS).
SHIPPED = {"dice-detector.onnx": "dice detector",
           "dice-detector-generic.onnx": "generic mode's dice detector",
           "face-classifier.onnx": "face classifier",
           "lean-gauge.onnx": "lean gauge"}


class WeightsMissing(FileNotFoundError):
    """A trained network the reader needs is not installed."""


class WeightsUnreadable(OSError):
    """A trained network's file is there but holds no network ONNX Runtime can run."""


def shipped(name: str) -> Path:
    """The path of the shipped weights file ``name``, installed or in the checkout.

    The path is returned even when the file is missing: callers say "weights missing" with it.
    """
    try:
        installed = Path(str(resources.files("pi_reader.models") / name))
    except ModuleNotFoundError:
        return CHECKOUT_MODELS / name
    return installed if installed.is_file() else CHECKOUT_MODELS / name


def called(path: Path, kind_file: str) -> str:
    """What the weights at ``path`` are called in messages: a shipped file's own name, else the
    name of its kind's file ``kind_file`` (a retrained network read in place of it)."""
    return SHIPPED.get(path.name, SHIPPED[kind_file])


def missing() -> list[Path]:
    """The shipped weights files that cannot be found: for ``pi-reader doctor`` to report."""
    return [path for path in map(shipped, SHIPPED) if not path.is_file()]


class Network:
    """One ONNX network, loaded once. A session's ``run`` may be called from several threads
    at once (the appliance reads frames in its loop while the web app's setup page previews).
    It uses as many threads as OpenCV does, at most the cores the process may run on, and its
    threads sleep between reads instead of spinning (an idle appliance stays idle)."""

    def __init__(self, path: Path, what: str) -> None:
        if not path.is_file():
            raise WeightsMissing(f"the {what}'s weights are missing: {path} (reinstall pi-reader)")
        self.path = path
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = min(cv2.getNumThreads(), _usable_cores())
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3  # errors only: its warnings are not the user's
        try:
            self._session = onnxruntime.InferenceSession(
                str(path), options, providers=["CPUExecutionProvider"])
        except Exception as error:  # ONNX Runtime raises its own untyped errors for bad files
            raise WeightsUnreadable(
                f"the {what}'s weights cannot be loaded: {path} ({error}; reinstall pi-reader)"
            ) from error
        self._input = self._session.get_inputs()[0].name

    def forward(self, blob: np.ndarray) -> np.ndarray:
        """The network's first output for ``blob`` (float32, NCHW)."""
        return np.asarray(self._session.run(None, {self._input: blob})[0])


def _usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1
