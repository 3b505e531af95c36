"""``pi-reader players``: computer-player tournaments and solo series from seeded dice.

    pi-reader players tournament --games 200 --players lookahead,heuristic,heuristic,heuristic
    pi-reader players solo --games 1000 lookahead --seed 3
"""

from __future__ import annotations

import argparse
import sys

from pi_reader.players.match import solo_scores, tournament
from pi_reader.players.registry import STRATEGIES, UnknownStrategy, strategy
from pi_reader.players.stats import mean_interval

MIN_SEATS, MAX_SEATS = 2, 5


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "players", help="computer players: tournaments and solo series from seeded dice"
    )
    commands = parser.add_subparsers(dest="players_command", metavar="SUBCOMMAND", required=True)
    names = ", ".join(STRATEGIES)

    tour = commands.add_parser(
        "tournament",
        help="self-play games; mean score and win rate with 95%% intervals per seat",
    )
    tour.add_argument("--games", type=int, required=True, help="number of games")
    tour.add_argument(
        "--players", required=True, help=f"comma-separated strategies, 2 to 5 seats ({names})"
    )
    tour.add_argument("--seed", type=int, default=0, help="dice seed (default 0)")
    tour.set_defaults(func=run_tournament)

    solo = commands.add_parser("solo", help="solo games (one player, always active)")
    solo.add_argument("strategy", help=f"the strategy ({names})")
    solo.add_argument("--games", type=int, required=True, help="number of games")
    solo.add_argument("--seed", type=int, default=0, help="dice seed (default 0)")
    solo.set_defaults(func=run_solo)


def _fail(message: str) -> int:
    print(f"pi-reader players: {message}", file=sys.stderr)
    return 2


def run_tournament(args: argparse.Namespace) -> int:
    if args.games <= 0:
        return _fail(f"--games must be at least 1, not {args.games}")
    names = [name.strip() for name in args.players.split(",")]
    if not MIN_SEATS <= len(names) <= MAX_SEATS:
        return _fail(f"a tournament seats {MIN_SEATS} to {MAX_SEATS} players, not {len(names)}")
    try:
        seats = [strategy(name) for name in names]
    except UnknownStrategy as error:
        return _fail(str(error))
    results = tournament(seats, args.games, args.seed)
    print(f"{args.games} games, {len(seats)} players, seed {args.seed} (first player rotates)")
    print(f"{'seat':<5}{'strategy':<12}{'mean score (95% CI)':<26}win rate (95% CI)")
    for result in results:
        score, wins = result.score, result.win_rate
        print(
            f"{result.seat:<5}{result.strategy:<12}"
            f"{score.estimate:6.1f} [{score.low:6.1f}, {score.high:6.1f}]     "
            f"{wins.estimate:6.1%} [{wins.low:6.1%}, {wins.high:6.1%}]"
        )
    return 0


def run_solo(args: argparse.Namespace) -> int:
    if args.games <= 0:
        return _fail(f"--games must be at least 1, not {args.games}")
    try:
        player = strategy(args.strategy)
    except UnknownStrategy as error:
        return _fail(str(error))
    scores = solo_scores(player, args.games, args.seed)
    mean = mean_interval([float(s) for s in scores])
    print(
        f"{player.name}: {args.games} solo games, seed {args.seed}: mean score {mean.estimate:.1f} "
        f"[95% CI {mean.low:.1f}, {mean.high:.1f}], min {min(scores)}, max {max(scores)}"
    )
    return 0
