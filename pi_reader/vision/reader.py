"""Reading a roll: every die found, its colour named, its top face read, and what is wrong.

``read_roll`` joins the stages (``locate`` finds the dice, :mod:`colour` names them, ``pips``
reads them, :mod:`quality` judges the frame) and checks the result against what a Qwixx roll must
be. Whatever makes the roll untrustworthy becomes a :class:`Problem` rather than a silent guess.

With a calibration the reader expects two white dice and one of each coloured die still in play
(``removed`` lists the dice taken out after locks). Without one it works in a generic mode: any
number of six-sided dice, colours a best guess or ``unknown``, no count checks.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from pi_reader.rules import COLOURS
from pi_reader.vision import colour, quality
from pi_reader.vision.calibration import MAX_NAMING_COST, MIN_NAMING_GAP, Calibration
from pi_reader.vision.calibration_fit import calibration_mismatch
from pi_reader.vision.stages import (
    DieCandidateLike,
    FaceReadingLike,
    Stages,
    default_stages,
    die_pixels,
    face_box,
    int_box,
)
from pi_reader.vision.types import (
    DIE_COLOURS,
    UNKNOWN_COLOUR,
    WHITE,
    DieReading,
    Problem,
    ProblemKind,
    RollReading,
)

WHITE_DICE = 2
# Below this pips confidence a value is reported as unreadable rather than trusted.
MIN_VALUE_CONFIDENCE = 0.5
# Said of an unreadable die whose top face the light has mostly clipped to plain white.
WASHED_OUT_ADVICE = (
    ": its top face is clipped white by the light; lower the exposure or move the lamp"
)
# An unconfirmed candidate (see locate.DieCandidate) is a die only if its face reads this surely.
UNCONFIRMED_MIN_CONFIDENCE = 0.9
# An unread face is read again from its box moved onto the face when the face's middle lies at
# least this far (a fraction of the box's longer side) from the box's; that second look is a
# second chance to be wrong, so its value is taken only this sure (pips.MIN_CONFIDENCE is 0.6).
RECENTRE_MIN_SHIFT = 0.05
RECENTRED_MIN_CONFIDENCE = 0.75
# ...and only when less than this share of its box's middle is clipped white (light pips vanish
# into a clipped face). On the shared sets every face the second look read had at most 6 %
# clipped, and 11 of the 13 it could not read on qwixx-rendered (coloured dice on most of that
# set's slowest frames) over 10 %. Dark pips stay on a clipped face, but calibration's pip
# polarity cannot tell them apart here (it learns "dark" for qwixx-rendered's coloured dice too),
# so a white die's clipped face is not looked at again either.
RECENTRE_MAX_CLIPPED = 0.1
# A face read less surely than this in a box a closer look at its heap moved is read in the first
# finder's box too (see _checked_in_first_box). As sure as the pips reader's own trust without a
# layout check (pips.SURE_WITHOUT_LAYOUT): a sure read is not doubted for its box.
CROSS_CHECK_BELOW = 0.9


def read_roll(
    frame_bgr: np.ndarray,
    calibration: Calibration | None = None,
    removed: Iterable[str] = (),
    *,
    stages: Stages | None = None,
) -> RollReading:
    """Read one frame. ``removed`` names the coloured dice out of play (after locks).

    Raises ValueError for something that is not a BGR image or for an unknown removed colour.
    """
    _check_frame(frame_bgr)
    removed_set = frozenset(removed)
    unknown = removed_set - set(COLOURS)
    if unknown:
        names = tuple(colour.value for colour in COLOURS)
        raise ValueError(f"removed dice must be among {names}, got {sorted(unknown)}")
    misfit = calibration_mismatch(frame_bgr, calibration) if calibration else None
    if misfit is not None:
        return RollReading(dice=(), problems=(misfit,))
    stages = stages or default_stages()
    scene = calibration.scene if calibration else None
    expected = expected_colours(removed_set)
    try:
        candidates = list(
            stages.find_dice(frame_bgr, scene, expected=len(expected) if calibration else None)
        )
    except stages.locate_error as error:
        problems = quality.assess(frame_bgr, [], None, None, _scene_background(calibration))
        if not problems:
            problems = [Problem(ProblemKind.MISSING_DIE, f"no dice could be found: {error}")]
        return RollReading(dice=(), problems=tuple(problems))

    faces = None
    if calibration is None:
        # Without a calibration nothing counts the dice: a candidate is a die only if its top
        # face looks like one (the learnt finder also answers screw heads and printed discs).
        read = [(c, _read_face(stages, frame_bgr, face_box(c), None, None)) for c in candidates]
        kept = [(c, face) for c, face in read if _looks_like_a_die(c, face)]
        candidates, faces = [c for c, _ in kept], [face for _, face in kept]
    else:
        # A die the tray model missed and the detector found is a die only if its face reads.
        candidates = [
            c for c in candidates
            if c.confirmed
            or _read_face(stages, frame_bgr, face_box(c), None, None).value is not None
        ]
    dice = _read_dice(frame_bgr, candidates, calibration, stages, expected, faces)
    problems = quality.assess(
        frame_bgr,
        [d.box for d in dice],
        calibration.die_side_px if calibration else None,
        [d.colour for d in dice],
        _scene_background(calibration),
    )
    problems += _die_problems(frame_bgr, candidates, dice)
    if calibration is not None:
        problems += _count_problems(dice, removed_set)
    else:
        problems += _removed_present(dice, removed_set)
    return RollReading(dice=tuple(dice), problems=tuple(problems))


def _looks_like_a_die(candidate: DieCandidateLike, face: FaceReadingLike) -> bool:
    """An unconfirmed candidate needs a clearly read face; any other one, a face at all."""
    if not candidate.confirmed:
        return face.value is not None and face.confidence >= UNCONFIRMED_MIN_CONFIDENCE
    return not face.no_face


def _scene_background(calibration: Calibration | None) -> np.ndarray | None:
    """The calibrated empty tray's colour grid, when locate's scene model keeps one."""
    return calibration.background_grid if calibration else None


def _check_frame(frame: object) -> None:
    if (
        not isinstance(frame, np.ndarray)
        or frame.dtype != np.uint8
        or frame.ndim != 3
        or frame.shape[2] != 3
        or min(frame.shape[:2]) < 16
    ):
        raise ValueError("a frame must be an 8-bit BGR image (height x width x 3), at least 16 px")


def expected_colours(removed: frozenset[str]) -> list[str]:
    """The colours a calibrated roll must show: two whites and every coloured die in play."""
    return [WHITE] * WHITE_DICE + [c for c in COLOURS if c not in removed]


def _read_dice(
    frame: np.ndarray,
    candidates: list[DieCandidateLike],
    calibration: Calibration | None,
    stages: Stages,
    expected: list[str],
    faces: list[FaceReadingLike] | None = None,
) -> list[DieReading]:
    """Name, read and score each die; ``faces`` are the top faces when already read."""
    boxes = [int_box(c.box) for c in candidates]
    tray = colour.tray_chroma(frame, boxes)
    pixels = [die_pixels(frame, c) for c in candidates]
    relative = [colour.die_pixel_chroma(*p, tray) for p in pixels]
    names, colour_confidence = _name_colours(relative, tray, calibration, expected, pixels)
    # The calibrated die size helps the pips reader (measured: 70.2 % against 69.3 % of the faces
    # of qwixx-rendered); locate's per-die side in the generic mode does not (68.2 %), so there
    # the pips reader measures the die itself.
    side = calibration.die_side_px if calibration else None
    dice = []
    for index, (candidate, box, name, colour_conf) in enumerate(
        zip(candidates, boxes, names, colour_confidence, strict=True)
    ):
        polarity = calibration.pip_polarity.get(name) if calibration else None
        face = (
            faces[index]
            if faces is not None
            else _read_face(stages, frame, face_box(candidate), polarity, side)
        )
        face = _checked_in_first_box(stages, frame, candidate, face, polarity, side)
        confidence = float(candidate.score) * float(face.confidence) * colour_conf
        x, y, w, h = box
        dice.append(
            DieReading(
                colour=name,
                value=face.value,
                box=box,
                centre=(x + w / 2.0, y + h / 2.0),
                confidence=float(np.clip(confidence, 0.0, 1.0)),
                value_confidence=float(face.confidence),
            )
        )
    return dice


def _read_face(
    stages: Stages,
    frame: np.ndarray,
    box: tuple[float, float, float, float],
    polarity: str | None,
    side: float | None,
) -> FaceReadingLike:
    """Read a top face with the calibration's hints; if that fails, once more without them, and
    once more with the box moved onto the face.

    A hint can be wrong for one frame (a pip polarity learnt under other light, a die seen
    larger at the tray's edge); a face read confidently without the hints is then taken, unless
    it contradicts a value read with them. With the trained classifier this reads 2 more of the
    898 rendered dice. A face clipped white is not read again: no hint is wrong there, the pips
    are gone (and the second read is most of the time of the slowest frames).
    """
    face = stages.read_face(frame, box, polarity=polarity, die_side_px=side)
    if face.value is not None and face.confidence >= MIN_VALUE_CONFIDENCE:
        return face
    clipped = quality.middle_clipped_share(frame, int_box(box))
    if clipped >= quality.WASHED_OUT_SHARE:
        return face
    if polarity is not None or side is not None:
        other = stages.read_face(frame, box, polarity=None, die_side_px=None)
        agrees = face.value is None or face.value == other.value
        if other.value is not None and other.confidence > face.confidence and agrees:
            return other
    if clipped >= RECENTRE_MAX_CLIPPED:
        return face  # the lamp took its pips, not the box: moving the box cannot bring them back
    return _read_on_the_face(stages, frame, box, face, polarity, side)


def _read_on_the_face(
    stages: Stages,
    frame: np.ndarray,
    box: tuple[float, float, float, float],
    face: FaceReadingLike,
    polarity: str | None,
    side: float | None,
) -> FaceReadingLike:
    """``face``, or if it has no value, the face read again from the box moved onto the middle
    of the face region the pips reader found.

    The classifier learnt faces in the middle of their box; a box off the die (a detector's box
    in a heap, a box grown by a side face) shows it the face off-centre, and it is unsure. On
    the shared sets this reads 4 more of the 1,662 real dice (2 more of the 322 held out from
    training) and 3 more of the 797 rendered dice of -more and -touching, none wrong, for 2 more
    face reads over qwixx-rendered's 71 frames. Taking the second look's value from 0.6 sure
    read 4 + 5 more dice but misread one (a green two beside a yellow one, read as a one at 0.71).
    """
    if face.value is not None or face.no_face or face.face_centre is None:
        return face
    x, y, w, h = box
    fx, fy = face.face_centre
    if math.hypot(fx - x - w / 2, fy - y - h / 2) < RECENTRE_MIN_SHIFT * max(w, h):
        return face
    moved = stages.read_face(frame, (fx - w / 2, fy - h / 2, w, h), polarity=polarity,
                             die_side_px=side)
    sure = moved.value is not None and moved.confidence >= RECENTRED_MIN_CONFIDENCE
    return moved if sure else face


def _checked_in_first_box(
    stages: Stages,
    frame: np.ndarray,
    candidate: DieCandidateLike,
    face: FaceReadingLike,
    polarity: str | None,
    side: float | None,
) -> FaceReadingLike:
    """``face``, or no value when it was read unsurely in a box a closer look moved
    (``candidate.first_box``) and the first box reads another value.

    Near the threshold the classifier's answer can follow the box: a box a tenth of a die off
    takes in a neighbour's pip (a real four beside a five, read 4 at 0.61 in the detector's box
    from the whole photo and 5 at 0.60 in the closer look's). Two boxes the finders gave one die
    reading two values are a doubt, and a doubt is refused.
    """
    first = candidate.first_box
    if first is None or face.value is None or face.confidence >= CROSS_CHECK_BELOW:
        return face
    other = stages.read_face(frame, first, polarity=polarity, die_side_px=side)
    if other.value is None or other.value == face.value:
        return face
    return replace(face, value=None)


def _name_colours(
    relative: list[np.ndarray],
    tray: colour.Chroma,
    calibration: Calibration | None,
    expected: list[str],
    pixels: list[tuple[np.ndarray, np.ndarray]],
) -> tuple[list[str], list[float]]:
    """Colour names and their confidences (1.0 where colour is not part of the answer).

    With a calibration the dice are first named jointly against the roll's ``expected`` colours
    (see colour.name_jointly), then each on its own when that does not fit. ``pixels`` are the
    dice's patches and masks (die_pixels), which six dice without a calibration are named from
    as at calibration.
    """
    if calibration is not None:
        scores = [colour.likelihoods(r, calibration.colour_models) for r in relative]
        names = colour.name_jointly(scores, expected) if expected else None
        if names is None:
            names = [max(s, key=s.__getitem__) for s in scores]
        return names, [colour.margin_confidence(s, n) for s, n in zip(scores, names, strict=True)]
    if len(relative) == 6:
        # Six dice are probably a Qwixx roll: name them together, as calibration does.
        naming = colour.name_six_dice(
            relative, [colour.die_pixel_chroma(*p, tray, clipped_last=True) for p in pixels]
        )
        if naming.cost <= MAX_NAMING_COST and naming.gap >= MIN_NAMING_GAP:
            return naming.names, [1.0] * 6
    summaries = [colour.summary_chroma(r, tray) for r in relative]
    guesses = [colour.generic_colour(s) for s in summaries]
    return [n for n, _ in guesses], [1.0] * len(guesses)


def _die_problems(
    frame: np.ndarray, candidates: list[DieCandidateLike], dice: list[DieReading]
) -> list[Problem]:
    """A cocked die, or a value that cannot be trusted (saying so when the light is the cause)."""
    problems = []
    for candidate, die in zip(candidates, dice, strict=True):
        where = f"the {die.colour} die at ({die.centre[0]:.0f}, {die.centre[1]:.0f})"
        colour_name = die.colour if die.colour != UNKNOWN_COLOUR else None
        if candidate.cocked:
            problems.append(
                Problem(ProblemKind.COCKED_DIE, f"{where} is not lying flat", colour_name)
            )
        elif die.value is None or die.value_confidence < MIN_VALUE_CONFIDENCE:
            problems.append(
                Problem(
                    ProblemKind.UNREADABLE_VALUE,
                    f"the value of {where} cannot be read with confidence"
                    + (WASHED_OUT_ADVICE if quality.face_washed_out(frame, die.box) else ""),
                    colour_name,
                )
            )
    return problems


def _count_problems(dice: list[DieReading], removed: frozenset[str]) -> list[Problem]:
    """Compare the dice named with the dice that must be there: two whites, one per colour."""
    counts = Counter(d.colour for d in dice)
    problems = []
    for name in DIE_COLOURS:
        expected = 0 if name in removed else (WHITE_DICE if name == WHITE else 1)
        found = counts.get(name, 0)
        if found < expected:
            problems.append(
                Problem(
                    ProblemKind.MISSING_DIE,
                    f"{expected - found} {name} die missing: found {found}, expected {expected}",
                    name,
                )
            )
        elif found > expected and name in removed:
            problems.append(
                Problem(
                    ProblemKind.REMOVED_DIE_PRESENT,
                    f"the {name} die is out of play but is in the tray; take it out",
                    name,
                )
            )
        elif found > expected and name == WHITE:
            problems.append(
                Problem(
                    ProblemKind.EXTRA_DIE,
                    f"{found} white dice found, expected {expected}",
                    name,
                )
            )
        elif found > expected:
            problems.append(
                Problem(
                    ProblemKind.DUPLICATE_COLOUR,
                    f"{found} {name} dice found, there is only one",
                    name,
                )
            )
    return problems


def _removed_present(dice: list[DieReading], removed: frozenset[str]) -> list[Problem]:
    present = sorted({d.colour for d in dice} & removed)
    return [
        Problem(
            ProblemKind.REMOVED_DIE_PRESENT,
            f"the {name} die is out of play but is in the tray; take it out",
            name,
        )
        for name in present
    ]
