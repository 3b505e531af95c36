"""The face classifier's turns and its closer look at doubtful faces, with scripted answers."""

from __future__ import annotations

import numpy as np
import pytest

from pi_reader.vision import faces, finding
from pi_reader.vision.faces import CLASS_COUNT, FaceClassifier, FaceReading


def answer(value: int, probability: float) -> np.ndarray:
    """Class probabilities putting ``probability`` on ``value``, the rest spread evenly."""
    row = np.full(CLASS_COUNT, (1.0 - probability) / (CLASS_COUNT - 1), np.float32)
    row[value] = probability
    return row


class ScriptedClassifier(FaceClassifier):
    """Answers each patch it is asked about from a script, and records how many it was asked."""

    def __init__(self, answers: list[np.ndarray]) -> None:
        self.answers = list(answers)
        self.asked: list[int] = []

    def probabilities(self, patches: list[np.ndarray]) -> np.ndarray:
        self.asked.append(len(patches))
        return np.stack([self.answers.pop(0) for _ in patches]).reshape(-1, CLASS_COUNT)


FRAME = np.full((200, 200, 3), 128, np.uint8)
BOXES = [(20.0, 20.0, 40.0, 40.0), (120.0, 120.0, 40.0, 40.0)]


def test_a_sure_face_is_read_from_its_two_turns_only():
    classifier = ScriptedClassifier([answer(3, 0.99)] * 4)
    readings = classifier.read(FRAME, BOXES)
    assert classifier.asked == [4]
    assert [(r.value, r.closer) for r in readings] == [(3, None), (3, None)]


@pytest.mark.parametrize("first", [answer(5, 0.9), answer(5, 0.5)])
def test_a_doubtful_face_is_read_again_from_the_other_two_turns(first):
    # The first die is sure; the second is read with 0.9 (under DOUBT_CONFIDENCE) or 0.5 from
    # both of its turns, then surely from the other two.
    script = [answer(3, 0.99)] * 2 + [first] * 2 + [answer(5, 0.99)] * 2
    classifier = ScriptedClassifier(script)
    sure_die, doubtful = classifier.read(FRAME, BOXES)
    assert classifier.asked == [4, len(faces.CLOSER_VIEWS)]
    assert sure_die.closer is None
    assert doubtful.closer is not None and doubtful.closer.value == 5
    assert doubtful.closer.confidence == pytest.approx((2 * first[5] + 2 * 0.99) / 4)
    assert doubtful.closer.agreement == pytest.approx(first[5])


def test_no_closer_look_at_what_is_no_die():
    classifier = ScriptedClassifier([answer(faces.NOT_A_DIE, 0.6)] * 4)
    assert [r.closer for r in classifier.read(FRAME, BOXES)] == [None, None]
    assert classifier.asked == [4]


def test_every_threshold_the_chooser_may_pick_leaves_its_refusals_doubtful():
    # The closer look is taken for every face some chosen threshold could refuse.
    choose = pytest.importorskip("training.choose_thresholds")
    assert max(choose.CONFIDENCES) <= faces.DOUBT_CONFIDENCE
    assert max(choose.AGREEMENTS) <= faces.DOUBT_AGREEMENT


@pytest.mark.parametrize(
    ("closer", "value"),
    [
        (None, None),
        (FaceReading(5, 0.9, 0.85, True), 5),
        (FaceReading(5, finding.MIN_VALUE_CONFIDENCE - 0.01, 0.85, True), None),
        (FaceReading(5, 0.9, finding.MIN_VIEW_AGREEMENT - 0.01, True), None),
        (FaceReading(None, 0.9, 0.85, False), None),
    ],
)
def test_a_doubt_becomes_a_value_only_when_the_closer_look_is_sure(closer, value):
    face = FaceReading(5, finding.MIN_VALUE_CONFIDENCE - 0.1, 0.5, True, closer)
    assert finding.trusted_value(face, calibrated=True) == value


@pytest.mark.parametrize(("every_turn", "value"), [(True, None), (False, 5)])
def test_without_a_calibration_a_doubt_is_judged_by_every_turn_alone(monkeypatch, every_turn,
                                                                     value):
    monkeypatch.setattr(finding, "GENERIC_DOUBT_FROM_EVERY_TURN", every_turn)
    # Two turns sure enough for the generic thresholds, the other two not: a value of the view.
    closer = FaceReading(5, finding.GENERIC_MIN_VALUE_CONFIDENCE - 0.1, 0.3, True)
    face = FaceReading(5, finding.GENERIC_MIN_VALUE_CONFIDENCE + 0.01,
                       finding.GENERIC_MIN_VIEW_AGREEMENT + 0.01, True, closer)
    assert face.doubtful
    assert finding.trusted_value(face, calibrated=False) == value
    # With a calibration the first reading still stands.
    assert finding.trusted_value(face, calibrated=True) == 5


@pytest.mark.parametrize(("no_die", "is_die"), [(0.45, True), (0.55, False)])
def test_a_box_is_no_die_only_when_the_classifier_says_so_more_than_any_die(no_die, is_die):
    # A lamp's hot spot on a face leaves the classifier unsure of everything: a die it hardly
    # knows is an unreadable die (refused), not left out as no die.
    row = np.full(CLASS_COUNT, (1.0 - no_die) / (CLASS_COUNT - 1), np.float32)
    row[faces.NOT_A_DIE] = no_die
    reading = ScriptedClassifier([row] * 2 + [row] * 2).read(FRAME, BOXES[:1])[0]
    assert reading.is_die is is_die
    assert finding.trusted_value(reading, calibrated=False) is None


@pytest.mark.parametrize(("calibrated", "value"), [(True, 5), (False, None)])
def test_each_mode_trusts_a_value_at_its_own_thresholds(monkeypatch, calibrated, value):
    monkeypatch.setattr(finding, "MIN_VALUE_CONFIDENCE", 0.7)
    monkeypatch.setattr(finding, "MIN_VIEW_AGREEMENT", 0.5)
    monkeypatch.setattr(finding, "GENERIC_MIN_VALUE_CONFIDENCE", 0.9)
    monkeypatch.setattr(finding, "GENERIC_MIN_VIEW_AGREEMENT", 0.7)
    face = FaceReading(5, 0.8, 0.6, True)
    assert finding.trusted_value(face, calibrated=calibrated) == value


@pytest.mark.parametrize(("spread", "to_unit_spread"), [(3.0, False), (6.0, True)])
def test_only_a_patch_with_more_contrast_than_a_blank_trays_noise_is_standardised(
        spread, to_unit_spread):
    # faces.MIN_PATCH_SPREAD (4 grey levels): the blankest tenth of the validation scenes' tray
    # patches spread about 2 grey levels (dr2val, dr2valg), a readable die's patch 12 or more.
    # A blank patch whose noise spreads 3 stays flat (its noise is not blown up into pips); a
    # face at half the faintest readable one's contrast is standardised like any other. At half
    # of it the first probe would be brought to unit spread, at double the second damped.
    rng = np.random.default_rng(1)
    patch = np.clip(np.rint(120.0 + rng.normal(0.0, spread, (40, 40, 3))), 0, 255)
    standardised = faces.network_input([patch.astype(np.uint8)])
    assert (float(standardised.std()) > 0.95) is to_unit_spread
