"""Shared fixtures: where the shared recorded image sets live, mock pins, broken weights.

The sets are read-only and lie beside the checkout (``../shared/datasets``) on developer machines
and in CI; ``PI_READER_DATASETS`` points elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from pi_reader.vision import weights
from pi_reader.vision.recorded import shared_sets_dir
from pi_reader.vision.stages import forget_loaded_networks

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    path = shared_sets_dir(REPO_ROOT)
    if not path.is_dir():
        pytest.fail(f"the shared data sets are missing at {path}; set PI_READER_DATASETS")
    return path


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    """gpiozero's mock pin factory, installed for one test and reset after it.

    Resetting releases every pin, so the next test can claim the same pins again
    (otherwise gpiozero raises GPIOPinInUse).
    """
    previous = Device.pin_factory
    mock = MockFactory()
    Device.pin_factory = mock
    yield mock
    mock.reset()
    Device.pin_factory = previous


@pytest.fixture
def broken_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[str, bytes], Path]:
    """Puts a file that is no network in place of one shipped weights file, for one test: call
    it with the file's name and its bytes; it returns the broken file's path. The networks an
    earlier test loaded are forgotten, since they would hide the file."""

    def install(name: str, content: bytes) -> Path:
        broken = tmp_path / name
        broken.write_bytes(content)
        forget_loaded_networks()
        shipped = weights.shipped
        monkeypatch.setattr(weights, "shipped",
                            lambda wanted: broken if wanted == name else shipped(wanted))
        return broken

    return install
