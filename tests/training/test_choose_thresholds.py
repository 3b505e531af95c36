"""Each mode's thresholds are chosen on its own validation sets, by its own rule."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from pi_reader.vision import detector, faces, finding, lean, reader
from pi_reader.vision.calibration import Calibration
from pi_reader.vision.detector import Detection
from pi_reader.vision.faces import FaceReading
from pi_reader.vision.lean import Lean
from pi_reader.vision.recorded import LabelledDie, load_recorded_set
from pi_reader.vision.scoring import FrameScore
from pi_reader.vision.stages import Stages
from pi_reader.vision.types import DieReading
from training import choose_thresholds as choose
from training.candidates import networks_folder

from .mode_stages import appliance_and_generic_scene, stages_recording_frame_sides
from .test_splits import generated_set

FRAME = np.zeros((100, 100, 3), np.uint8)


def figures(dice_right: float, silently_wrong: int = 0, rolls: int = 60,
            refusal_rate: float = 0.1) -> dict[str, float]:
    return {"rolls": rolls, "dice_right": dice_right, "misread_rate": 0.0, "phantom_rate": 0.0,
            "silently_wrong_rolls": silently_wrong, "refusal_rate": refusal_rate}


def entry(peak: float, side: float, calibrated: dict[str, float] | None,
          generic: dict[str, float], every_turn: bool = False) -> dict[str, Any]:
    return {"peak_threshold": peak, "target_side_px": side, "min_value_confidence": 0.8,
            "min_view_agreement": 0.6, "doubt_from_every_turn": every_turn,
            "sets": ({} if calibrated is None else {"dr1 calibrated": calibrated})
            | {"real-d6-overhead": generic}}


def test_each_mode_takes_the_thresholds_its_own_sets_read_best():
    table = [
        entry(0.3, 12.0, figures(0.97), figures(0.80)),
        entry(0.3, 16.0, figures(0.99), figures(0.80)),
        entry(0.15, 12.0, figures(0.90), figures(0.95)),
        entry(0.15, 16.0, figures(0.92), figures(0.95)),
    ]
    assert choose.choose(table, calibrated=True) is table[1]
    # Generic frames are read alike at every side: the choice is among one side's entries.
    assert choose.choose(table, calibrated=False) is table[2]


def test_judging_generic_doubts_from_every_turn_is_a_generic_choice_alone():
    as_read = entry(0.3, 12.0, figures(0.95), figures(0.80))
    every_turn = entry(0.3, 12.0, None, figures(0.90), every_turn=True)
    # The calibrated mode knows no such rule: an entry without its sets is never its choice.
    assert choose.choose([every_turn, as_read], calibrated=True) is as_read
    assert choose.choose([as_read, every_turn], calibrated=False) is every_turn
    same = entry(0.3, 12.0, None, figures(0.80), every_turn=True)
    # Read alike, the stricter rule wins the tie.
    assert choose.choose([as_read, same], calibrated=False) is same


def test_a_silently_wrong_roll_beyond_the_noise_outweighs_every_die_right():
    noisy = entry(0.15, 12.0, figures(0.99, silently_wrong=2), figures(0.99, silently_wrong=3,
                                                                      rolls=120))
    quiet = entry(0.3, 12.0, figures(0.90), figures(0.90))
    # Calibrated: one roll is noise, two are not. Generic: one in sixty of 120 rolls, so 2.
    assert choose.choose([noisy, quiet], calibrated=True) is quiet
    assert choose.choose([noisy, quiet], calibrated=False) is quiet
    within = entry(0.15, 12.0, figures(0.99, silently_wrong=1), figures(0.99, silently_wrong=2,
                                                                       rolls=120))
    assert choose.choose([within, quiet], calibrated=True) is within
    assert choose.choose([within, quiet], calibrated=False) is within


def scored_roll(*dice: tuple[LabelledDie, int | None], problem: str | None = None
                ) -> FrameScore:
    """A roll whose labelled dice were read as the given values (None: declined)."""
    box = (0.0, 0.0, 10.0, 10.0)
    pairs = tuple((label, DieReading(label.colour or "white", value, box, (5.0, 5.0), 0.9))
                  for label, value in dice)
    return FrameScore("roll.jpg", pairs, (), (), (problem,) if problem else (), 0.0)


def test_a_value_given_to_a_face_no_one_can_read_is_a_misread_even_in_a_refused_roll():
    box = (0.0, 0.0, 10.0, 10.0)
    readable = LabelledDie("white", 4, box)
    cocked = LabelledDie("green", None, box, unreadable="cocked: leaning 28 degrees")
    guessed = choose.figures([scored_roll((readable, 4), (cocked, 6), problem="a die is cocked")])
    declined = choose.figures([scored_roll((readable, 4), (cocked, None),
                                           problem="a die is cocked")])
    assert guessed["misread_rate"] == 1.0  # of the one readable die: the rates' own count
    assert declined["misread_rate"] == 0.0
    assert guessed["dice_right"] == declined["dice_right"] == 1.0
    assert guessed["silently_wrong_rolls"] == declined["silently_wrong_rolls"] == 0


def test_a_mode_without_validation_sets_says_so():
    table = [{**entry(0.3, 12.0, figures(0.9), figures(0.9)),
              "sets": {"real-d6-overhead": figures(0.9)}}]
    with pytest.raises(SystemExit, match="no calibrated validation rolls"):
        choose.choose(table, calibrated=True)


def test_the_result_names_each_modes_choice():
    calibrated = entry(0.3, 16.0, figures(0.99), figures(0.8))
    generic = entry(0.15, 12.0, figures(0.9), figures(0.95))
    chosen = choose.result([calibrated, generic], {"calibrated": calibrated, "generic": generic})
    assert chosen["figures"]["chosen"] == {
        "calibrated": {"peak_threshold": 0.3, "target_side_px": 16.0,
                       "min_value_confidence": 0.8, "min_view_agreement": 0.6},
        "generic": {"peak_threshold": 0.15, "min_value_confidence": 0.8,
                    "min_view_agreement": 0.6, "doubt_from_every_turn": False},
    }
    assert [t["rows"][0][0] for t in chosen["tables"]] == ["dr1 calibrated", "real-d6-overhead"]


def test_one_mode_alone_names_only_its_choice_and_rule():
    generic = entry(0.15, 12.0, figures(0.9), figures(0.95))
    chosen = choose.result([generic], {"generic": generic})
    assert chosen["figures"]["chosen"] == {"generic": {"peak_threshold": 0.15,
                                                       "min_value_confidence": 0.8,
                                                       "min_view_agreement": 0.6,
                                                       "doubt_from_every_turn": False}}
    assert list(chosen["figures"]["rules"]) == ["generic"]
    assert [t["caption"] for t in chosen["tables"]] == [
        "The generic validation sets at the generic thresholds"]


def test_a_calibrated_frame_is_seen_at_its_side_and_at_the_closer_look_as_the_reader_looks():
    asked: list[float | None] = []

    def find(frame, side=None):
        asked.append(side)
        return [Detection((10.0, 10.0, 20.0, 20.0), 0.9),
                Detection((50.0, 10.0, 20.0 if side is None else side, 20.0), 0.12)]

    read: list[int] = []

    def faces(frame, boxes):
        read.append(len(boxes))
        return [FaceReading(3, 0.9, 0.9, True) for _ in boxes]

    stages = Stages(find, faces, lambda frame, boxes: [Lean(((0, 0),) * 4, 0.0) for _ in boxes],
                    lambda frame, corners: [None for _ in corners])
    calibration = Calibration(30.0, {}, (100, 100), ())
    seen = choose.look(stages, FRAME, calibration)
    assert asked == [30.0, 30.0 / reader.CLOSER_LOOK]
    assert read == [2, 1]  # a box both looks find is read once
    replayed = choose.Replayed(seen, peak=0.3).stages()
    assert [d.box[2] for d in replayed.find_dice(FRAME, 30.0 / reader.CLOSER_LOOK)] == [20.0]
    assert [d.box[2] for d in choose.Replayed(seen, peak=0.1).find_dice(FRAME, 30.0)] == [
        20.0, 30.0]
    assert choose.look(stages, FRAME, None).detections.keys() == {None}


def test_the_rolls_of_a_refused_calibration_are_refused_calibrated_rolls(tmp_path):
    root = generated_set(tmp_path, ["a00004"])  # scene 4: validation
    (root / "a00004").mkdir()
    for name in ("calibration", "roll_001"):
        cv2.imwrite(str(root / "a00004" / f"{name}.jpg"), np.full((64, 64, 3), 128, np.uint8))
    blind = Stages(lambda frame, side=None: [], lambda frame, boxes: [], lambda frame, boxes: [],
                   lambda frame, corners: [])
    rows = choose.collect([(load_recorded_set(root), None)],
                          stages=lambda *, calibrated: blind)
    assert list(rows) == ["dr-test calibrated"]  # not a generic set of its own
    side_rows = rows["dr-test calibrated"][choose.TARGET_SIDES[0]]
    scored = choose.score(side_rows, peak=0.3)
    assert (scored["rolls"], scored["dice_right"], scored["silently_wrong_rolls"]) == (1, 0.0, 0)
    frame = side_rows[0][0]
    assert choose.refused_calibration(frame).refused


def test_the_result_names_the_networks_that_read_the_frames(tmp_path):
    generic = entry(0.15, 12.0, figures(0.9), figures(0.95))
    shipped = choose.result([generic], {"generic": generic})["figures"]["networks"]
    assert set(shipped.values()) == {"shipped"}
    (tmp_path / faces.MODEL_FILE).write_bytes(b"a retrained classifier")
    networks = choose.result([generic], {"generic": generic},
                             networks_folder(str(tmp_path)))["figures"]["networks"]
    assert networks[faces.MODEL_FILE] != "shipped"
    assert networks[detector.MODEL_FILE] == networks[lean.MODEL_FILE] == "shipped"


def test_a_candidates_networks_never_write_the_shipped_result_files(tmp_path, capsys):
    (tmp_path / faces.MODEL_FILE).write_bytes(b"a retrained classifier")
    with pytest.raises(SystemExit) as exit_:
        choose.main(["--datasets", str(tmp_path), "--networks", str(tmp_path)])
    assert exit_.value.code == 2
    assert "--networks: give --out too" in capsys.readouterr().err


def test_a_networks_folder_without_networks_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        choose.main(["--datasets", str(tmp_path), "--networks", str(tmp_path),
                     "--out", str(tmp_path / "out.json")])
    assert exit_.value.code == 2
    assert "holds none of" in capsys.readouterr().err


def test_a_combination_judging_doubts_from_every_turn_reads_the_generic_sets_alone(monkeypatch):
    monkeypatch.setattr(choose, "_ROWS", {
        "photos": {side: [] for side in choose.TARGET_SIDES},
        "dr2val calibrated": {side: [] for side in choose.TARGET_SIDES}})
    monkeypatch.setattr(choose, "score", lambda rows, peak: {
        "every_turn": finding.GENERIC_DOUBT_FROM_EVERY_TURN})
    as_read = choose.scored_combination((0.2, 0.9, 0.7, False))
    assert [list(e["sets"]) for e in as_read] == [["photos", "dr2val calibrated"]] * 3
    assert as_read[0]["sets"]["photos"] == {"every_turn": False}
    every_turn = choose.scored_combination((0.2, 0.9, 0.7, True))
    assert [(e["sets"], e["doubt_from_every_turn"]) for e in every_turn] == [
        ({"photos": {"every_turn": True}}, True)]


def test_each_mode_s_rows_are_seen_by_that_mode_s_stages(tmp_path):
    seen = {}
    rows = choose.collect([(appliance_and_generic_scene(tmp_path), None)], targets=(16.0,),
                          stages=stages_recording_frame_sides(seen))
    assert set(rows) == {"dr-test calibrated", "dr-test generic"}
    assert seen == {True: {64}, False: {72}}
