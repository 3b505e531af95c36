"""How many random 4-player Qwixx games per second the rules engine plays on one core.

Every move goes through legal-move generation (``Game.legal_marks``) and is made with
``Game.play`` (which checks it again), the way a computer player searching ahead would drive the
engine: each player picks uniformly among its legal white marks and a pass, then the active player
among its legal colour marks and a pass. Dice come from a seeded generator, so a run is repeatable.

    python benchmarks/bench_rules.py [--games 2000] [--players 4] [--seed 1] [--repeats 5]
        [--json [PATH]]

Times are CPU seconds of this process (``time.process_time``), so other processes on a shared
machine do not count; it prints the best and the median of ``--repeats`` runs, the wall-clock
rate of the best run, the mean number of turns and how the games ended.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/result_file.py
from benchmarks.result_file import add_json_option, emit
from pi_reader.rules import Action, Game, Roll

TARGET_GAMES_PER_SECOND = 2000


def play_random_game(rng: random.Random, players: tuple[str, ...]) -> tuple[Game, int]:
    """One complete game with uniformly random legal choices, and the number of turns it took."""
    game = Game(players)
    draw = rng.random
    turns = 0
    while not game.over:
        turns += 1
        dice = [int(draw() * 6) + 1 for _ in range(6)]
        present = game.dice_in_play
        game.roll(
            Roll(
                dice[0],
                dice[1],
                dice[2] if "red" in present else None,
                dice[3] if "yellow" in present else None,
                dice[4] if "green" in present else None,
                dice[5] if "blue" in present else None,
            )
        )
        for player in players:
            marks = game.legal_marks(player, Action.WHITE)
            choice = int(draw() * (len(marks) + 1))
            if choice < len(marks):
                game.play(marks[choice])
        marks = game.legal_marks(game.active, Action.COLOUR)
        choice = int(draw() * (len(marks) + 1))
        if choice < len(marks):
            game.play(marks[choice])
        if not game.over:
            game.end_turn()
    return game, turns


def run(
    games: int, players: tuple[str, ...], seed: int
) -> tuple[float, float, list[tuple[Game, int]]]:
    """CPU seconds, wall seconds and the finished games of one run."""
    rng = random.Random(seed)
    cpu, wall = time.process_time(), time.perf_counter()
    finished = [play_random_game(rng, players) for _ in range(games)]
    return time.process_time() - cpu, time.perf_counter() - wall, finished


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per timing (default 2000)")
    parser.add_argument("--players", type=int, default=4, help="players per game (default 4)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the dice (default 1)")
    parser.add_argument("--repeats", type=int, default=5, help="timings to take (default 5)")
    add_json_option(parser)
    args = parser.parse_args()

    players = tuple(f"P{n + 1}" for n in range(args.players))
    timings = []
    for _ in range(args.repeats):
        cpu, wall, finished = run(args.games, players, args.seed)
        timings.append((cpu, wall))
    turns = statistics.mean(count for _, count in finished)
    endings = Counter(
        "a fourth penalty" if "penalty" in (game.end_reason or "") else "a second lock"
        for game, _ in finished
    )
    best, best_wall = min(timings)
    median = statistics.median(cpu for cpu, _ in timings)
    figures = {
        "games": args.games,
        "players": args.players,
        "seed": args.seed,
        "repeats": args.repeats,
        "best_games_per_cpu_second": round(args.games / best),
        "median_games_per_cpu_second": round(args.games / median),
        "best_us_per_game": round(best * 1e6 / args.games),
        "best_run_wall_games_per_second": round(args.games / best_wall),
        "turns_per_game": round(turns, 1),
        "endings": dict(endings.most_common()),
    }
    rate = f"{figures['best_games_per_cpu_second']:,} games/s of CPU time"
    if emit(
        args.json,
        "rules",
        "Rules engine: random games through legal-move generation",
        figures,
        tables=[
            {
                "caption": f"{args.games} random {args.players}-player games, seed {args.seed}, "
                f"best and median of {args.repeats} runs, CPU time of this process",
                "columns": ["best games/s", "median games/s", "µs per game", "wall games/s "
                            "(best run)", "turns per game"],
                "rows": [[
                    f"{figures['best_games_per_cpu_second']:,}",
                    f"{figures['median_games_per_cpu_second']:,}",
                    f"{figures['best_us_per_game']:,}",
                    f"{figures['best_run_wall_games_per_second']:,}",
                    f"{turns:.1f}",
                ]],
            }
        ],
        headline=[
            {
                "what": f"rules engine: random {args.players}-player games through legal-move "
                "generation, one core",
                "measured": rate,
                "target": f">= {TARGET_GAMES_PER_SECOND:,}",
            }
        ],
        notes="CPU time, so other work on a shared machine does not count; every move comes "
        "from legal_marks and is made through play, which checks it again.",
    ):
        return
    print(f"{args.games} random {args.players}-player games, seed {args.seed}, {args.repeats} runs")
    print(
        f"best:   {args.games / best:,.0f} games/s of CPU time "
        f"({best * 1e6 / args.games:,.0f} us per game; wall clock {args.games / best_wall:,.0f}/s)"
    )
    print(f"median: {args.games / median:,.0f} games/s of CPU time")
    print(
        f"turns per game: {turns:.1f}; ended by "
        + ", ".join(f"{why}: {count}" for why, count in endings.most_common())
    )


if __name__ == "__main__":
    main()
