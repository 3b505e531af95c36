"""The recorded image set format: a folder of frames plus ``labels.jsonl``, one line per frame.

Each line is ``{"image": "s00/roll_003.jpg", "kind": "roll" | "calibration", "scenario": "s00",
"dice": [{"colour": "red" | ... | null, "value": 1..6 | null, "box": [x, y, w, h]}],
"removed": ["red"]}``. ``colour: null`` means the colour is not labelled (score values only) and
``value: null`` means the labellers could not tell (do not score it). ``scenario`` and
``removed`` are optional; any other keys (``conditions``, ``touching``, ``pips``) are kept as-is.

Faces no one can read: a die labelled ``"value": null, "unreadable": "why"`` (and, in rendered
sets, ``"rendered_value": 1..6``, what was rendered) shows a top face whose pips are not in the
pixels; a reader must decline its value, and a value read on it is a misread even when it
happens to equal ``rendered_value``. A frame with ``"expect_refusal": "why"`` is one no reader
can be trusted on (for example a scenario clipped white by its lamp): it must be refused.

A roll of a scenario with a calibration frame is an appliance roll: the dice in play (the six
less ``removed``) are all on the tray, so a frame that labels fewer has one out of view, which no
one can read either (``LabelledFrame.dice_in_play``).

Loading validates every line and names the file and line of the first mistake, because a silently
skipped label would make every accuracy figure computed from the set wrong.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pi_reader.vision.types import DIE_COLOURS, expected_colours

LABELS_FILE = "labels.jsonl"
FRAME_KINDS = ("roll", "calibration")
# Names the folder of the shared recorded sets for the tests and benchmarks, where it is not
# ``shared/datasets`` beside the checkout.
DATASETS_ENV = "PI_READER_DATASETS"


def shared_sets_dir(checkout: Path) -> Path:
    """The folder holding the shared recorded sets: ``$PI_READER_DATASETS``, else
    ``shared/datasets`` beside the ``checkout`` (where developer machines and CI keep them)."""
    configured = os.environ.get(DATASETS_ENV)
    return Path(configured) if configured else checkout.parent / "shared" / "datasets"


class RecordedSetError(ValueError):
    """A recorded set that cannot be used: missing folder or labels file, or a malformed line."""


@dataclass(frozen=True)
class LabelledDie:
    """One die as the labellers saw it. ``None`` colour or value means "not labelled";
    ``unreadable`` (why) marks a face no one can read, ``rendered_value`` what was rendered."""

    colour: str | None
    value: int | None
    box: tuple[float, float, float, float]
    unreadable: str | None = None
    rendered_value: int | None = None

    @property
    def centre(self) -> tuple[float, float]:
        x, y, w, h = self.box
        return (x + w / 2.0, y + h / 2.0)


@dataclass(frozen=True)
class LabelledFrame:
    """One line of ``labels.jsonl``, with the image path resolved against the set's folder."""

    image: str
    path: Path
    kind: str
    dice: tuple[LabelledDie, ...]
    scenario: str | None = None
    removed: tuple[str, ...] = ()
    extra: Mapping[str, object] = field(default_factory=dict)
    expect_refusal: str | None = None  # why a reader must refuse this frame, or None
    # How many dice the roll has, in view or not: an appliance roll's dice in play, else None.
    dice_in_play: int | None = None


@dataclass(frozen=True)
class RecordedSet:
    """A whole recorded set: its folder and its frames in file order."""

    root: Path
    frames: tuple[LabelledFrame, ...]

    @property
    def name(self) -> str:
        return self.root.name

    def rolls(self) -> Iterator[LabelledFrame]:
        return (f for f in self.frames if f.kind == "roll")

    def calibration_for(self, scenario: str | None) -> LabelledFrame | None:
        """The calibration frame of a scenario, or None when the set has none for it."""
        for frame in self.frames:
            if frame.kind == "calibration" and frame.scenario == scenario:
                return frame
        return None


def load_recorded_set(folder: str | Path) -> RecordedSet:
    """Load and validate ``folder/labels.jsonl``; raises RecordedSetError naming the bad line."""
    root = Path(folder)
    if not root.is_dir():
        raise RecordedSetError(
            f"{root}: not a folder (a recorded set is a folder with labels.jsonl)"
        )
    labels = root / LABELS_FILE
    if not labels.is_file():
        raise RecordedSetError(
            f"{root}: no {LABELS_FILE} in this folder, so it is not a recorded set"
        )
    frames: list[LabelledFrame] = []
    seen: set[str] = set()
    try:
        text = labels.read_bytes().decode("utf-8")
    except OSError as error:
        raise RecordedSetError(f"{labels}: cannot be read ({error.strerror})") from None
    except UnicodeDecodeError as error:
        raise RecordedSetError(f"{labels}: not UTF-8 text (byte {error.start})") from None
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{labels}:{number}"
        frame = _parse_frame(line, root, where)
        if frame.image in seen:
            raise RecordedSetError(f"{where}: image {frame.image!r} is labelled twice")
        seen.add(frame.image)
        frames.append(frame)
    if not frames:
        raise RecordedSetError(f"{labels}: no labelled frames")
    appliance = {f.scenario for f in frames if f.kind == "calibration" and f.scenario}
    frames = [replace(f, dice_in_play=len(expected_colours(f.removed)))
              if f.kind == "roll" and f.scenario in appliance else f for f in frames]
    return RecordedSet(root=root, frames=tuple(frames))


