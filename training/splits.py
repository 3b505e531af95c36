"""Which frames of which data set may be trained on, chosen on, or only reported: the split policy.

The policy (docs/reader-data.md says why):

- ``qwixx-rendered``, ``qwixx-rendered-more`` and ``qwixx-rendered-touching`` are test sets
  only: never trained on, never validated on, never used to choose anything.
- ``real-d6-overhead``, ``real-d6-gamedice`` and ``real-d6-fisheye`` are split by photo
  session into train, validation and test, so that no session is on two sides; the committed
  manifest ``training/splits/<set>.json`` (written by ``python training/make_splits.py``)
  holds image -> session and session -> split. Their test splits are for reporting only.
- A generated set (a recorded-set folder whose ``manifest.json`` has a ``split_rule``, as
  ``training/render_scenes.py`` writes) is split by scene: ``scene_split`` of the scene's
  index, the digits of its ``scenario`` (``a00012`` is scene 12).

Use ``split_of(set_name, image)`` for one frame of a shared set, ``frame_split(recorded,
frame)`` for any frame (shared or generated), and ``select(recorded, "validation")`` for the
frames of a split as a ``RecordedSet`` (calibration frames kept with their scenarios). Every
entry point fails loudly (``SplitError``) on a set it does not know, a set folder that is
missing or renamed, or a manifest that no longer matches the set's labels.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pi_reader.vision.recorded import LabelledFrame, RecordedSet, load_recorded_set

Split = Literal["train", "validation", "test"]
SPLITS: tuple[Split, ...] = ("train", "validation", "test")

TEST_ONLY_SETS = ("qwixx-rendered", "qwixx-rendered-more", "qwixx-rendered-touching")
SESSION_SPLIT_SETS = ("real-d6-overhead", "real-d6-gamedice", "real-d6-fisheye")
SHARED_SETS = TEST_ONLY_SETS + SESSION_SPLIT_SETS
MANIFEST_DIR = Path(__file__).resolve().parent / "splits"
GENERATED_MANIFEST = "manifest.json"  # in a generated set's folder, beside labels.jsonl

# Generated scenes: of every SCENE_CYCLE scenes in index order, the first TEST_SCENES are test
# and the next VALIDATION_SCENES validation (15 % each; scenes of one kind are spread evenly).
SCENE_CYCLE = 20
TEST_SCENES = 3
VALIDATION_SCENES = 3


class SplitError(ValueError):
    """A set, frame or manifest the split policy cannot place: never guess a split."""


def scene_split(index: int) -> Split:
    """The split of a generated scene from its index (see the module docstring)."""
    rest = index % SCENE_CYCLE
    if rest < TEST_SCENES:
        return "test"
    return "validation" if rest < TEST_SCENES + VALIDATION_SCENES else "train"


def split_of(set_name: str, image: str) -> Split:
    """The split of one image of a shared set (its path as in the set's labels.jsonl)."""
    if set_name in TEST_ONLY_SETS:
        return "test"
    manifest = load_manifest(set_name)
    session = manifest["images"].get(image)
    if session is None:
        raise SplitError(
            f"{image!r} is not in the split manifest of {set_name} ({manifest_path(set_name)}): "
            f"re-run python training/make_splits.py after changing the set"
        )
    split: Split = manifest["sessions"][session]["split"]  # validated by load_manifest
    return split


def held_out(set_name: str, image: str) -> bool:
    """Whether a shared set's image is kept out of training (in its validation or test split)."""
    return split_of(set_name, image) != "train"


def session_of(set_name: str, image: str) -> str:
    """The photo session of an image of a session-split set (test-only sets: the scenario)."""
    session = load_manifest(set_name)["images"].get(image)
    if session is None:
        raise SplitError(f"{image!r} is not in the split manifest of {set_name}")
    return str(session)


def frame_split(recorded: RecordedSet, frame: LabelledFrame) -> Split:
    """The split of a frame of any set: shared (by manifest) or generated (by scene)."""
    if is_generated(recorded.root):
        return _generated_frame_split(recorded, frame)
    if recorded.name not in SHARED_SETS:
        raise SplitError(
            f"{recorded.root}: not a set the split policy knows ({', '.join(SHARED_SETS)}), "
            f"and no {GENERATED_MANIFEST} with a split_rule beside its labels: a renamed "
            f"shared set or a generated set without its manifest"
        )
    return split_of(recorded.name, frame.image)


def select(recorded: RecordedSet, *splits: Split) -> RecordedSet:
    """The frames of ``recorded`` in the given splits (a calibration frame with its scenario).

    Checks the manifest against the set first, so a set whose images changed cannot be split
    by a stale manifest."""
    unknown = [s for s in splits if s not in SPLITS]
    if unknown or not splits:
        raise SplitError(f"splits must be among {SPLITS}, got {splits!r}")
    if not is_generated(recorded.root) and recorded.name in SESSION_SPLIT_SETS:
        check_manifest(recorded)
    kept = tuple(f for f in recorded.frames if frame_split(recorded, f) in splits)
    return replace(recorded, frames=kept)


def shared_set(datasets_dir: Path, name: str, *, check: bool = True) -> RecordedSet:
    """Load a shared set by name, failing loudly when its folder is missing or renamed, and
    (``check``) when its split manifest does not match it."""
    if name not in SHARED_SETS:
        raise SplitError(f"{name!r} is not a shared set the split policy knows: {SHARED_SETS}")
    folder = datasets_dir / name
    if not folder.is_dir():
        present = (
            sorted(p.name for p in datasets_dir.iterdir() if p.is_dir())
            if datasets_dir.is_dir()
            else []
        )
        raise SplitError(
            f"the shared set {name} is missing: no folder {folder} (found: "
            f"{', '.join(present) or 'nothing'}); a renamed set must be renamed in "
            f"training/splits.py and its manifest too"
        )
    recorded = load_recorded_set(folder)
    if check and name in SESSION_SPLIT_SETS:
        check_manifest(recorded)
    return recorded


def check_manifest(recorded: RecordedSet) -> None:
    """The manifest must list exactly the set's images, each in a session with a split."""
    manifest = load_manifest(recorded.name)
    listed = set(manifest["images"])
    labelled = {f.image for f in recorded.frames}
    if listed != labelled:
        extra, missing = sorted(listed - labelled), sorted(labelled - listed)
        raise SplitError(
            f"the split manifest {manifest_path(recorded.name)} does not match {recorded.root}: "
            f"{len(missing)} labelled images not in it (e.g. {missing[:2]}), {len(extra)} in it "
            f"not labelled (e.g. {extra[:2]}); re-run python training/make_splits.py"
        )


def manifest_path(set_name: str) -> Path:
    return MANIFEST_DIR / f"{set_name}.json"


@cache
def load_manifest(set_name: str) -> dict[str, Any]:
    """A session-split set's manifest: ``images`` (image -> session) and ``sessions``
    (session -> {"split": ...}), validated so that every image's session has one split."""
    if set_name not in SESSION_SPLIT_SETS:
        raise SplitError(
            f"{set_name!r} has no split manifest (session-split sets: {SESSION_SPLIT_SETS})"
        )
    path = manifest_path(set_name)
    try:
        manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SplitError(f"no split manifest {path}: run python training/make_splits.py") from None
    except json.JSONDecodeError as error:
        raise SplitError(f"{path}: not valid JSON ({error.msg})") from None
    sessions, images = manifest.get("sessions"), manifest.get("images")
    if not isinstance(sessions, dict) or not isinstance(images, dict):
        raise SplitError(f"{path}: needs 'sessions' and 'images' objects")
    for session, entry in sessions.items():
        if not isinstance(entry, dict) or entry.get("split") not in SPLITS:
            raise SplitError(f"{path}: session {session!r} must have a split among {SPLITS}")
    orphans = sorted({s for s in images.values() if s not in sessions})
    if orphans:
        raise SplitError(f"{path}: images in sessions with no split: {orphans[:3]}")
    return manifest


def is_generated(root: Path) -> bool:
    """A generated set: its folder holds the generator's manifest with a split rule."""
    path = root / GENERATED_MANIFEST
    if not path.is_file():
        return False
    try:
        return "split_rule" in json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise SplitError(f"{path}: not valid JSON ({error.msg})") from None


def _generated_frame_split(recorded: RecordedSet, frame: LabelledFrame) -> Split:
    digits = re.search(r"\d+", frame.scenario or "")
    if digits is None:
        raise SplitError(
            f"{recorded.root}: frame {frame.image!r} has no scene index in its scenario "
            f"({frame.scenario!r}); a generated frame must name its scene, e.g. a00012"
        )
    split = scene_split(int(digits.group()))
    conditions = frame.extra.get("conditions")
    written = conditions.get("split") if isinstance(conditions, dict) else None
    if written is not None and written != split:
        raise SplitError(
            f"{recorded.root}: frame {frame.image!r} says split {written!r} but scene "
            f"{digits.group()} is {split!r} by training/splits.py: the generator and the "
            f"policy disagree"
        )
    return split
