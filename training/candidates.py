"""Networks a training run made, read in place of the shipped ones.

A candidate is a folder holding any of the three networks under the file names training writes
(or a mode's own shipped names, as in ``models/``); a network it lacks is the one the mode ships,
so a retrained detector is read on its own, in each mode in place of that mode's detector.
``compare_networks.py`` ranks candidates by whole reads, and ``choose_thresholds.py --networks``
chooses a candidate's own thresholds: a network more or less sure of itself than the shipped
one is judged fairly only at the thresholds that suit it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pi_reader.vision import detector, faces, lean, weights
from pi_reader.vision.detector import Detector
from pi_reader.vision.faces import FaceClassifier
from pi_reader.vision.lean import LeanGauge
from pi_reader.vision.stages import Stages, mode_networks

# The files a candidate may hold: those training writes are among the shipped ones.
NETWORK_FILES = tuple(weights.SHIPPED)


@dataclass(frozen=True)
class Candidate:
    """A named folder of networks; what it lacks is shipped."""

    name: str
    folder: Path

    def own(self, model_file: str) -> Path | None:
        path = self.folder / model_file
        return path if path.is_file() else None

    def stages(self, *, calibrated: bool) -> Stages:
        """The stages of one mode: each network the candidate's own, else the mode's shipped."""
        files = mode_networks(calibrated=calibrated)
        classifier = FaceClassifier(self.mode_file(files.classifier, faces.MODEL_FILE))
        return Stages(
            find_dice=Detector(self.mode_file(files.detector, detector.MODEL_FILE)).detect,
            read_faces=classifier.read,
            gauge_lean=LeanGauge(self.mode_file(files.gauge, lean.MODEL_FILE)).gauge,
            read_top_faces=classifier.read_top_faces)

    def mode_file(self, shipped_name: str, model_file: str) -> Path:
        """The file a mode reads for one network: the candidate's under the mode's shipped name,
        else under the name training writes, else the shipped one."""
        return self.own(shipped_name) or self.own(model_file) or weights.shipped(shipped_name)

    def networks(self) -> dict[str, str]:
        """Each network file the candidate brings, with the start of its SHA-256, so that a
        result says which files were read; the others are "shipped"."""
        out = {}
        for model_file in NETWORK_FILES:
            path = self.own(model_file)
            out[model_file] = (hashlib.sha256(path.read_bytes()).hexdigest()[:12] if path
                               else "shipped")
        return out


def candidate(text: str) -> Candidate:
    """``NAME=FOLDER`` from the command line; raises ValueError saying what is wrong."""
    name, separator, folder = text.partition("=")
    if not separator or not name or not folder:
        raise ValueError(f"--candidate {text!r}: give NAME=FOLDER")
    return checked(Candidate(name, Path(folder)), f"--candidate {text!r}")


def networks_folder(folder: str) -> Candidate:
    """A ``--networks FOLDER`` candidate, named by its folder; raises ValueError."""
    return checked(Candidate(Path(folder).name, Path(folder)), f"--networks {folder}")


def checked(candidate: Candidate, option: str) -> Candidate:
    """``candidate`` when its folder holds a network, else ValueError naming ``option``."""
    if not candidate.folder.is_dir():
        raise ValueError(f"{option}: {candidate.folder} is no folder")
    if not any(candidate.own(model_file) for model_file in NETWORK_FILES):
        raise ValueError(f"{option}: {candidate.folder} holds none of "
                         f"{', '.join(NETWORK_FILES)}")
    return candidate
