"""The small trained classifier that counts pips on a normalized die patch.

It is trained by ``training/train_pips.py`` and shipped as ONNX under ``models/``; OpenCV's dnn
module runs it, so the appliance needs no deep-learning library. Class 0 means "no readable top
face" (tray, a die's edge, a blank square); classes 1..6 are the face values.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from pi_reader.vision import weights

MODEL_PATH = weights.shipped("pips_cnn.onnx")
INPUT_PX = 48
CLASS_COUNT = 7  # 0 = no readable face, then the values 1..6
# A first answer at least this sure is not checked against the patch's quarter turn: of the 929
# held-out dice, 782 were read that surely at once and the turned view changed none of their
# answers (label smoothing in training keeps the network under about 0.96).
SURE_ONE_VIEW = 0.9


def network_input(patch_bgr: np.ndarray) -> np.ndarray:
    """The patch as the network sees it: INPUT_PX square, float CHW, per-patch standardized.

    Standardizing each patch by its own mean colour and contrast removes most of the light's
    colour and the exposure before the network sees it.
    """
    small = cv2.resize(patch_bgr, (INPUT_PX, INPUT_PX), interpolation=cv2.INTER_AREA)
    data = small.astype(np.float32)
    data -= data.reshape(-1, 3).mean(axis=0)
    data /= max(float(data.std()), 4.0)
    return np.ascontiguousarray(data.transpose(2, 0, 1))


def model_available(path: Path = MODEL_PATH) -> bool:
    """Whether the trained weights are installed (the classical reader works without them)."""
    return path.is_file()


def class_probabilities(patch_bgr: np.ndarray, path: Path = MODEL_PATH) -> np.ndarray:
    """Softmax probabilities of the CLASS_COUNT classes for one normalized patch.

    Unless the network is at least SURE_ONE_VIEW sure at once, the patch is also shown turned by
    a quarter turn and the two answers averaged: a die face reads the same either way, and the
    average is steadier on faces the network finds hard. Most faces are read at once, which
    halves the classifier's time on them.
    """
    net = weights.network(path, "the pip classifier's")
    first = _softmax(net, network_input(patch_bgr))
    if first.max() >= SURE_ONE_VIEW:
        return first
    turned = _softmax(net, network_input(np.ascontiguousarray(np.rot90(patch_bgr))))
    return (first + turned) / 2.0


def _softmax(net: cv2.dnn.Net, data: np.ndarray) -> np.ndarray:
    net.setInput(data[None])
    logits = net.forward().reshape(CLASS_COUNT).astype(np.float64)
    exp = np.exp(logits - logits.max())
    return exp / exp.sum()
