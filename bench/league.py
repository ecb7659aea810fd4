"""Growth of the league's writes and reads with their size, measured in one run (issue 18, scale).

    .venv/bin/python bench/league.py                       # this tree against 119556d, 3 repeats
    .venv/bin/python bench/league.py --repeat 5 --baseline main
    .venv/bin/python bench/league.py --no-baseline         # this tree only
    .venv/bin/python bench/league.py --profile challenge --players 4000   # cProfile of one ladder result

Each tree (this one, and the baseline commit checked out as a git worktree under /tmp) runs in a
process of its own on a scratch PostgreSQL database it creates, migrates and drops (``--server-url``,
trust auth; Celery eager, no Redis). Figures (milliseconds, min and median of ``--repeat``; wall
time, because the database's share of the work is not this process's CPU; CPU in brackets):

ladder result (challenge)
    ``challenge_result_record``: an organiser records a challenger's win (swap) on a challenge
    ladder of N players; the challenge itself is issued before the clock starts.
ladder result (rating)
    ``league_game_finished`` of a finished two-player rated game on a rating ladder of N players who
    have played N results already (so ratings differ); the game is finished before the clock starts.
season start
    ``season_start`` of a league whose divisions make G games (divisions of 26 players: 325 games).
tournament standings
    ``league.tournaments.standings.tournament_standings`` of a Swiss event after 7 rounds (the
    higher seed wins, a draw in five), per read.

Growth ratio = figure at the larger size / figure at the smaller one (targets: ladder results <= 2x
for 100x the players; season start <= ~12x for 8x the games; standings <= 16x for 8x the players).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


# ---- the worker: runs inside one tree, on its own scratch database ----------------------------
def _setup(tree: Path, database_url: str) -> None:
    sys.path.insert(0, str(tree))
    os.environ["DATABASE_URL"] = database_url
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("KIFU_SECRET_KEY", uuid.uuid4().hex * 2)
    os.environ.setdefault("KIFU_DEBUG", "1")
    os.environ["DJANGO_SETTINGS_MODULE"] = "kifu.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _users(prefix: str, count: int) -> list:
    from django.contrib.auth import get_user_model

    user = get_user_model()
    made = user.objects.bulk_create([user(username=f"{prefix}{i}") for i in range(count)], batch_size=2000)
    if made and made[0].pk is None:  # not PostgreSQL: read them back
        made = list(user.objects.filter(username__startswith=prefix).order_by("pk"))
    return made


def _club(tag: str, count: int):
    from league import services
    from league.models import Membership

    organiser = _users(f"{tag}-org", 1)[0]
    club = services.club_create(name=f"Club {tag}", slug=f"c-{tag}", by=organiser, now=T0)
    members = _users(f"{tag}-m", count)
    Membership.objects.bulk_create(
        [Membership(club=club, user=m, role="member", status="active", created_at=T0, joined_at=T0) for m in members],
        batch_size=2000,
    )
    return club, organiser, members


def _append_many(ladder, events: list[tuple[str, dict, datetime]]) -> None:
    """Bulk-append events to a ladder's log with the real hash chain (seeding only)."""
    from league.models import LadderEvent
    from league.services.log import ladder_event_hash

    rows, seq, head = [], ladder.head_seq, ladder.head_hash
    for kind, payload, at in events:
        seq += 1
        head = ladder_event_hash(head, seq, kind, payload, None, at)
        rows.append(LadderEvent(ladder=ladder, seq=seq, kind=kind, payload=payload, actor=None, at=at, hash=head))
    LadderEvent.objects.bulk_create(rows, batch_size=2000)
    ladder.head_seq, ladder.head_hash = seq, head
    ladder.save(update_fields=["head_seq", "head_hash"])


