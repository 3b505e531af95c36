"""A candidate folder brings its own networks; the shipped ones stand in for the rest."""

from __future__ import annotations

import pytest

from pi_reader.vision import detector, faces, lean, stages, weights
from training import candidates


def test_a_candidate_brings_its_own_networks_and_the_shipped_ones_stand_in(tmp_path):
    (tmp_path / detector.MODEL_FILE).write_bytes(b"a detector")
    candidate = candidates.candidate(f"new={tmp_path}")
    networks = candidate.networks()
    assert networks[faces.MODEL_FILE] == networks[lean.MODEL_FILE] == "shipped"
    assert len(networks[detector.MODEL_FILE]) == 12
    assert candidate.own(faces.MODEL_FILE) is None


@pytest.mark.parametrize("calibrated", [True, False])
def test_a_retrained_network_stands_in_for_each_mode_s_own(tmp_path, calibrated):
    (tmp_path / faces.MODEL_FILE).write_bytes(b"a classifier")
    candidate = candidates.candidate(f"new={tmp_path}")
    files = stages.mode_networks(calibrated=calibrated)
    assert candidate.mode_file(files.classifier, faces.MODEL_FILE) == tmp_path / faces.MODEL_FILE
    assert (candidate.mode_file(files.detector, detector.MODEL_FILE)
            == weights.shipped(files.detector))


@pytest.mark.parametrize("calibrated", [True, False])
def test_the_shipped_folder_as_a_candidate_reads_each_mode_with_its_own_networks(calibrated):
    shipped = candidates.candidate(f"shipped={weights.shipped(faces.MODEL_FILE).parent}")
    files = stages.mode_networks(calibrated=calibrated)
    for name, kind in ((files.detector, detector.MODEL_FILE),
                       (files.classifier, faces.MODEL_FILE), (files.gauge, lean.MODEL_FILE)):
        assert shipped.mode_file(name, kind) == weights.shipped(name)


@pytest.mark.parametrize(("text", "says"), [
    ("models", "give NAME=FOLDER"),
    ("=models", "give NAME=FOLDER"),
    ("new=/no/such/folder", "is no folder"),
])
def test_a_malformed_candidate_is_refused_with_what_is_wrong(text, says):
    with pytest.raises(ValueError, match=says):
        candidates.candidate(text)


def test_a_networks_folder_is_named_by_its_folder(tmp_path):
    folder = tmp_path / "c9"
    folder.mkdir()
    (folder / faces.MODEL_FILE).write_bytes(b"a classifier")
    assert candidates.networks_folder(str(folder)).name == "c9"


@pytest.mark.parametrize("make", [False, True])
def test_a_networks_folder_missing_or_empty_is_refused(tmp_path, make):
    folder = tmp_path / "c9"
    if make:
        folder.mkdir()
    says = "holds none of" if make else "is no folder"
    with pytest.raises(ValueError, match=f"--networks {folder}: .*{says}"):
        candidates.networks_folder(str(folder))
