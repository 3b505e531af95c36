"""Each mode reads with its own shipped networks; a network both read is loaded once."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pi_reader.vision import detector, faces, lean, stages, weights
from pi_reader.vision.reader import read_roll


def test_every_mode_names_shipped_files_that_are_installed_with_a_card_for_their_mode():
    for calibrated in (True, False):
        files = stages.mode_networks(calibrated=calibrated)
        for name in (files.detector, files.classifier, files.gauge):
            assert name in weights.SHIPPED
            path = weights.shipped(name)
            assert path.is_file()
            card = json.loads(path.with_suffix(".json").read_text())
            assert card["model"] == name
            assert card.get("mode", "calibrated" if calibrated else "generic") == (
                "calibrated" if calibrated else "generic")


def test_the_modes_read_with_their_own_detector_and_share_the_classifier_and_gauge():
    calibrated = stages.mode_networks(calibrated=True)
    generic = stages.mode_networks(calibrated=False)
    assert (calibrated.detector, generic.detector) == (detector.MODEL_FILE,
                                                       detector.GENERIC_MODEL_FILE)
    assert calibrated.classifier == generic.classifier == faces.MODEL_FILE
    assert calibrated.gauge == generic.gauge == lean.MODEL_FILE


def test_each_mode_loads_its_files_once_and_the_shared_ones_once_for_both(monkeypatch):
    stages.forget_loaded_networks()
    loaded: list[str] = []
    shipped = weights.shipped
    monkeypatch.setattr(weights, "shipped", lambda name: loaded.append(name) or shipped(name))
    for _ in range(2):
        stages.default_stages(calibrated=True)
        stages.default_stages(calibrated=False)
    assert sorted(loaded) == sorted(set(weights.SHIPPED))
    stages.forget_loaded_networks()


@pytest.mark.parametrize("broken", [detector.MODEL_FILE, detector.GENERIC_MODEL_FILE])
def test_a_read_without_a_calibration_or_with_one_reaches_for_its_own_mode_s_file(
        broken_weights, broken):
    path = broken_weights(broken, b"not a network")
    calibrated = broken == detector.MODEL_FILE
    with pytest.raises(weights.WeightsUnreadable, match=weights.SHIPPED[broken]) as caught:
        stages.default_stages(calibrated=calibrated)
    assert str(path) in str(caught.value)
    # The other mode does not read that file, so it still loads.
    assert stages.default_stages(calibrated=not calibrated)
    stages.forget_loaded_networks()


def test_the_generic_reader_loads_only_the_generic_networks(broken_weights):
    broken_weights(detector.MODEL_FILE, b"not a network")
    frame = np.full((96, 128, 3), 120, np.uint8)
    assert read_roll(frame).dice == ()
    stages.forget_loaded_networks()
