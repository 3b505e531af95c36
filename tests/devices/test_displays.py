"""The displays: the fitting policy, the console box, the fake, and the LCD through RPLCD."""

from __future__ import annotations

import io

import pytest
import RPLCD.i2c

from pi_reader.devices.display import (
    ConsoleDisplay,
    Display,
    FakeDisplay,
    LcdDisplay,
    fit_lines,
)
from pi_reader.devices.errors import DeviceClosed, DisplayUnavailable


def test_fit_cuts_long_lines_and_drops_extra_rows() -> None:
    lines = ["white sum 7", "red 9 yellow 11 green 5", "third"]
    assert fit_lines(lines, 16, 2) == ("white sum 7", "red 9 yellow 11")


def test_fit_normalises_blank_tails_and_newlines() -> None:
    assert fit_lines(["7", "", ""], 16, 2) == ("7",)
    assert fit_lines(["a\nb"], 16, 2) == ("a b",)
    assert fit_lines([], 16, 2) == ()
    with pytest.raises(TypeError, match="sequence of lines"):
        fit_lines("seven", 16, 2)


def test_fake_display_records_fitted_screens() -> None:
    display = FakeDisplay(cols=16, rows=2)
    display.show(["white 7", "take out the red die now"])
    display.clear()
    assert display.screens == [("white 7", "take out the red"), ()]
    assert display.current == ()
    display.close()
    with pytest.raises(DeviceClosed):
        display.show(["x"])
    assert isinstance(display, Display)


def test_console_display_draws_a_box_once_per_change() -> None:
    stream = io.StringIO()
    display = ConsoleDisplay(cols=8, rows=2, stream=stream)
    display.show(["sum 7"])
    display.show(["sum 7", ""])  # the same screen: not drawn again
    display.show(["sum 12345678910"])
    assert stream.getvalue() == (
        "+--------+\n|sum 7   |\n|        |\n+--------+\n"
        "+--------+\n|sum 1234|\n|5678910 |\n+--------+\n"
    )


def test_the_console_shows_whole_messages_where_the_lcd_cuts_them() -> None:
    # Before: the console cut like the LCD ("Qwixx reader" / "ready. Players:", names lost).
    stream = io.StringIO()
    message = ["Qwixx reader", "ready. Players:", "ann and bob.", "New game. ann", "rolls first."]
    ConsoleDisplay(cols=16, rows=2, stream=stream).show(message)
    drawn = [line.strip("|").rstrip() for line in stream.getvalue().splitlines()[1:-1]]
    assert drawn == message
    assert fit_lines(message, 16, 2) == ("Qwixx reader", "ready. Players:")


class RecordingBus:
    """Stands in for smbus2.SMBus: records the bytes written to the PCF8574."""

    fail = False

    def __init__(self, port: int) -> None:
        if RecordingBus.fail:
            raise FileNotFoundError(2, "No such file or directory", f"/dev/i2c-{port}")
        self.port = port
        self.written: list[tuple[int, int]] = []

    def write_byte(self, address: int, value: int) -> None:
        if RecordingBus.fail:
            raise OSError(121, "Remote I/O error")
        self.written.append((address, value))

    def close(self) -> None:
        pass


@pytest.fixture
def bus(monkeypatch: pytest.MonkeyPatch) -> type[RecordingBus]:
    RecordingBus.fail = False
    monkeypatch.setattr(RPLCD.i2c, "SMBus", RecordingBus)
    return RecordingBus


def rows_written(bus: RecordingBus) -> int:
    """How many bytes reached the backpack so far (RPLCD's business what they are)."""
    return len(bus.written)


def test_lcd_writes_through_rplcd_to_its_address(bus: type[RecordingBus]) -> None:
    lcd = LcdDisplay(address=0x3F, port=1, cols=16, rows=2)
    lcd.show(["white 7", "red 9"])
    backpack = lcd._lcd.bus
    assert backpack.written and {address for address, _ in backpack.written} == {0x3F}
    before = rows_written(backpack)
    lcd.show(["white 7", "red 9"])  # nothing changed: nothing written
    assert rows_written(backpack) == before
    lcd.show(["white 7", "red 10"])  # one row changed: fewer bytes than a whole screen
    one_row = rows_written(backpack) - before
    lcd.show(["white 8", "red 11"])
    assert rows_written(backpack) - before - one_row > one_row
    lcd.close()
    lcd.close()
    with pytest.raises(DeviceClosed):
        lcd.show(["x"])


def test_lcd_missing_bus_is_unavailable(bus: type[RecordingBus]) -> None:
    bus.fail = True
    with pytest.raises(DisplayUnavailable, match=r"no LCD answers at I2C address 0x27 on bus 1"):
        LcdDisplay()


def test_lcd_that_drops_off_the_bus_and_comes_back(
    bus: type[RecordingBus], caplog: pytest.LogCaptureFixture
) -> None:
    lcd = LcdDisplay(cols=20, rows=4)
    lcd.show(["white 7"])
    bus.fail = True
    lcd.show(["gone"])  # no exception: the game goes on
    lcd.show(["still gone"])
    assert lcd.failures == 2
    assert len([r for r in caplog.records if "LCD write failed" in r.message]) == 1
    bus.fail = False
    lcd.show(["back"])
    assert lcd.failures == 2
    assert lcd._lcd is not None and lcd._shown == ["back", "", "", ""]
    lcd.close()
