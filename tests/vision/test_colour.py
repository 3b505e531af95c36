"""Colour naming on real renders: calibration frames, rolls, a change of light, generic mode."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from pi_reader.rules import COLOURS
from pi_reader.vision import colour
from pi_reader.vision.calibration import MAX_NAMING_COST, MIN_NAMING_GAP
from pi_reader.vision.stages import default_stages
from pi_reader.vision.types import DIE_COLOURS, int_box

from .reader_frames import labelled, pixels, recorded

SET = "qwixx-rendered"


def relative_chromas(image, dice):
    boxes = [int_box(d.box) for d in dice]
    tray = colour.tray_chroma(image, boxes)
    return tray, [colour.die_pixel_chroma(*colour.die_pixels(image, b), tray) for b in boxes]


def found_boxes(image):
    """The dice the shipped networks find in a frame, as calibration takes them: what the
    detector finds and the face classifier takes for a die, as whole-pixel boxes."""
    stages = default_stages(calibrated=True)
    found = stages.find_dice(image)
    faces = stages.read_faces(image, [d.box for d in found])
    return [int_box(d.box) for d, face in zip(found, faces, strict=True) if face.is_die]


def centre(box):
    x, y, w, h = box
    return (x + w / 2, y + h / 2)


def label_under(frame, centre):
    (colour_name,) = [
        d.colour
        for d in frame.dice
        if d.box[0] <= centre[0] <= d.box[0] + d.box[2]
        and d.box[1] <= centre[1] <= d.box[1] + d.box[3]
    ]
    return colour_name


@pytest.mark.parametrize("scenario", [f"s{i:02d}" for i in range(8)])
def test_calibration_frames_are_named_right_or_refused_as_ambiguous(datasets_dir, scenario):
    # The dice as the shipped detector sees them; the labels only check the names. A naming
    # that two namings fit almost equally is refused (calibration.MIN_NAMING_GAP): what must
    # never happen is a wrong naming trusted.
    frame = labelled(datasets_dir, SET, f"{scenario}/calibration.jpg")
    image = pixels(frame)
    boxes = found_boxes(image)
    if len(boxes) != 6:
        return  # calibration refuses a frame without six dice (tested in test_calibration)
    tray = colour.tray_chroma(image, boxes)
    relative = [colour.die_pixel_chroma(*colour.die_pixels(image, b), tray) for b in boxes]
    naming = colour.name_six_dice(relative)
    trusted = naming.cost <= MAX_NAMING_COST and naming.gap >= MIN_NAMING_GAP
    assert not trusted or naming.names == [label_under(frame, centre(b)) for b in boxes]


def models_for(datasets_dir, scenario):
    frame = labelled(datasets_dir, SET, f"{scenario}/calibration.jpg")
    _, relative = relative_chromas(pixels(frame), frame.dice)
    return colour.learn_models([(d.colour, r) for d, r in zip(frame.dice, relative, strict=True)])


def roll_colours(image, dice, models):
    _, relative = relative_chromas(image, dice)
    return [colour.classify(r, models) for r in relative]


def test_roll_dice_are_named_by_the_models_learnt_at_calibration(datasets_dir):
    for scenario in ("s00", "s05"):  # daylight green table; 2900 K, glare, tilted camera
        models = models_for(datasets_dir, scenario)
        for frame in recorded(datasets_dir, SET).rolls():
            if frame.scenario != scenario:
                continue
            named = roll_colours(pixels(frame), frame.dice, models)
            assert [n for n, _ in named] == [d.colour for d in frame.dice], frame.image
            assert all(0.0 <= margin <= 1.0 for _, margin in named)


def test_naming_survives_a_change_of_light_colour_and_exposure_after_calibration(datasets_dir):
    # Calibrated under ~5400 K; the roll is re-lit warmer (red up, blue down) and darker.
    models = models_for(datasets_dir, "s00")
    frame = labelled(datasets_dir, SET, "s00/roll_001.jpg")
    warm = np.clip(pixels(frame).astype(np.float32) * (0.55, 0.8, 1.0), 0, 255).astype(np.uint8)
    named = roll_colours(warm, frame.dice, models)
    assert [n for n, _ in named] == [d.colour for d in frame.dice]


def test_a_colour_model_is_a_value():
    model = colour.ColourModel.learn(np.array([[0.5, -0.2], [0.4, -0.1]], np.float32))
    same = colour.ColourModel.from_json(model.to_json())
    assert model == colour.ColourModel(model.histogram.copy())
    assert hash(model) == hash(colour.ColourModel(model.histogram.copy()))
    assert model != colour.ColourModel.learn(np.array([[-0.5, 0.2]], np.float32))
    assert np.allclose(same.histogram, model.histogram, atol=1e-5)
    with pytest.raises(ValueError, match="read-only"):
        model.histogram[0, 0] = 1.0


def test_a_colour_model_round_trips_through_json_and_refuses_nonsense():
    model = colour.ColourModel.learn(np.array([[0.5, 0.1], [0.6, 0.0]], dtype=np.float32))
    again = colour.ColourModel.from_json(model.to_json())
    assert np.allclose(again.histogram, model.histogram, atol=1e-5)
    for bad in (
        None,
        {"bins": 3, "range": 2.0, "histogram": []},
        {**model.to_json(), "histogram": [[1.0]]},
        {**model.to_json(), "histogram": np.zeros((24, 24)).tolist()},
    ):
        with pytest.raises(ValueError):
            colour.ColourModel.from_json(bad)


def test_naming_needs_six_dice():
    with pytest.raises(colour.ColourError, match="exactly six dice, got 5"):
        colour.name_six_dice([np.zeros((4, 2))] * 5)
    with pytest.raises(colour.ColourError, match="exactly six dice, got 7"):
        colour.name_six_dice([np.zeros((4, 2))] * 6, [np.zeros((4, 2))] * 7)


def naming_one_white_point_at_a_time(relative, unclipped_first):
    """name_six_dice as its docstring tells it, one white point and one order at a time: the
    reference its one-pass arithmetic is held to."""
    costs = {}
    for references in (relative, unclipped_first):
        lit = [np.median(r[: max(1, int(len(r) * 0.3))], axis=0) for r in references]
        for whites in itertools.combinations(range(6), 2):
            white_point = (lit[whites[0]] + lit[whites[1]]) / 2.0
            spread = float(np.hypot(*(lit[whites[0]] - lit[whites[1]])))
            others = [i for i in range(6) if i not in whites]
            balanced = []
            for i in others:
                shifted = relative[i] - white_point
                strength = np.minimum(np.hypot(shifted[:, 0], shifted[:, 1]),
                                      np.hypot(relative[i][:, 0], relative[i][:, 1]))
                keep = max(1, int(len(strength) * 0.3))
                balanced.append(shifted[np.argsort(strength)[-keep:]].mean(axis=0))
            weak = sum(max(0.0, 0.3 - float(np.hypot(*b))) for b in balanced)
            hues = np.array([[math.degrees(math.atan2(b[1], b[0])) for b in balanced]])
            for order, error in zip(colour._ORDERS, colour._hue_errors(hues)[0], strict=True):
                names = ["white"] * 6
                for i, name in zip(others, order, strict=True):
                    names[i] = name
                cost = 4.0 * spread + float(error) / 90.0 + 4.0 * weak
                costs[tuple(names)] = min(cost, costs.get(tuple(names), math.inf))
    ranked = sorted(costs.items(), key=lambda item: item[1])
    return list(ranked[0][0]), ranked[0][1], ranked[1][1] - ranked[0][1]


@pytest.mark.parametrize("seed", range(5))
def test_six_dice_are_named_as_one_white_point_at_a_time_would_name_them(seed):
    rng = np.random.default_rng(seed)
    # Two whites and four coloured dice, one of them faint (its weakness is part of the cost).
    centres = [(0.02, 0.01), (-0.01, 0.02), (0.6, -0.1), (0.06, -0.08), (-0.4, -0.5), (-0.3, 0.5)]
    order = rng.permutation(6)
    relative = [rng.normal(centres[k], 0.08, (int(rng.integers(40, 400)), 2)).astype(np.float32)
                for k in order]
    unclipped_first = [r[rng.permutation(len(r))] for r in relative]
    naming = colour.name_six_dice(relative, unclipped_first)
    names, cost, gap = naming_one_white_point_at_a_time(relative, unclipped_first)
    assert naming.names == names
    # The pixels' chromas are float32, summed here in another order: equal within 1e-6.
    assert naming.cost == pytest.approx(cost, abs=1e-6)
    assert naming.gap == pytest.approx(gap, abs=1e-6)


@pytest.mark.parametrize(
    ("bgr", "name"),
    [
        ((235, 235, 235), "white"),
        ((40, 40, 220), "red"),
        ((30, 210, 240), "yellow"),
        ((70, 170, 40), "green"),
        ((220, 90, 40), "blue"),
        ((200, 40, 200), "unknown"),
    ],
)
def test_generic_mode_guesses_from_hue_or_says_unknown(bgr, name):
    chroma = tuple(colour.log_chroma(np.array(bgr, dtype=np.uint8)).tolist())
    guess, confidence = colour.generic_colour(chroma)
    assert guess == name
    assert 0.0 <= confidence <= 1.0


def test_the_four_hues_turn_together_by_at_most_30_degrees_not_one_colour_round_the_circle():
    # colour._MAX_HUE_TURN_DEG: the four coloured dice of the calibration frame of the dr2val
    # validation scene a00905, balanced by its whites, lie at these hues (its lamp pulls blue and
    # red toward each other). At double the allowance all four turned by up to 60 degrees fit
    # best one step round the circle (green, red, yellow, blue): 26 dr2val dice named wrong and a
    # silently wrong roll. At half no validation die is named otherwise (the next test holds it).
    hues = np.array([[-83.3, 47.1, 29.5, -128.7]])
    best = colour._ORDERS[int(np.argmin(colour._hue_errors(hues)[0]))]
    assert [str(c) for c in best] == ["yellow", "blue", "red", "green"]


def test_a_lamp_that_turns_all_four_hues_by_25_degrees_costs_the_right_naming_nothing():
    # colour._MAX_HUE_TURN_DEG (30): the hues of one colour spread 12 to 21 degrees over the
    # generated calibration frames (NOMINAL_HUES_DEG), so a lamp may turn all four by 25. At half
    # the allowance the right naming would pay 10 degrees a die for it.
    order = colour._ORDERS.index(tuple(COLOURS))
    turned = np.array([[colour.NOMINAL_HUES_DEG[c] + 25.0 for c in COLOURS]])
    assert colour._hue_errors(turned)[0, order] == pytest.approx(0.0, abs=1e-6)


def chroma_of(strength: float, hue_deg: float) -> tuple[float, float]:
    """A chroma (log R/G, log B/G) of that strength and hue."""
    return (strength * math.cos(math.radians(hue_deg)), strength * math.sin(math.radians(hue_deg)))


@pytest.mark.parametrize(("strength", "name"), [(0.13, "white"), (0.27, "red")])
def test_generic_mode_calls_a_die_white_under_a_chroma_of_0_18(strength, name):
    # colour._GENERIC_WHITE_CHROMA: on the labelled dice of the dr2val validation rolls, named
    # without a calibration, 94 % of the white dice have a chroma under 0.18 (59 % under 0.09)
    # and 0.5 % of the coloured ones (7 % under 0.36). At half of it the first probe would not
    # be white, at double the second (a faint red) would.
    assert colour.generic_colour(chroma_of(strength, colour.NOMINAL_HUES_DEG[colour.Colour.RED])
                                 )[0] == name


def test_generic_mode_names_a_die_whose_hue_is_30_degrees_off():
    # colour._GENERIC_MAX_HUE_ERROR_DEG (40): 9.9 % of the dr2val coloured dice named without a
    # calibration lie more than 20 degrees from their nominal hue, 1.2 % more than 40; at half of
    # it this probe would be unknown (magenta, above, is unknown at double).
    hue = colour.NOMINAL_HUES_DEG[colour.Colour.GREEN] + 30.0
    assert colour.generic_colour(chroma_of(0.6, hue))[0] == "green"


EXPECTED = ["white", "white", "red", "yellow", "green", "blue"]


def scores(best, second=None, gap=0.5):
    """Log-likelihoods where ``best`` wins, ``second`` trails by ``gap``, the rest far behind."""
    return {c: 0.0 if c == best else (-gap if c == second else -9.0) for c in DIE_COLOURS}


def test_joint_naming_keeps_a_white_die_white_when_green_is_taken():
    # A white die tinted by a green tray looks a little greener than white.
    dice = [
        scores("white"),
        scores("green", "white"),
        scores("red"),
        scores("yellow"),
        scores("green"),
        scores("blue"),
    ]
    assert colour.name_jointly(dice, EXPECTED) == EXPECTED


def test_joint_naming_names_the_missing_die_by_elimination():
    # The fourth die is a green one that looks a little red; red is already taken: blue is
    # the die missing, not green.
    dice = [
        scores("white"),
        scores("white"),
        scores("red"),
        scores("red", "green"),
        scores("yellow"),
    ]
    assert colour.name_jointly(dice, EXPECTED) == ["white", "white", "red", "green", "yellow"]


@pytest.mark.parametrize(("loss", "named_jointly"), [(1.0, True), (2.0, False)])
def test_joint_naming_overrules_a_die_only_for_a_loss_of_one_and_a_half(loss, named_jointly):
    # colour.MAX_JOINT_LOSS: on the 300 calibrated dr2val validation rolls the joint naming
    # overruled four dice, at a loss of 0.31 to 1.03, taking the dice whose colour was wrong from
    # 4 to 1 (at 0.75 the 1.03 one is lost: 3); a coloured die's own colour beats its second by
    # under 1.5 for 6 % of those dice and under 3 for 31 %, so an allowance of 3 would hide a
    # real second die as another colour a third of the time. At half of it the first probe (a
    # white die tinted green) would not be named jointly, at double the second (a second red
    # die where yellow is missing) would be called yellow.
    white_tinted = [scores("white"), scores("green", "white", gap=loss), scores("red"),
                    scores("yellow"), scores("green"), scores("blue")]
    second_red = [scores("white"), scores("white"), scores("red"),
                  scores("red", "yellow", gap=loss), scores("green"), scores("blue")]
    assert (colour.name_jointly(white_tinted, EXPECTED) == EXPECTED) is named_jointly
    assert (colour.name_jointly(second_red, EXPECTED) is not None) is named_jointly


def test_joint_naming_does_not_hide_a_real_second_red_die():
    dice = [
        scores("white"),
        scores("white"),
        scores("red"),
        scores("red", gap=5.0),
        scores("green"),
        scores("blue"),
    ]
    assert colour.name_jointly(dice, EXPECTED) is None
    assert colour.name_jointly([*dice, scores("white")], EXPECTED) is None


def test_a_loose_die_region_mostly_tray_gives_the_die_its_own_colour():
    # A blue die filling the middle of a region a long shadow made loose: three quarters of the
    # region is red tray, yet only the die's pixels are its colour.
    patch = np.full((40, 40, 3), (60, 60, 200), dtype=np.uint8)
    patch[10:30, 10:30] = (200, 90, 40)
    tray = tuple(colour.log_chroma(np.array((60, 60, 200), dtype=np.uint8)).tolist())
    relative = colour.die_pixel_chroma(patch, None, tray)
    assert len(relative) == 400
    assert colour.generic_colour(colour.summary_chroma(relative, tray))[0] == "blue"


def test_a_die_the_colour_of_the_tray_keeps_its_tray_like_pixels():
    patch = np.full((40, 40, 3), (60, 60, 200), dtype=np.uint8)
    patch[10:30, 10:30] = (62, 60, 205)  # a red die on a red tray
    patch[:5] = (200, 200, 200)  # and a pale strip of something else at the region's edge
    tray = tuple(colour.log_chroma(np.array((60, 60, 200), dtype=np.uint8)).tolist())
    relative = colour.die_pixel_chroma(patch, None, tray)
    assert len(relative) == 40 * 40


def test_clipped_last_puts_every_pixel_with_a_clipped_channel_after_the_others():
    patch = np.array([[(255, 250, 200), (180, 180, 180), (250, 255, 255), (90, 90, 90)]],
                     dtype=np.uint8)
    relative = colour.die_pixel_chroma(patch, None, (0.0, 0.0), clipped_last=True)
    first = colour.log_chroma(np.array((180, 180, 180), dtype=np.uint8))
    assert np.allclose(relative[0], first)


@pytest.mark.parametrize("scenario", ["s00", "s05"])
def test_dice_on_a_red_tray_are_named_under_a_warmer_lamp_that_clips_red(datasets_dir, scenario):
    # The render's white faces were at 255; a warmer lamp (red x1.1) leaves them clipped in red
    # alone, so their lit faces look bluish and no longer show the light's colour.
    frame = labelled(datasets_dir, "qwixx-rendered-more", f"{scenario}/calibration.jpg")
    gains = np.array((0.75, 0.95, 1.1), dtype=np.float32)
    image = np.clip(pixels(frame).astype(np.float32) * gains, 0, 255).astype(np.uint8)
    boxes = found_boxes(image)
    tray = colour.tray_chroma(image, boxes)
    regions = [colour.die_pixels(image, b) for b in boxes]
    naming = colour.name_six_dice(
        [colour.die_pixel_chroma(*r, tray) for r in regions],
        [colour.die_pixel_chroma(*r, tray, clipped_last=True) for r in regions],
    )
    assert naming.names == [label_under(frame, centre(b)) for b in boxes]
    assert naming.gap >= MIN_NAMING_GAP


def die_on_felt(die_bgr, felt_bgr, blend_px=5, side=30):
    """A die's region on a felt: its colour in the middle, a rim blending into the felt (a die's
    rounded edge, defocus) and felt in the corners, as a box round a die shows them."""
    region = np.empty((side, side, 3), dtype=np.float32)
    rows, cols = np.mgrid[0:side, 0:side]
    inset = np.minimum(np.minimum(rows, cols), np.minimum(side - 1 - rows, side - 1 - cols))
    die_share = np.clip(inset / blend_px, 0.0, 1.0)[..., None]
    region[:] = die_share * np.array(die_bgr) + (1.0 - die_share) * np.array(felt_bgr)
    return region.round().astype(np.uint8)


@pytest.mark.parametrize(
    "felt_bgr", [(70, 40, 200), (50, 30, 190), (180, 40, 200), (60, 150, 60)]
)
def test_six_dice_on_a_strongly_coloured_felt_are_named_by_their_own_colour(felt_bgr):
    # Red, deep red, magenta and green felts, a dull green die: the rim pixels half die and half
    # felt lie far from the white point in the felt's direction and must not name the die (they
    # turned a rendered calibration's red, yellow and green one place round the hue circle).
    dice = {"white": (225, 225, 230), "red": (50, 80, 225), "yellow": (40, 205, 225),
            "green": (90, 160, 80), "blue": (215, 140, 50)}
    names = ["white", "yellow", "red", "white", "blue", "green"]
    tray = tuple(colour.log_chroma(np.array(felt_bgr, dtype=np.uint8)).tolist())
    relative = [colour.die_pixel_chroma(die_on_felt(dice[n], felt_bgr), None, tray)
                for n in names]
    naming = colour.name_six_dice(relative)
    assert naming.names == names
    assert naming.gap >= MIN_NAMING_GAP


def die_with_a_clipped_top(side=40, rim_px=6, rim_bgr=(120, 60, 25), edge_bgr=(255, 244, 236)):
    """A blue die under a bright lamp, its box as the finder gives it: the top face clipped white
    in all three channels, its colour only on the shaded sides round it (about half as bright
    as the face), and a one-pixel ring of pale, nearly clipped blue where the two meet."""
    patch = np.full((side, side, 3), 255, dtype=np.uint8)
    inner = slice(rim_px, side - rim_px)
    patch[:rim_px], patch[-rim_px:] = rim_bgr, rim_bgr
    patch[:, :rim_px], patch[:, -rim_px:] = rim_bgr, rim_bgr
    patch[rim_px, inner], patch[side - rim_px - 1, inner] = edge_bgr, edge_bgr
    patch[inner, rim_px], patch[inner, side - rim_px - 1] = edge_bgr, edge_bgr
    return patch


def test_a_die_whose_colour_shows_only_on_its_shaded_sides_is_named_by_them():
    # colour._DARK_FRACTION (0.35) keeps pixels down to about a third of the die's bright level:
    # shaded sides half as bright as the face are colour. At double it the sides go and only
    # the pale ring is left, which names the die white (4 dr2val validation dice named wrong
    # against 1).
    pixels_of_die = colour.die_colour_pixels(die_with_a_clipped_top(), None, (0.0, 0.0))
    summary = colour.summary_chroma(pixels_of_die.chroma, (0.0, 0.0))
    assert colour.generic_colour(summary)[0] == "blue"


def test_pips_a_fifth_as_bright_as_the_face_carry_no_colour():
    # colour._DARK_FRACTION: the pips of a red die on green felt, dark grey with sensor noise,
    # have no hue worth the name; at half the fraction they would count as the die's colour.
    rng = np.random.default_rng(0)
    face = np.full((40, 40, 3), (40, 40, 220), dtype=np.float32)
    rows, cols = np.mgrid[0:40, 0:40]
    pips = np.zeros((40, 40), dtype=bool)
    for row, col in ((10, 10), (20, 20), (30, 30)):
        pips |= (rows - row) ** 2 + (cols - col) ** 2 <= 16
    face[pips] = np.array((45, 40, 42)) + rng.normal(0.0, 6.0, (int(pips.sum()), 3))
    felt = tuple(colour.log_chroma(np.array((60, 150, 60), dtype=np.uint8)).tolist())
    patch = np.clip(face, 0, 255).astype(np.uint8)
    assert len(colour.die_colour_pixels(patch, None, felt).chroma) == 40 * 40 - pips.sum()


def test_a_white_die_on_a_beige_table_is_told_from_the_table_through_sensor_noise():
    # colour._TRAY_RADIUS (0.12): a white die lies 0.21 from a beige table's chroma, and the
    # table's own pixels, with a sensor's noise of 4 levels, scatter about 0.03 round it. At
    # double the radius the die would look like table (all 1600 pixels kept as its colour), at
    # half about one table pixel in six would pass for die.
    rng = np.random.default_rng(0)
    table_bgr = np.array((150, 180, 200), dtype=np.float64)
    patch = np.clip(table_bgr + rng.normal(0.0, 4.0, (40, 40, 3)), 0, 255).astype(np.uint8)
    patch[10:30, 10:30] = (230, 230, 230)
    table = tuple(colour.log_chroma(table_bgr).tolist())
    assert 400 <= len(colour.die_colour_pixels(patch, None, table).chroma) <= 412
