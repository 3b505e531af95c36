"""Why the generator labels a top face unreadable: every rule on a die's description alone.

The descriptions are those ``training/blender_scene.py`` writes for each die (no Blender here):
the top face's corners and pips in pixels, whether each pip and each of the face's nine places
is seen, and the lean.
"""

from __future__ import annotations

import numpy as np
import pytest

from training import render_scenes
from training.pip_layouts import PLACES, values_fitting

FRAME = np.zeros((100, 100, 3), np.uint8)
ALL_SEEN = [True] * 9


def described(**changes: object) -> dict:
    """A flat two lying in the middle of a 100 px frame, every place on its face in view."""
    die = {"value": 2, "lean_deg": 1.0, "places_seen": ALL_SEEN,
           "top_face": [[40, 40], [60, 40], [60, 60], [40, 60]],
           "pips": [{"x": 44, "y": 44, "r": 2, "visible": True},
                    {"x": 56, "y": 56, "r": 2, "visible": True}]}
    return {**die, **changes}


def hiding(*cells: tuple[int, int]) -> list[bool]:
    """The nine places' flags with ``cells`` hidden."""
    return [place not in cells for place in PLACES]


def test_a_flat_face_in_view_with_clear_pips_is_readable():
    assert render_scenes.why_unreadable(FRAME, described(), contrast=60.0) is None


@pytest.mark.parametrize(
    ("changes", "contrast", "why"),
    [
        ({"lean_deg": 20.0}, 60.0, "cocked"),
        ({"pips": [{"x": 44, "y": 44, "r": 2, "visible": True},
                   {"x": 104, "y": 56, "r": 2, "visible": True}]}, 60.0, "outside the frame"),
        ({"pips": [{"x": 44, "y": 44, "r": 2, "visible": True},
                   {"x": 56, "y": 56, "r": 2, "visible": False}]}, 60.0, "pips hidden"),
        ({"places_seen": hiding((0, 0))}, 60.0, "fits 2, 3"),
        ({"top_face": [[40, 40], [45, 40], [45, 45], [40, 45]]}, 60.0, "too small"),
        ({}, 5.0, "washed out"),
    ],
)
def test_a_face_no_one_could_read_says_why(changes, contrast, why):
    assert why in render_scenes.why_unreadable(FRAME, described(**changes), contrast)


def test_a_two_whose_hidden_corner_no_other_value_needs_is_still_a_two():
    # The corners off its diagonal are empty on a two, and one of them in view rules out the
    # four, five and six: a hand over the other corner changes nothing (a dr2valg die).
    assert values_fitting(2, hiding((-1, 1))) == {2}
    assert render_scenes.why_unreadable(FRAME, described(places_seen=hiding((-1, 1))), 60.0) is None


@pytest.mark.parametrize(
    ("value", "hidden", "fitting"),
    [
        (1, (), {1}),
        (4, ((0, 0),), {4, 5}),
        (6, ((-1, 0), (1, 0)), {4, 6}),  # its middle pair hidden: a four, or a six either way
        (5, ((-1, -1), (1, 1)), {3, 5}),  # a five with one diagonal hidden may be a three
        (3, tuple(PLACES), {1, 2, 3, 4, 5, 6}),  # nothing in view
    ],
)
def test_the_values_a_partly_hidden_face_fits(value, hidden, fitting):
    assert values_fitting(value, hiding(*hidden)) == fitting


def test_a_face_has_nine_places():
    with pytest.raises(ValueError, match="9 places"):
        values_fitting(2, [True] * 8)