def seed_ladder(kind: str, count: int, tag: str):
    """A ladder of ``count`` players (joined through the log; a rating ladder also has ``count``
    random results so that ratings differ), its projection built once."""
    import random

    from league import services
    from league.scoring import ladder as rules
    from league.services.log import ladder_rebuild

    club, organiser, members = _club(tag, count)
    settings = {"rematch_cooldown_days": 0, "inactivity_days": 0} if kind == rules.CHALLENGE else {}
    ladder = services.ladder_create(
        club_id=club.pk, by=organiser, engine="nine-card", kind=kind, settings=settings, now=T0
    )
    events = [(rules.PLAYER_JOINED, {"player": m.pk}, T0 + timedelta(seconds=i)) for i, m in enumerate(members)]
    if kind == rules.RATING:
        rng = random.Random(count)
        at = T0 + timedelta(days=1)
        for i in range(count):
            a, b = rng.sample(members, 2)
            payload = {"ranking": [[a.pk], [b.pk]], "rated": True, "source": "game", "game": str(uuid.uuid4())}
            events.append((rules.RESULT, payload, at + timedelta(seconds=i)))
    _append_many(ladder, events)
    ladder_rebuild(ladder_id=ladder.pk)
    ladder.refresh_from_db()
    return ladder, organiser, members


def _positions(ladder) -> list[int]:
    from league.models import LadderEntry

    return list(
        LadderEntry.objects.filter(ladder=ladder, position__isnull=False)
        .order_by("position")
        .values_list("user_id", flat=True)
    )


def challenge_result_runs(count: int, repeat: int, *, profile: bool = False):
    """Time ``challenge_result_record`` (a challenger's win) on a challenge ladder of ``count``."""
    from django.contrib.auth import get_user_model

    from league import services

    ladder, organiser, members = seed_ladder("challenge", count, f"ch{count}")
    users = {m.pk: m for m in members}
    order = _positions(ladder)
    now = T0 + timedelta(days=2)
    times = []
    for run in range(repeat + 1):  # the first run warms up
        place = len(order) // 2 + run * 3
        challenger, defender = users[order[place]], users[order[place - 1]]
        challenge = services.challenge_create(ladder_id=ladder.pk, by=challenger, defender=defender, now=now)
        times.append(
            _timed(
                lambda c=challenge, w=challenger, t=now: services.challenge_result_record(
                    challenge_id=c.pk, by=organiser, winner=w, now=t
                ),
                profile=profile and run == repeat,
            )
        )
        now += timedelta(minutes=5)
    del get_user_model
    return times[1:]


def rating_result_runs(count: int, repeat: int, *, profile: bool = False):
    """Time ``league_game_finished`` of a finished rated game on a rating ladder of ``count``."""
    from games import services as game_services
    from games.signals import game_finished
    from league import services
    from league.receivers import on_game_finished

    game_finished.disconnect(on_game_finished, dispatch_uid="league.on_game_finished")  # the timed call records it
    ladder, organiser, members = seed_ladder("rating", count, f"rt{count}")
    now = T0 + timedelta(days=3)
    times = []
    for run in range(repeat + 1):
        a, b = members[run * 2], members[run * 2 + 1]
        link = services.rated_game_create(ladder_id=ladder.pk, by=organiser, players=[a, b], now=now)
        game_services.move_submit(
            game_id=link.game_id, user=b, move={"type": "resign"}, idempotency_key=uuid.uuid4().hex
        )
        game_services.game_advance(game_id=link.game_id)
        times.append(
            _timed(
                lambda g=link.game_id, t=now: services.league_game_finished(game_id=g, now=t),
                profile=profile and run == repeat,
            )
        )
        now += timedelta(minutes=5)
    return times[1:]


DIVISION = 26  # players per division: a double round robin of 26 is 650 games


