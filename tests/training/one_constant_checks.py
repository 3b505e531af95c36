"""Checks every single-constant chooser (``training/one_constant.py``) owes: it rereads the
rolls at each of its values and puts the shipped one back, and names a missing shared set."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from pi_reader.vision import reader
from training import one_constant

from .test_choose_thresholds import figures


def assert_every_value_rereads_the_rolls_and_the_shipped_one_is_put_back(
    monkeypatch: pytest.MonkeyPatch, table: Callable[[dict[str, Any]], Any], module: ModuleType,
    name: str, values: Sequence[float],
) -> None:
    """``table`` reads one roll once at each of ``values`` of ``module.name``, in order, and
    leaves the shipped value in place."""
    seen = []

    def read_roll(image, calibration, removed):
        seen.append(getattr(module, name))
        return reader.RollReading(dice=(), problems=())

    shipped = getattr(module, name)
    monkeypatch.setattr(reader, "read_roll", read_roll)
    monkeypatch.setattr(one_constant, "load_frame", lambda path: None)
    monkeypatch.setattr(one_constant, "score_frame", lambda frame, reading, seconds: None)
    monkeypatch.setattr(one_constant, "figures", lambda scores: figures(0.9))
    table({"photos": [(SimpleNamespace(path=None, removed=()), None)]})
    assert seen == list(values)
    assert shipped == getattr(module, name)


def assert_a_missing_shared_set_is_named_in_the_usage_message(
    main: Callable[[list[str]], int], capsys: pytest.CaptureFixture[str], folder: str,
) -> None:
    """``main`` given a datasets folder without the shared sets stops, naming the first."""
    with pytest.raises(SystemExit):
        main(["--datasets", folder])
    assert "the shared set real-d6-overhead is missing" in capsys.readouterr().err
