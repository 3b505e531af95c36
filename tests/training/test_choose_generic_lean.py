"""The lean from which a die is cocked without a calibration is chosen on the generic validation
rolls by the generic rule, ties going to the smaller lean (the one refusing first)."""

from __future__ import annotations

from typing import Any

from pi_reader.vision import reader
from training import choose_generic_lean, one_constant

from .one_constant_checks import (
    assert_a_missing_shared_set_is_named_in_the_usage_message,
    assert_every_value_rereads_the_rolls_and_the_shipped_one_is_put_back,
)
from .test_choose_thresholds import figures


def candidate(lean: float, **sets: dict[str, float]) -> dict[str, Any]:
    return one_constant.entry(choose_generic_lean.GENERIC_COCKED_LEAN, lean, sets)


def choose(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return one_constant.choose(choose_generic_lean.GENERIC_COCKED_LEAN, entries)


def test_more_dice_right_win_and_equal_figures_go_to_the_smaller_lean():
    entries = [candidate(6.0, photos=figures(0.88)), candidate(10.0, photos=figures(0.92)),
               candidate(15.0, photos=figures(0.92)), candidate(90.0, photos=figures(0.92))]
    assert choose(entries)["generic_cocked_lean_deg"] == 10.0


def test_only_the_generic_sets_choose():
    # A calibrated set read better at another lean does not move the choice.
    entries = [candidate(6.0, photos=figures(0.95), **{"dr2val calibrated": figures(0.80)}),
               candidate(90.0, photos=figures(0.90), **{"dr2val calibrated": figures(0.99)})]
    chosen = choose(entries)
    assert chosen["generic_cocked_lean_deg"] == 6.0
    result = one_constant.result(choose_generic_lean.GENERIC_COCKED_LEAN, entries, chosen)
    assert result["figures"]["chosen"] == {"generic": {"generic_cocked_lean_deg": 6.0}}


def test_every_lean_rereads_the_rolls_and_the_shipped_one_is_put_back(monkeypatch):
    assert_every_value_rereads_the_rolls_and_the_shipped_one_is_put_back(
        monkeypatch, choose_generic_lean.table, reader, "GENERIC_COCKED_LEAN_DEG",
        choose_generic_lean.LEAN_DEGS)


def test_a_missing_shared_set_is_named_in_the_usage_message(capsys, tmp_path):
    assert_a_missing_shared_set_is_named_in_the_usage_message(
        choose_generic_lean.main, capsys, str(tmp_path))
