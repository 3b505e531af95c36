"""Reading a roll: every die found, its colour named, its top face read, and what is wrong.

``read_roll`` joins the stages (the detector finds the dice, the face classifier reads them,
:mod:`colour` names them, :mod:`quality` judges the frame) and checks the result against what a
Qwixx roll must be. Whatever makes the roll untrustworthy becomes a :class:`Problem` rather than
a silent guess: a face the classifier is not sure of, or reads differently when the patch is
turned, is refused, and so is a roll with a die missing, extra or named twice.

With a calibration the reader expects two white dice and one of each coloured die still in play
(``removed`` lists the dice taken out after locks), and looks at the frame at the scale the
calibrated die size calls for. Without one it works in a generic mode: any number of six-sided
dice, colours a best guess or ``unknown``, no count checks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from pi_reader.rules import COLOURS
from pi_reader.vision import colour, quality
from pi_reader.vision.calibration import MAX_NAMING_COST, MIN_NAMING_GAP, Calibration
from pi_reader.vision.calibration_fit import calibration_mismatch
from pi_reader.vision.detector import Detection
from pi_reader.vision.faces import FaceReading
from pi_reader.vision.finding import found_dice, trusted_reading
from pi_reader.vision.lean import SURE_FLAT_DEG, Lean
from pi_reader.vision.stages import Stages, default_stages
from pi_reader.vision.tray_grid import TrayView
from pi_reader.vision.types import (
    DIE_COLOURS,
    UNKNOWN_COLOUR,
    WHITE,
    WHITE_DICE,
    DieReading,
    Problem,
    ProblemKind,
    RollReading,
    expected_colours,
    int_box,
)

# With a calibration, a die the lean gauge sees leaning at least this far from flat is cocked:
# its value is not taken, whatever its top face shows (the rules reroll it). Chosen on the
# calibrated validation rolls by training/choose_lean.py (benchmarks/results/cocked_lean.json),
# which allows no wrong roll above the fewest: with the averaged gauge, dr2-v5fix reads 91.4 % of
# its dice right at 4 degrees with no silently wrong roll and 26.7 % of its readable rolls
# refused; from 5 a die leaning 29 degrees comes through, from 6 another leaning 15.
COCKED_LEAN_DEG = 4.0
# Without a calibration, the same from this lean. The gauge learnt the lean from the table, not
# from the camera (generated views up to 60 degrees off vertical), so it gauges oblique photos
# too; but a photo has no calibration to say how far its dice may seem to lean. Chosen on the
# generic validation rolls by training/choose_generic_lean.py
# (benchmarks/results/generic_cocked_lean.json), with the averaged gauge and a value given to a
# face no one can read counted as a misread: from 15 degrees it takes 4 of the 22 silently
# wrong validation rolls away (all generated, dr2valg 22 -> 18) and 43 -> 29 values given to
# its 180 cocked and washed-out faces, for dice right against no cut dr2valg 75.4 -> 74.1 %,
# gamedice 73.0 -> 72.4 %; at 20 (the rule's choice before it counted those guesses) 33 guesses
# and 19 wrong rolls, and lower cuts take more readable dice away.
GENERIC_COCKED_LEAN_DEG = 15.0
# Whether a die whose box patch gives no sure value has its top face read as well, from the
# corners the gauge puts round it warped square (faces.top_face_patch), in each mode (by
# whether it is calibrated). A die seen at a slant shows its side faces' pips beside the top
# one's in the box patch; warped square, its top face looks as it would from overhead. Chosen
# for each mode on its validation rolls by its rule, training/choose_top_faces.py
# (benchmarks/results/top_faces-*.json): calibrated, dice right dr2val 93.9 -> 94.4 %, dr8val
# 88.6 -> 88.9 %, no silently wrong roll either way; generic, gamedice 61.7 -> 71.1 %, overhead
# 90.7 -> 93.0 %, fisheye 96.5 -> 97.5 %, dr2valg 69.4 -> 74.8 % for 14 -> 22 silently wrong
# generated rolls (within the rule's allowance; cocked dice the gauge sees flat, mostly).
READ_TOP_FACES = {True: True, False: True}
# A die the classifier calls unreadable whose box is this much larger (square root of its area)
# than the calibrated die is leaning on something: a die lying flat shows its box within a
# tenth of the calibrated one (the calibrated side is the median over the tray), one cocked
# on a neighbour shows a side face as well, a third larger or more.
COCKED_SIDE = 1.25
# A calibrated roll refused only for missing dice is looked at again with its dice this many
# times the detector's target size (24 px instead of 16): two dice pressed together, whose
# centres the heat map put one cell apart at 16 px and so into one peak, then lie farther apart.
# The closer reading is taken only when it reports no problem at all. Chosen on the generated
# validation scenes (docs/reader.md); bench_sensitivity.py sweeps it.
CLOSER_LOOK = 1.5
# A die whose box reaches this share of its side past the frame's edge may have its top face cut
# by the edge, and a cut face shows fewer pips than it has (a five cut in half reads as a three):
# its value is not taken. A die lying wholly in view reaches past no edge; the share leaves room
# for a box a little off, or one holding a side face that the edge cuts instead of the top.
# Chosen on the calibrated validation rolls by training/choose_edge.py
# (benchmarks/results/edge_cut.json). Without a calibration the edge is not asked: the real
# validation photos label no cut face, and at 0.2 it took readable ones away for no fewer
# silently wrong rolls (fisheye 96.7 % of dice right against 96.8 %).
EDGE_CUT_SHARE = 0.2
# Said of a die the frame's edge cuts.
CUT_ADVICE = ": it lies partly outside the picture; keep the dice wholly in view"
# Said of an unreadable die whose top face the light has mostly clipped to plain white.
WASHED_OUT_ADVICE = (
    ": its top face is clipped white by the light; lower the exposure or move the lamp"
)


def read_roll(
    frame_bgr: np.ndarray,
    calibration: Calibration | None = None,
    removed: Iterable[str] = (),
    *,
    stages: Stages | None = None,
) -> RollReading:
    """Read one frame. ``removed`` names the coloured dice out of play (after locks).

    Raises ValueError for something that is not a BGR image or for an unknown removed colour,
    and pi_reader.vision.weights.WeightsMissing when the reader's networks are not installed.
    """
    _check_frame(frame_bgr)
    removed_set = frozenset(removed)
    unknown = removed_set - set(COLOURS)
    if unknown:
        names = tuple(colour.value for colour in COLOURS)
        raise ValueError(f"removed dice must be among {names}, got {sorted(unknown)}")
    tray = None  # the tray on the calibration's grid, for the mismatch and the exposure
    if calibration is not None:
        tray = TrayView.of(frame_bgr, calibration.background_grid)
        mismatch = calibration_mismatch(frame_bgr, calibration, tray)
        if mismatch is not None:
            return RollReading(dice=(), problems=(mismatch,))
    stages = stages or default_stages(calibrated=calibration is not None)
    reading = _read(frame_bgr, calibration, removed_set, stages, tray)
    if calibration is not None and _only_dice_missing(reading):
        closer = _read(frame_bgr, calibration, removed_set, stages, tray, look_closer=CLOSER_LOOK)
        if closer.ok:
            return closer
    return reading


def _read(
    frame_bgr: np.ndarray,
    calibration: Calibration | None,
    removed_set: frozenset[str],
    stages: Stages,
    tray: TrayView | None,
    look_closer: float = 1.0,
) -> RollReading:
    """One reading of the frame, its dice looked for ``look_closer`` times the detector's
    target size (see finding.found_dice)."""
    dice_found = found_dice(frame_bgr, stages, calibration.die_side_px if calibration else None,
                            look_closer=look_closer)
    calibrated = calibration is not None
    leans = list(stages.gauge_lean(frame_bgr, [d.box for d, _ in dice_found]))
    leaning = _leaning(dice_found, leans, calibrated=calibrated)
    cut = [calibrated and _cut_by_edge(found.box, frame_bgr.shape) for found, _ in dice_found]
    if READ_TOP_FACES[calibrated]:
        dice_found = _top_faces_read(frame_bgr, dice_found, leans, leaning, cut, stages,
                                     calibrated=calibrated)
    expected = expected_colours(removed_set)
    dice = _read_dice(frame_bgr, dice_found, leaning, cut, calibration, expected)
    problems = quality.assess(
        frame_bgr,
        [d.box for d in dice],
        calibration.die_side_px if calibration else None,
        [d.colour for d in dice],
        tray,
    )
    problems += _die_problems(frame_bgr, dice_found, leaning, cut, dice, calibration)
    if calibration is not None:
        problems += _count_problems(dice, removed_set)
    else:
        problems += _removed_present(dice, removed_set)
    return RollReading(dice=tuple(dice), problems=tuple(problems))


def _only_dice_missing(reading: RollReading) -> bool:
    """Whether the reading is refused for dice missing and nothing else: dice pressed together
    that the detector took for one, which a closer look may tell apart."""
    return bool(reading.problems) and all(p.kind is ProblemKind.MISSING_DIE
                                          for p in reading.problems)


def _check_frame(frame: object) -> None:
    if (
        not isinstance(frame, np.ndarray)
        or frame.dtype != np.uint8
        or frame.ndim != 3
        or frame.shape[2] != 3
        or min(frame.shape[:2]) < 16
    ):
        raise ValueError("a frame must be an 8-bit BGR image (height x width x 3), at least 16 px")


def _leaning(dice_found: list[tuple[Detection, FaceReading]], leans: list[Lean], *,
             calibrated: bool) -> list[bool]:
    """Whether each die is taken as not lying flat: the gauge sees it lean COCKED_LEAN_DEG or
    more (GENERIC_COCKED_LEAN_DEG without a calibration), or, with a calibration, two doubts
    meet: the gauge is not sure the die lies flat (lean.SURE_FLAT_DEG or more) and only the
    closer look from every turn gives its value (see :func:`_value_only_from_closer_look`)."""
    cut = COCKED_LEAN_DEG if calibrated else GENERIC_COCKED_LEAN_DEG
    return [g.lean_deg >= cut or (calibrated and g.lean_deg >= SURE_FLAT_DEG
                                  and _value_only_from_closer_look(face))
            for (_, face), g in zip(dice_found, leans, strict=True)]


def _top_faces_read(frame: np.ndarray, dice_found: list[tuple[Detection, FaceReading]],
                    leans: list[Lean], leaning: list[bool], cut: list[bool], stages: Stages, *,
                    calibrated: bool) -> list[tuple[Detection, FaceReading]]:
    """The dice with the top face read (faces.top_face_patch) of each die lying flat in view
    whose value the box patch does not give surely."""
    asked = [k for k, (_, face) in enumerate(dice_found)
             if not leaning[k] and not cut[k] and trusted_reading(face, calibrated=calibrated)
             is None]
    tops = stages.read_top_faces(frame, [leans[k].corners for k in asked])
    out = list(dice_found)
    for k, top in zip(asked, tops, strict=True):
        found, face = out[k]
        out[k] = (found, replace(face, top_face=top))
    return out


def _value_only_from_closer_look(face: FaceReading) -> bool:
    """Whether a calibrated read takes the face's value from its closer reading, the face as
    first read too doubtful. A die cocked on a neighbour in a heap may show the gauge little of
    its lean and the classifier a face it doubts at first: on the huddled validation rolls of
    `dr8val` a green die leaning 32 degrees gauged 3.7 and was read a 2 from every turn (first
    confidence 0.72), a silently wrong roll. Either doubt alone is common on flat dice; together
    they refuse the die as cocked. Measured on the calibrated validation rolls (docs/reader.md):
    from SURE_FLAT_DEG (3 degrees) the wrong roll is refused and no other reading changes; from
    2 degrees readable dice are refused as well, from 4 the wrong roll stays."""
    taken = trusted_reading(face, calibrated=True)
    return taken is not None and taken is not face


def _cut_by_edge(box: tuple[float, float, float, float], shape: tuple[int, ...]) -> bool:
    """Whether a die's box reaches EDGE_CUT_SHARE of its longer side past the frame's edge."""
    x, y, w, h = box
    height, width = shape[:2]
    beyond = max(0.0, -x, -y, x + w - width, y + h - height)
    return beyond >= EDGE_CUT_SHARE * max(w, h, 1e-6)


def _read_dice(
    frame: np.ndarray,
    dice_found: list[tuple[Detection, FaceReading]],
    leaning: list[bool],
    cut: list[bool],
    calibration: Calibration | None,
    expected: list[str],
) -> list[DieReading]:
    """Name, read and score each die; the value of a leaning die or one the frame's edge cuts
    is not taken."""
    boxes = [int_box(d.box) for d, _ in dice_found]
    names, colour_confidence = _name_colours(colour.dice_chroma(frame, boxes), calibration,
                                             expected)
    dice = []
    for (found, face), cocked, cut_off, box, name, colour_conf in zip(
        dice_found, leaning, cut, boxes, names, colour_confidence, strict=True
    ):
        trusted = (None if cocked or cut_off
                   else trusted_reading(face, calibrated=calibration is not None))
        value = trusted.value if trusted is not None else None
        value_confidence = trusted.confidence if trusted is not None else 0.0
        confidence = found.score * value_confidence * colour_conf
        x, y, w, h = box
        dice.append(
            DieReading(
                colour=name,
                value=value,
                box=box,
                centre=(x + w / 2.0, y + h / 2.0),
                confidence=float(np.clip(confidence, 0.0, 1.0)),
                value_confidence=float(value_confidence),
            )
        )
    return dice


def _name_colours(
    chroma: colour.DiceChroma, calibration: Calibration | None, expected: list[str]
) -> tuple[list[str], list[float]]:
    """Colour names and their confidences (1.0 where colour is not part of the answer).

    With a calibration the dice are first named jointly against the roll's ``expected`` colours
    (see colour.name_jointly), then each on its own when that does not fit. Six dice without a
    calibration are named as at calibration.
    """
    if calibration is not None:
        scores = [colour.likelihoods(p.chroma, calibration.colour_models) for p in chroma.pixels]
        names = colour.name_jointly(scores, expected) if expected else None
        if names is None:
            names = [max(s, key=s.__getitem__) for s in scores]
        return names, [colour.margin_confidence(s, n) for s, n in zip(scores, names, strict=True)]
    if len(chroma.pixels) == 6:
        # Six dice are probably a Qwixx roll: name them together, as calibration does.
        naming = chroma.named_as_six()
        if naming.cost <= MAX_NAMING_COST and naming.gap >= MIN_NAMING_GAP:
            return naming.names, [1.0] * 6
    summaries = [colour.summary_chroma(p.chroma, chroma.tray) for p in chroma.pixels]
    guesses = [colour.generic_colour(s) for s in summaries]
    return [n for n, _ in guesses], [1.0] * len(guesses)


def _die_problems(
    frame: np.ndarray,
    dice_found: list[tuple[Detection, FaceReading]],
    leaning: list[bool],
    cut: list[bool],
    dice: list[DieReading],
    calibration: Calibration | None,
) -> list[Problem]:
    """A die not lying flat, or a value that cannot be trusted (saying why when the frame's
    edge or the light is). A die is not lying flat when the gauge sees it lean, or when its
    value is unreadable and its box is as large as a die's top and side faces together."""
    problems = []
    for (found, _), cocked, cut_off, die in zip(dice_found, leaning, cut, dice, strict=True):
        if die.value is not None:
            continue
        where = f"the {die.colour} die at ({die.centre[0]:.0f}, {die.centre[1]:.0f})"
        colour_name = die.colour if die.colour != UNKNOWN_COLOUR else None
        if cocked or (calibration is not None
                      and found.side >= COCKED_SIDE * calibration.die_side_px):
            problems.append(
                Problem(ProblemKind.COCKED_DIE, f"{where} is not lying flat", colour_name)
            )
            continue
        if cut_off:
            advice = CUT_ADVICE
        else:
            advice = WASHED_OUT_ADVICE if quality.face_washed_out(frame, die.box) else ""
        problems.append(
            Problem(
                ProblemKind.UNREADABLE_VALUE,
                f"the value of {where} cannot be read with confidence{advice}",
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
            problems.append(_removed_in_tray(name))
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
    return [_removed_in_tray(name) for name in sorted({d.colour for d in dice} & removed)]


def _removed_in_tray(name: str) -> Problem:
    return Problem(
        ProblemKind.REMOVED_DIE_PRESENT,
        f"the {name} die is out of play but is in the tray; take it out",
        name,
    )