def season_start_runs(games: int, repeat: int, *, profile: bool = False):
    """Time ``season_start`` of a league of double round robins of 26 whose season makes about
    ``games`` games (650 per division); a fresh league each run, no warm-up run (the first is
    as cold as the others: the same club, engine and code paths ran during seeding)."""
    from league.seasons import services as seasons
    from league.seasons.models import LeaguePlayer

    divisions = max(1, round(games / (DIVISION * (DIVISION - 1))))
    club, organiser, members = _club(f"se{games}", divisions * DIVISION)
    times = []
    for run in range(repeat):
        league = seasons.league_create(
            club_id=club.pk, by=organiser, name=f"L{run}", engine="nine-card", cycles=2, divisions=divisions, now=T0
        )
        LeaguePlayer.objects.bulk_create(
            [LeaguePlayer(league=league, user=m, added_at=T0 + timedelta(seconds=i)) for i, m in enumerate(members)]
        )
        try:
            times.append(
                _timed(
                    lambda lg=league: seasons.season_start(league_id=lg.pk, by=organiser, now=T0),
                    profile=profile and run == repeat - 1,
                )
            )
        except Exception as error:  # the old code refuses large seasons
            return {"refused": getattr(error, "code", repr(error))}
    return times


def standings_runs(count: int, repeat: int, *, profile: bool = False):
    """Time ``league.tournaments.standings.standings_rows`` of a Swiss event of ``count`` players
    after 7 rounds (paired top-down by score, the lower number wins, every fifth board drawn),
    its boards written in bulk (no games: standings read the boards)."""
    from league.models import Tournament, TournamentBoard, TournamentEntry, TournamentRound
    from league.tournaments import lifecycle
    from league.tournaments.standings import standings_rows

    club, organiser, members = _club(f"sw{count}", count)
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name=f"Swiss {count}", engine="nine-card", format="swiss", rounds=7, now=T0
    )
    TournamentEntry.objects.bulk_create(
        [TournamentEntry(tournament=tournament, user=m, number=i + 1, created_at=T0) for i, m in enumerate(members)]
    )
    number = {m.pk: i + 1 for i, m in enumerate(members)}
    score = dict.fromkeys(number, 0.0)
    boards = []
    for round_number in range(1, 8):
        order = sorted(score, key=lambda p: (-score[p], number[p]))
        for board, index in enumerate(range(0, len(order) - 1, 2), start=1):
            a, b = sorted(order[index : index + 2], key=number.get)
            first = 0.5 if board % 5 == 0 else 1.0
            score[a] += first
            score[b] += 1.0 - first
            boards.append(
                TournamentBoard(
                    tournament=tournament,
                    round=round_number,
                    number=board,
                    first_id=a,
                    second_id=b,
                    players=[a, b],
                    score_first=first,
                    points={str(a): first, str(b): 1.0 - first},
                    placements=[[a, b]] if first == 0.5 else [[a], [b]],
                    decided_by="game",
                    finished_at=T0 + timedelta(days=round_number),
                )
            )
    TournamentBoard.objects.bulk_create(boards, batch_size=2000)
    TournamentRound.objects.bulk_create(
        [TournamentRound(tournament=tournament, number=n, created_at=T0 + timedelta(days=n)) for n in range(1, 8)]
    )
    Tournament.objects.filter(pk=tournament.pk).update(status="running", current_round=7, rounds=7, started_at=T0)
    tournament.refresh_from_db()
    times = []
    for run in range(repeat + 1):
        times.append(_timed(lambda: standings_rows(tournament), profile=profile and run == repeat))
    return times[1:]


def _timed(call, *, profile: bool = False) -> tuple[float, float]:
    profiler = cProfile.Profile() if profile else None
    wall, cpu = time.perf_counter(), time.process_time()
    if profiler:
        profiler.enable()
    call()
    if profiler:
        profiler.disable()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if profiler:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(60)
        print(out.getvalue(), file=sys.stderr)
    return wall * 1000, cpu * 1000


WORKLOADS = {
    "challenge": challenge_result_runs,
    "rating": rating_result_runs,
    "season": season_start_runs,
    "standings": standings_runs,
}
# (workload, smaller size, larger size, target ratio, what the size counts)
PAIRS = [
    ("challenge", 100, 10_000, 2.0, "players"),
    ("rating", 100, 10_000, 2.0, "players"),
    ("season", 1_300, 10_400, 12.0, "games"),
    ("standings", 250, 2_000, 16.0, "players"),
]


