"""The lean from which a die is cocked is chosen on the calibrated validation rolls by the
calibrated rule without its allowance for noise, ties going to the smaller lean."""

from __future__ import annotations

from typing import Any

from training import choose_lean, one_constant

from .test_choose_thresholds import figures


def candidate(lean_deg: float, calibrated: dict[str, float]) -> dict[str, Any]:
    return one_constant.entry(choose_lean.COCKED_LEAN, lean_deg, {"dr2 calibrated": calibrated})


def choose(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return one_constant.choose(choose_lean.COCKED_LEAN, entries)


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


def test_no_silently_wrong_roll_above_the_fewest_is_allowed_for_the_dice_a_higher_lean_reads():
    # The cut's only work is to keep cocked dice out: one wrong roll more is not noise to it,
    # as it is to the value thresholds' rule.
    strict = candidate(4.0, figures(0.914, silently_wrong=1))
    looser = candidate(5.0, figures(0.920, silently_wrong=2))
    loosest = candidate(14.0, figures(0.96, silently_wrong=3))
    assert choose([loosest, looser, strict]) is strict


def test_the_result_states_the_rule_without_the_allowance():
    entries = [candidate(4.0, figures(0.9)), candidate(5.0, figures(0.95))]
    result = one_constant.result(choose_lean.COCKED_LEAN, entries, choose(entries))
    assert result["figures"]["rule"].startswith(
        "the fewest silently wrong calibrated validation rolls any candidate reaches, then")
