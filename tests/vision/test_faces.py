"""The face classifier's turns and its closer look at doubtful faces, with scripted answers."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from pi_reader.vision import faces, finding
from pi_reader.vision.faces import CLASS_COUNT, FaceClassifier, FaceReading

from .face_drawing import draw_face


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


def slanted(image: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``image`` as a camera at a slant sees it (foreshortened down the frame, sheared and
    seen nearer at the bottom), and where ``corners`` then lie."""
    height, width = image.shape[:2]
    seen = np.float32([[30, 20], [width - 20, 35], [width - 5, height - 40], [10, height - 60]])
    whole = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    warp = cv2.getPerspectiveTransform(whole, seen)
    moved = cv2.perspectiveTransform(corners.reshape(-1, 1, 2).astype(np.float32), warp)
    return cv2.warpPerspective(image, warp, (width, height)), moved.reshape(-1, 2)


def test_a_top_face_seen_at_a_slant_is_warped_back_square_into_the_middle_of_its_patch():
    flat, (x, y, w, h) = draw_face(5, side=60, canvas=160)
    corners = np.float32([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
    seen, seen_corners = slanted(flat, corners)
    as_flat = faces.top_face_patch(flat, tuple(map(tuple, corners)))
    from_slant = faces.top_face_patch(seen, tuple(map(tuple, seen_corners)))
    assert as_flat is not None and from_slant is not None
    assert as_flat.shape == from_slant.shape == (faces.INPUT_PX, faces.INPUT_PX, 3)
    # The face fills the middle TOP_FACE_OF_PATCH of the patch, the ground lies round it.
    inner = round(faces.INPUT_PX * (1 - faces.TOP_FACE_OF_PATCH) / 2)
    assert as_flat[inner + 1, inner + 1].mean() > 200 and as_flat[1, 1].mean() < 120
    assert np.abs(as_flat.astype(int) - from_slant.astype(int)).mean() < 12


def test_a_large_top_face_keeps_its_pips_when_shrunk_to_the_patch():
    # A 2736 px photo's die is some 200 px across: warped straight to 20 px its pips alias away
    # (mean error 7.5 grey levels, up to 209), warped finer and averaged down each patch pixel
    # is the mean of the face's under it, as an area resize of the same square gives.
    face, (x, y, w, h) = draw_face(6, side=240, canvas=640)
    patch = faces.top_face_patch(face, ((x, y), (x + w, y), (x + w, y + h), (x, y + h)))
    half = round(w / faces.TOP_FACE_OF_PATCH / 2)
    cx, cy = x + w // 2, y + h // 2
    averaged = cv2.resize(face[cy - half:cy + half, cx - half:cx + half],
                          (faces.INPUT_PX, faces.INPUT_PX), interpolation=cv2.INTER_AREA)
    assert patch is not None
    assert np.abs(patch.astype(int) - averaged.astype(int)).mean() < 1


def test_a_top_face_4_px_across_or_more_is_warped():
    # faces.LEAST_TOP_FACE_AREA (16 px squared): at double it a 5 px face would not be.
    assert faces.top_face_patch(FRAME, ((10.0, 10.0), (15.0, 10.0), (15.0, 15.0),
                                        (10.0, 15.0))) is not None


@pytest.mark.parametrize("corners", [
    ((10.0, 10.0), (20.0, 20.0), (30.0, 30.0), (40.0, 40.0)),  # on a line
    ((10.0, 10.0), (13.0, 10.0), (13.0, 13.0), (10.0, 13.0)),  # under LEAST_TOP_FACE_AREA
    ((10.0, 10.0), (50.0, 50.0), (50.0, 10.0), (10.0, 50.0)),  # crossed: no face's outline
    ((-5.0, 10.0), (30.0, 10.0), (30.0, 40.0), (-5.0, 40.0)),  # past the frame's left edge
    ((170.0, 170.0), (201.0, 170.0), (201.0, 190.0), (170.0, 190.0)),  # past its right edge
    ((10.0, 10.0), (float("nan"), 10.0), (50.0, 50.0), (10.0, 50.0)),  # a broken network's
])
def test_corners_that_outline_no_face_give_no_patch_and_no_reading(corners):
    assert faces.top_face_patch(FRAME, corners) is None
    classifier = ScriptedClassifier([answer(4, 0.99)] * 4)
    square = ((20.0, 20.0), (60.0, 20.0), (60.0, 60.0), (20.0, 60.0))
    no_face, read = classifier.read_top_faces(FRAME, [corners, square])
    assert no_face is None
    assert read is not None and read.value == 4
    assert classifier.asked == [len(faces.VIEWS + faces.CLOSER_VIEWS)]  # one pass, every turn
