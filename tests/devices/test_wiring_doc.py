"""hardware/WIRING.md agrees with the config defaults and with the Pi's header layout."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pi_reader.config import ButtonPins, LedPins

WIRING = Path(__file__).resolve().parents[2] / "hardware" / "WIRING.md"

# BCM GPIO number -> physical pin on the 40-pin header (the same on every Pi since the B+).
HEADER_PIN = {
    2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23, 12: 32, 13: 33,
    14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15, 23: 16, 24: 18,
    25: 22, 26: 37, 27: 13,
}  # fmt: skip
GROUND_PINS = {6, 9, 14, 20, 25, 30, 34, 39}


def table_rows(heading: str) -> dict[str, tuple[int, int]]:
    """name -> (BCM, header pin) from the first table after ``heading``."""
    section = WIRING.read_text().split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for match in re.finditer(r"^\| (\w+)\s*\| (\d+)\s*\| (\d+)\s*\|", section, re.MULTILINE):
        rows[match.group(1)] = (int(match.group(2)), int(match.group(3)))
    return rows


@pytest.mark.parametrize(
    ("heading", "defaults"), [("Lock LEDs", LedPins()), ("Buttons", ButtonPins())]
)
def test_pin_tables_match_the_defaults_and_the_header(
    heading: str, defaults: LedPins | ButtonPins
) -> None:
    rows = table_rows(heading)
    assert {name: bcm for name, (bcm, _) in rows.items()} == defaults.as_dict()
    for name, (bcm, header) in rows.items():
        assert HEADER_PIN[bcm] == header, f"{name}: BCM {bcm} is header pin {HEADER_PIN[bcm]}"


def test_ground_pins_named_are_ground() -> None:
    text = WIRING.read_text()
    for pin in re.findall(r"GND \(pin (\d+)\)", text):
        assert int(pin) in GROUND_PINS
