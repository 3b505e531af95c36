"""Shared fixtures: where the shared recorded image sets live.

The sets are read-only and lie beside the checkout (``../shared/datasets``) on developer machines
and in CI; ``PI_READER_DATASETS`` points elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from pi_reader.vision.recorded import shared_sets_dir

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
