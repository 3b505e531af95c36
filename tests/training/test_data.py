"""Which generated scenes a training run or the threshold chooser loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from training import choose_thresholds
from training.data import scene_limits

SETS = [Path("/renders/dr1"), Path("/renders/dr2")]


def test_no_limit_given_loads_every_scene():
    assert scene_limits(SETS, []) == [None, None]


def test_one_limit_is_every_sets_limit():
    assert scene_limits(SETS, [446]) == [446, 446]


def test_one_limit_per_set_is_taken_in_order():
    assert scene_limits(SETS, [485, 134]) == [485, 134]


def test_limits_that_match_neither_way_are_refused_with_a_message():
    with pytest.raises(ValueError, match="--scenes given 3 times for 2 generated sets"):
        scene_limits(SETS, [1, 2, 3])


def test_the_chooser_gives_its_usage_message_for_mismatched_limits(capsys):
    with pytest.raises(SystemExit):
        choose_thresholds.main(["--datasets", "/nowhere", "--generated", "/renders/dr1",
                                "--generated", "/renders/dr2", "--scenes", "1", "--scenes", "2",
                                "--scenes", "3"])
    assert "--scenes given 3 times for 2 generated sets" in capsys.readouterr().err
