"""Whether each mode reads the top face of a doubtful die is chosen on that mode's validation
rolls by its rule, ties going to the reader without the look."""

from __future__ import annotations

from functools import partial
from types import SimpleNamespace
from typing import Any

import pytest

from pi_reader.vision import reader
from training import choose_top_faces, one_constant

from .one_constant_checks import assert_a_missing_shared_set_is_named_in_the_usage_message
from .test_choose_thresholds import figures


def candidate(calibrated: bool, switch: float, **sets: dict[str, float]) -> dict[str, Any]:
    return one_constant.entry(choose_top_faces.constant(calibrated=calibrated), switch, sets)


@pytest.mark.parametrize("calibrated", [True, False])
def test_the_look_is_kept_only_when_it_reads_more_and_ties_go_to_the_reader_without_it(
    calibrated
):
    name = "dr2val calibrated" if calibrated else "photos"
    chosen_constant = choose_top_faces.constant(calibrated=calibrated)
    better = [candidate(calibrated, 0.0, **{name: figures(0.90)}),
              candidate(calibrated, 1.0, **{name: figures(0.93)})]
    assert one_constant.choose(chosen_constant, better)["read_top_faces"] == 1.0
    tied = [candidate(calibrated, 0.0, **{name: figures(0.90)}),
            candidate(calibrated, 1.0, **{name: figures(0.90)})]
    assert one_constant.choose(chosen_constant, tied)["read_top_faces"] == 0.0


@pytest.mark.parametrize("calibrated", [True, False])
def test_each_switch_rereads_the_rolls_in_its_own_mode_and_the_shipped_one_is_put_back(
    monkeypatch, calibrated
):
    shipped = dict(reader.READ_TOP_FACES)
    seen = []

    def read_roll(image, calibration, removed):
        seen.append(dict(reader.READ_TOP_FACES))
        return reader.RollReading(dice=(), problems=())

    monkeypatch.setattr(reader, "read_roll", read_roll)
    monkeypatch.setattr(one_constant, "load_frame", lambda path: None)
    monkeypatch.setattr(one_constant, "score_frame", lambda frame, reading, seconds: None)
    monkeypatch.setattr(one_constant, "figures", lambda scores: figures(0.9))
    table = partial(one_constant.reread, choose_top_faces.constant(calibrated=calibrated),
                    partial(choose_top_faces.switched, calibrated), choose_top_faces.SWITCH)
    calibration = object() if calibrated else None
    table({"rolls": [(SimpleNamespace(path=None, removed=()), calibration)]})
    assert [s[calibrated] for s in seen] == [False, True]
    assert all(s[not calibrated] == shipped[not calibrated] for s in seen)
    assert shipped == reader.READ_TOP_FACES


def test_a_missing_shared_set_is_named_in_the_usage_message(capsys, tmp_path):
    assert_a_missing_shared_set_is_named_in_the_usage_message(
        choose_top_faces.main, capsys, str(tmp_path))