def worker(args) -> None:
    """Run in one tree on a scratch database; print one JSON line of measurements."""
    import psycopg

    name = f"kifu_bench_league_{os.getpid()}"
    admin = args.server_url
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    try:
        _setup(Path(args.tree), admin.rsplit("/", 1)[0] + "/" + name)
        results = {}
        for spec in args.measure:
            workload, size = spec.split(":")
            results[spec] = WORKLOADS[workload](int(size), args.repeat, profile=args.profile_run)
        print(json.dumps(results))
    finally:
        from django.db import connections

        connections.close_all()
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


# ---- the driver ---------------------------------------------------------------------------------
def run_tree(tree: Path, measure: list[str], args, *, profile: bool = False) -> dict:
    command = [sys.executable, __file__, "--worker", "--tree", str(tree), "--repeat", str(args.repeat)]
    command += ["--server-url", args.server_url, "--measure", *measure]
    if profile:
        command.append("--profile-run")
    done = subprocess.run(command, capture_output=True, text=True, cwd=tree)
    if profile:
        print(done.stderr[-12000:])
    if done.returncode:
        raise SystemExit(f"worker in {tree} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def baseline_tree(commit: str) -> Path:
    """A git worktree of ``commit`` under /tmp (made once, reused), using this tree's .venv."""
    sha = subprocess.run(["git", "rev-parse", "--short", commit], capture_output=True, text=True, cwd=HERE, check=True)
    path = Path(f"/tmp/kifu-bench-{sha.stdout.strip()}")
    if not path.exists():
        subprocess.run(["git", "worktree", "add", "--detach", str(path), commit], cwd=HERE, check=True)
    return path


def summary(times: list) -> str:
    walls, cpus = [t[0] for t in times], [t[1] for t in times]
    return f"{min(walls):8.1f} {statistics.median(walls):8.1f} ({statistics.median(cpus):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", default="119556d")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--server-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--profile", choices=sorted(WORKLOADS))
    parser.add_argument("--players", type=int, default=1000, help="the size of --profile's workload")
    parser.add_argument("--only", nargs="*", choices=sorted(WORKLOADS), help="measure only these workloads")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tree", default=str(HERE), help=argparse.SUPPRESS)
    parser.add_argument("--measure", nargs="*", default=[], help=argparse.SUPPRESS)
    parser.add_argument("--profile-run", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    tree = Path(args.tree)
    if args.profile:
        result = run_tree(tree, [f"{args.profile}:{args.players}"], args, profile=True)
        print(result)
        return
    pairs = [pair for pair in PAIRS if not args.only or pair[0] in args.only]
    measure = [f"{name}:{size}" for name, small, large, _t, _w in pairs for size in (small, large)]
    trees = [("this tree", tree)]
    if not args.no_baseline:
        trees.append((f"old ({args.baseline})", baseline_tree(args.baseline)))
    figures = {}
    for label, path in trees:
        print(f"measuring {label} ({path}) ...", flush=True)
        figures[label] = run_tree(path, measure, args)
    print(f"\nms per call, wall: min median (CPU median); {args.repeat} repeats; ratio = larger / smaller (medians)")
    print(f"{'workload':<11} {'tree':<16} {'smaller':>28} {'larger':>28} {'ratio':>7} {'target':>7}")
    for name, small, large, target, what in pairs:
        for label, _path in trees:
            got = figures[label]
            a, b = got[f"{name}:{small}"], got[f"{name}:{large}"]
            cells = []
            for size, times in ((small, a), (large, b)):
                text = f"refused ({times['refused']})" if isinstance(times, dict) else summary(times)
                cells.append(f"{size:>6} {what[:4]}: {text}")
            ratio = (
                statistics.median(t[0] for t in b) / statistics.median(t[0] for t in a)
                if isinstance(a, list) and isinstance(b, list)
                else float("nan")
            )
            print(f"{name:<11} {label:<16} {cells[0]:>28} {cells[1]:>28} {ratio:>6.1f}x {target:>6.0f}x")


if __name__ == "__main__":
    main()
