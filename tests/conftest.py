"""Shared fixtures: where the shared recorded image sets live.

The sets are read-only and lie beside the checkout (``../shared/datasets``) on developer machines
and in CI; ``PI_READER_DATASETS`` points elsewhere.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

REPO_ROOT = Path(__file__).resolve().parent.parent


def shared_datasets_dir() -> Path:
    """The folder holding the shared recorded sets."""
    configured = os.environ.get("PI_READER_DATASETS")
    return Path(configured) if configured else REPO_ROOT.parent / "shared" / "datasets"


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    path = shared_datasets_dir()
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