def _parse_frame(line: str, root: Path, where: str) -> LabelledFrame:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise RecordedSetError(f"{where}: not valid JSON ({error.msg})") from None
    except RecursionError:
        raise RecordedSetError(f"{where}: nested too deeply to be a labelled frame") from None
    if not isinstance(data, dict):
        raise RecordedSetError(f"{where}: a line must be a JSON object")
    image = data.get("image")
    if not isinstance(image, str) or not image:
        raise RecordedSetError(f"{where}: 'image' must be a non-empty path")
    if Path(image).is_absolute() or ".." in Path(image).parts:
        raise RecordedSetError(f"{where}: 'image' must be a path inside the set, got {image!r}")
    kind = data.get("kind", "roll")
    if kind not in FRAME_KINDS:
        raise RecordedSetError(f"{where}: 'kind' must be one of {FRAME_KINDS}, got {kind!r}")
    scenario = data.get("scenario")
    if scenario is not None and not isinstance(scenario, str):
        raise RecordedSetError(f"{where}: 'scenario' must be a string")
    removed = data.get("removed", [])
    if not isinstance(removed, list) or any(c not in DIE_COLOURS for c in removed):
        raise RecordedSetError(f"{where}: 'removed' must be a list of die colours, got {removed!r}")
    dice = data.get("dice")
    if not isinstance(dice, list):
        raise RecordedSetError(f"{where}: 'dice' must be a list")
    parsed = tuple(_parse_die(die, f"{where} die {i + 1}") for i, die in enumerate(dice))
    expect_refusal = data.get("expect_refusal")
    if expect_refusal is not None and not _is_reason(expect_refusal):
        raise RecordedSetError(
            f"{where}: 'expect_refusal' must say why the frame must be refused (a non-empty "
            f"string), got {expect_refusal!r}"
        )
    known = {"image", "kind", "scenario", "removed", "dice", "expect_refusal"}
    return LabelledFrame(
        image=image,
        path=root / image,
        kind=kind,
        dice=parsed,
        scenario=scenario,
        removed=tuple(removed),
        extra={k: v for k, v in data.items() if k not in known},
        expect_refusal=expect_refusal,
    )


def _is_reason(text: object) -> bool:
    return isinstance(text, str) and bool(text.strip())


def _parse_die(die: object, where: str) -> LabelledDie:
    if not isinstance(die, dict):
        raise RecordedSetError(f"{where}: a die must be a JSON object")
    colour = die.get("colour")
    if colour is not None and colour not in DIE_COLOURS:
        raise RecordedSetError(f"{where}: 'colour' must be one of {DIE_COLOURS} or null")
    value = die.get("value")
    if value is not None and (isinstance(value, bool) or value not in range(1, 7)):
        raise RecordedSetError(f"{where}: 'value' must be 1..6 or null, got {value!r}")
    box = die.get("box")
    if (
        not isinstance(box, list)
        or len(box) != 4
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in box)
        or box[2] <= 0
        or box[3] <= 0
    ):
        raise RecordedSetError(f"{where}: 'box' must be [x, y, w, h] with w, h > 0, got {box!r}")
    unreadable, rendered_value = _parse_unreadable(die, value, where)
    return LabelledDie(
        colour=colour,
        value=value,
        box=(box[0], box[1], box[2], box[3]),
        unreadable=unreadable,
        rendered_value=rendered_value,
    )


def _parse_unreadable(
    die: dict[str, Any], value: object, where: str
) -> tuple[str | None, int | None]:
    """The ``unreadable`` reason and ``rendered_value`` of a face no one can read: both belong
    to a die with ``"value": null`` (a labelled value and "unreadable" contradict each other)."""
    unreadable = die.get("unreadable")
    rendered_value = die.get("rendered_value")
    if unreadable is not None:
        if not _is_reason(unreadable):
            raise RecordedSetError(
                f"{where}: 'unreadable' must say why no one can read the face (a non-empty "
                f"string), got {unreadable!r}"
            )
        if value is not None:
            raise RecordedSetError(
                f"{where}: a face marked 'unreadable' must have \"value\": null (put what was "
                f"rendered in 'rendered_value'), got value {value!r}"
            )
    if rendered_value is not None:
        if unreadable is None:
            raise RecordedSetError(
                f"{where}: 'rendered_value' belongs to a face marked 'unreadable' (a readable "
                f"face carries its value in 'value')"
            )
        if isinstance(rendered_value, bool) or rendered_value not in range(1, 7):
            raise RecordedSetError(
                f"{where}: 'rendered_value' must be 1..6, got {rendered_value!r}"
            )
    return unreadable, rendered_value
