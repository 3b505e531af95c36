"""The lean from which a die is cocked is chosen on the calibrated validation rolls by the
calibrated rule, ties going to the smaller lean."""

from __future__ import annotations

from typing import Any

from training import choose_lean, one_constant

from .test_choose_thresholds import figures


def candidate(lean_deg: float, calibrated: dict[str, float]) -> dict[str, Any]:
    return one_constant.entry(choose_lean.COCKED_LEAN, lean_deg, {"dr2 calibrated": calibrated})


def choose(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return one_constant.choose(choose_lean.COCKED_LEAN, entries)


def test_a_silently_wrong_roll_beyond_the_noise_outweighs_the_dice_a_lower_lean_refuses():
    strict = candidate(8.0, figures(0.90, silently_wrong=1))
    loose = candidate(25.0, figures(0.96, silently_wrong=3))
    between = candidate(14.0, figures(0.94, silently_wrong=2))
    # the fewest is 1; one more is within the noise, two more are not
    assert choose([strict, between, loose]) is between


def test_equal_figures_go_to_the_smaller_lean():
    same = figures(0.95, silently_wrong=0)
    entries = [candidate(20.0, same), candidate(11.0, same), candidate(14.0, same)]
    assert choose(entries)["cocked_lean_deg"] == 11.0


def test_the_result_names_the_choice_and_tabulates_every_candidate():
    entries = [candidate(11.0, figures(0.9)), candidate(14.0, figures(0.95))]
    chosen = choose(entries)
    result = one_constant.result(choose_lean.COCKED_LEAN, entries, chosen)
    assert result["figures"]["chosen"] == {"calibrated": {"cocked_lean_deg": 14.0}}
    assert [row[0] for row in result["tables"][0]["rows"]] == ["11", "14"]
