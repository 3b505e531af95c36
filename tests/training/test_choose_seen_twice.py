"""The share of the smaller box from which two found boxes are one die is chosen on the generic
validation rolls by the generic rule, ties going to the larger share (the one dropping fewer)."""

from __future__ import annotations

from typing import Any

import pytest

from pi_reader.vision import finding
from training import choose_seen_twice, one_constant

from .one_constant_checks import (
    assert_a_missing_shared_set_is_named_in_the_usage_message,
    assert_every_value_rereads_the_rolls_and_the_shipped_one_is_put_back,
)
from .test_choose_thresholds import figures


def candidate(share: float, **sets: dict[str, float]) -> dict[str, Any]:
    return one_constant.entry(choose_seen_twice.SEEN_TWICE, share, sets)


def choose(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return one_constant.choose(choose_seen_twice.SEEN_TWICE, entries)


def test_fewer_invented_dice_win_and_equal_figures_go_to_the_larger_share():
    seen_once = {**figures(0.90), "phantom_rate": 0.01}
    seen_twice = {**figures(0.90), "phantom_rate": 0.05}
    entries = [candidate(0.4, photos=seen_once), candidate(0.6, photos=seen_once),
               candidate(1.1, photos=seen_twice)]
    assert choose(entries)["seen_twice"] == 0.6


def test_only_the_generic_sets_choose():
    # A calibrated set read better at another share does not move the choice.
    entries = [candidate(0.4, photos=figures(0.95), **{"dr2val calibrated": figures(0.80)}),
               candidate(0.6, photos=figures(0.90), **{"dr2val calibrated": figures(0.99)})]
    assert choose(entries)["seen_twice"] == 0.4
    result = one_constant.result(choose_seen_twice.SEEN_TWICE, entries, choose(entries))
    assert result["figures"]["chosen"] == {"generic": {"seen_twice": 0.4}}


def test_every_share_rereads_the_rolls_and_the_shipped_one_is_put_back(monkeypatch):
    assert_every_value_rereads_the_rolls_and_the_shipped_one_is_put_back(
        monkeypatch, choose_seen_twice.table, finding, "SEEN_TWICE", choose_seen_twice.SHARES)


def test_a_missing_shared_set_is_named_in_the_usage_message(capsys, tmp_path):
    assert_a_missing_shared_set_is_named_in_the_usage_message(
        choose_seen_twice.main, capsys, str(tmp_path))


def test_an_out_file_whose_folder_cannot_be_made_is_refused_before_anything_is_read(
        capsys, tmp_path):
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    with pytest.raises(SystemExit):
        choose_seen_twice.main(["--datasets", str(tmp_path / "nowhere"), "--out",
                                str(tmp_path / "a-file" / "seen_twice.json")])
    assert "its folder cannot be made" in capsys.readouterr().err
