"""The share of a die past the frame's edge from which its face is cut is chosen on the
calibrated validation rolls by the calibrated rule, ties going to the larger share."""

from __future__ import annotations

from typing import Any

from training import choose_edge, one_constant

from .test_choose_thresholds import figures


def candidate(share: float, calibrated: dict[str, float]) -> dict[str, Any]:
    return one_constant.entry(choose_edge.EDGE_CUT, share, {"dr2 calibrated": calibrated})


def choose(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return one_constant.choose(choose_edge.EDGE_CUT, entries)


def test_a_silently_wrong_roll_beyond_the_noise_outweighs_the_dice_a_smaller_share_refuses():
    strict = candidate(0.05, figures(0.90, silently_wrong=1))
    never = candidate(1.0, figures(0.96, silently_wrong=3))
    between = candidate(0.2, figures(0.94, silently_wrong=2))
    # the fewest is 1; one more is within the noise, two more are not
    assert choose([strict, between, never]) is between


def test_equal_figures_go_to_the_larger_share():
    same = figures(0.95, silently_wrong=0)
    entries = [candidate(0.1, same), candidate(0.3, same), candidate(0.2, same)]
    assert choose(entries)["edge_cut_share"] == 0.3


def test_every_candidate_is_read_and_the_shipped_share_is_among_them():
    from pi_reader.vision import reader

    assert reader.EDGE_CUT_SHARE in choose_edge.SHARES
    assert max(choose_edge.SHARES) >= 0.5  # "never cut": a die's centre is inside the frame
