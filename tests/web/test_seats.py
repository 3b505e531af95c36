"""Seat tokens: new for each game, kept for a resumed one, never taken from a bad file."""

from __future__ import annotations

import stat
from pathlib import Path

from pi_reader.web.seats import SEATS_FILE, Seats


def test_a_resumed_game_keeps_its_links_and_a_new_game_gets_new_ones(tmp_path: Path) -> None:
    first = Seats.for_game(tmp_path, ["ann", "bob"], resumed=False)
    assert stat.S_IMODE((tmp_path / SEATS_FILE).stat().st_mode) == 0o600
    assert Seats.for_game(tmp_path, ["ann", "bob"], resumed=True).tokens == first.tokens
    fresh = Seats.for_game(tmp_path, ["ann", "bob"], resumed=False)
    assert set(fresh.tokens.values()).isdisjoint(first.tokens.values())
    assert fresh.seat_of(fresh.token_of("bob")) == "bob"
    assert fresh.seat_of(first.token_of("bob")) is None and fresh.seat_of(None) is None


def test_tokens_for_other_players_or_a_damaged_file_are_not_used(tmp_path: Path) -> None:
    Seats.for_game(tmp_path, ["ann", "bob"], resumed=False)
    assert set(Seats.for_game(tmp_path, ["ann", "cid"], resumed=True).tokens) == {"ann", "cid"}
    (tmp_path / SEATS_FILE).write_text("{torn")
    seats = Seats.for_game(tmp_path, ["ann", "cid"], resumed=True)
    assert all(len(token) >= 8 for token in seats.tokens.values())
    (tmp_path / SEATS_FILE).write_text('{"tokens": {"ann": "short", "cid": "x"}}')
    assert Seats.for_game(tmp_path, ["ann", "cid"], resumed=True).token_of("ann") != "short"
