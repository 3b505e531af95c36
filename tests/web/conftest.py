"""Fixtures of the web app's tests: appliance processes, the browser, the artefacts folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .harness import ARTEFACTS, CHROMIUM, ApplianceProcess


@pytest.fixture
def appliances() -> Iterator[list[ApplianceProcess]]:
    """Start appliances by appending to this list; all are stopped after the test."""
    started: list[ApplianceProcess] = []
    yield started
    for appliance in started:
        appliance.stop()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium chromium-driver")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-dev-shm-usage"]
        )
        yield launched
        launched.close()


@pytest.fixture
def artefacts() -> Path:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    return ARTEFACTS
