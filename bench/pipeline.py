"""The move pipeline end to end, against PostgreSQL's own speed, in one run (issue 14 point 4, issue 25).

    .venv/bin/python bench/pipeline.py                 # 24 games, 16 clients, 30 s (about 3 minutes)
    .venv/bin/python bench/pipeline.py --repeat 3      # the stack measurement 3 times: min, median (4.5 min)
    .venv/bin/python bench/pipeline.py --quick         # 12 games, 8 clients, 10 s: under 3 minutes
    .venv/bin/python bench/pipeline.py --mode poll     # clients poll legal-moves (as before /api/me/turns)
    .venv/bin/python bench/pipeline.py --games 24 --clients 16 --seconds 30 --web-workers 2 --web-threads 8 \\
        --pool prefork --concurrency 2 --prefetch 1 --server-url postgres://postgres@127.0.0.1:5432/postgres \\
        --redis-db 12

Needs PostgreSQL (the server of ``--server-url``, trust auth), Redis and ``pgbench``. Everything it
starts it stops: gunicorn, the Celery worker and beat run in sessions of their own and are killed
with their children at exit (also on an exception, Ctrl-C or SIGTERM); both scratch databases are
dropped and its Redis database (``--redis-db``, 12 by default: tests use 15, arena_stack 4,
api_moves 14) is flushed. Nothing here is a test; the machine is noisy (2 cores), so compare runs
with ``--repeat``.

What each figure means (all measured in this run, on this machine):

pgbench
    TPS of a one-row INSERT (``pgbench -n -f script -c C -j 2 -T secs``) on a scratch database, with
    C = ``--clients``: what the database does with the same concurrency and no application.
stack
    gunicorn (``--web-workers`` x ``--web-threads``), a Celery worker (``--pool``,
    ``--concurrency``, ``--prefetch``; unset: the settings' or Celery's default) on its own queue,
    beat, a migrated scratch database. ``--games`` Nine Card games are played at once by
    ``--clients`` client threads (a ``requests.Session`` each, keep-alive) through the public API
    only. Accounts and games are made before the clock starts; a game that ends is replaced by a
    new one for the same two accounts (that POST is inside the clock). Each client plays one account
    and finds its turns in one of two ways (``--mode``):
    turns (the default): ``GET /api/me/turns?wait=2`` - the account's turns in all its games at
    once, answered as soon as it may act somewhere - then a random legal move in each game listed,
    each with ``POST /api/games/{id}/moves?wait=5``; a held game missing from the answer is
    checked (``GET /api/games/{id}``) and, once finished, replaced.
    poll (as before; works against commits without ``/api/me/turns``): the client loops over the
    games it holds a seat in, takes one whose ``legal-moves`` is not empty and submits a random
    legal move with ``POST /api/games/{id}/moves?wait=5``.
    moves/s: validated moves (decided: accepted 200 or rejected 422) whose verdict came back inside
    the measured seconds (after a warm-up), divided by those seconds.
    p50/p95/p99: submit -> verdict latency of those moves, measured by the client.
    ratio: moves/s : pgbench TPS (issue 14's target: >= 0.03).
    CPU ms per move: CPU time (user + system) that the web processes, the Celery worker and the
    scratch database's PostgreSQL backends spent during the measured seconds, per validated move.
    It depends less than moves/s on what else the machine runs, but it does depend on it (the same
    code took ~24 ms per move at load average 15 and ~20 ms on a quiet machine: contended cores do
    less per CPU second), so compare trees run one right after the other. The web's CPU is also given per
    HTTP request: in ``--mode poll`` a client polls ``legal-moves`` while its opponent thinks, so the
    requests per move grow with the verdict latency; in ``--mode turns`` a request waits instead.
in-process
    The same kind of moves (Nine Card, random legal) applied in this process through
    ``games.services``: ``move_submit`` (stores the submission, queues the task on Redis; no worker
    runs then) + ``game_advance`` (what the worker does), against the same scratch database after
    the stack has stopped. No HTTP, no worker: ms per move is the floor of the pipeline.
workers 1 vs 2
    The stack measurement again (shorter), with the worker restarted at concurrency 1 and then 2:
    moves of different games in parallel - does it scale?
windows (issue 25)
    Satori games (2 seats, ``katsu_window_seconds`` 1) in which nobody answers a katsu window, so
    every played card opens a window that the timer closes. The deadline is read from
    ``GET /api/games/{id}`` while the window is open; the ``close_window`` system event's
    ``created_at`` comes from ``GET /api/games/{id}/events``. Lateness = created_at - deadline_at:
    p50/p95/max (and min: a negative one would be a window closed early), idle (only these games)
    and under load (while the move-load clients play).
receipt lag (issue 25)
    For every submission: the stored ``received_at`` returned in the submission JSON minus the
    client's wall-clock time just before it sent the request (same machine, same clock): idle
    (the window games' moves, nothing else running) and under load (the move-load's moves).

The last line is always ``pipeline: moves_per_s=X p50_ms=Y p99_ms=Z pgbench_tps=W ratio=R`` (the
median over ``--repeat`` runs).
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import stackbench as sb

WAIT = 5  # ?wait= seconds of each move request
TURNS_WAIT = 2  # ?wait= seconds of each GET /api/me/turns (--mode turns)
LOAD_ENGINE, LOAD_CONFIG = "nine-card", {}
WINDOW_ENGINE, WINDOW_CONFIG = "satori", {"katsu_window_seconds": 1}
ANSWERS = ("katsu", "decline_katsu", "declare_satori")  # a window probe never answers, never ends the game


def say(*parts, end: str = "\n") -> None:
    print(*parts, end=end, flush=True)


def parse_time(value) -> float | None:
    """An API timestamp (ISO 8601, ``Z`` or an offset) as epoch seconds."""
    if not value:
        return None
    return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()


def fmt_ms(value: float) -> str:
    if value != value:  # NaN
        return "nan"
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.1f}"


def spread(values_ms: list[float]) -> str:
    if not values_ms:
        return "no samples"
    parts = [f"p{q}={fmt_ms(sb.percentile(values_ms, q))}" for q in (50, 95)]
    return f"{' '.join(parts)} max={fmt_ms(max(values_ms))} min={fmt_ms(min(values_ms))} ms (n={len(values_ms)})"


# ---- CPU spent per validated move ----------------------------------------------------------------
def _cpu_by_pid(match) -> dict[int, float]:
    """CPU seconds (user + system, all threads) of every process for which ``match(pgrp, cmdline)``."""
    tick = os.sysconf("SC_CLK_TCK")
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
            fields = stat[stat.rindex(")") + 2 :].split()
            pgrp = int(fields[2])
            if not match(pgrp, lambda pid=entry: Path(f"/proc/{pid}/cmdline").read_bytes()):
                continue
            found[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    return found


class CpuMeter:
    """CPU seconds the stack spends while a phase runs: the web processes (gunicorn's process
    group), the Celery worker's, and the PostgreSQL backends serving the scratch database (those
    alive at the phase's end). It moves less than moves/s with what else the shared machine runs
    (though contended cores do less per CPU second), so trees run back to back compare by it."""

    def __init__(self, stack, database: str) -> None:
        self.stack, self.database = stack, f" {database} ".encode()

    def read(self) -> dict[str, dict[int, float]]:
        web, worker = self.stack.web.popen.pid, self.stack.worker.popen.pid
        return {
            "web": _cpu_by_pid(lambda pgrp, cmdline: pgrp == web),
            "worker": _cpu_by_pid(lambda pgrp, cmdline: pgrp == worker),
            "db": _cpu_by_pid(lambda pgrp, cmdline: self.database in cmdline().replace(b"\0", b" ")),
        }

    @staticmethod
    def spent(before: dict, after: dict) -> dict[str, float]:
        return {
            part: sum(max(cpu - before[part].get(pid, 0.0), 0.0) for pid, cpu in after[part].items()) for part in after
        }


# ---- a) pgbench -------------------------------------------------------------------------------
def pgbench_binary() -> str:
    found = shutil.which("pgbench") or next(iter(sorted(glob.glob("/usr/lib/postgresql/*/bin/pgbench"))[::-1]), None)
    if not found:
        raise SystemExit("pgbench not found (install the PostgreSQL client)")
    return found


def pgbench_tps(server_url: str, clients: int, seconds: int, cleanup: sb.Cleanup) -> float:
    """One-row INSERT TPS with ``clients`` clients on a scratch database made and dropped here."""
    from urllib.parse import urlsplit

    import psycopg

    url = sb.scratch_url(server_url, "kifu_pgbench")
    sb.create_database(url)
    cleanup.add("drop the pgbench database", lambda: sb.drop_database(url))
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE rows (id bigserial PRIMARY KEY, v integer NOT NULL, at timestamptz DEFAULT now())")
    script = Path(tempfile.mkdtemp(prefix="kifu-pgbench-")) / "insert.sql"
    script.write_text("INSERT INTO rows (v) VALUES (1);\n")
    parts = urlsplit(url)
    argv = [pgbench_binary(), "-n", "-f", str(script), "-c", str(clients), "-j", str(min(2, clients))]
    argv += ["-T", str(seconds), "-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 5432)]
    argv += ["-U", parts.username or "postgres", sb.database_name(url)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=seconds + 120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        shutil.rmtree(script.parent, ignore_errors=True)
    match = re.search(r"tps = ([0-9.]+)", output)
    if proc.returncode != 0 or not match:
        raise RuntimeError(f"pgbench failed ({proc.returncode}):\n{output}")
    sb.drop_database(url)
    return float(match.group(1))


# ---- the games ----------------------------------------------------------------------------------
class Slot:
    """One of the games kept going at once: two accounts; when their game ends they start another."""

    def __init__(self, base_url: str, engine: str, config: dict, players: list[tuple[str, str]]) -> None:
        self.base_url, self.engine, self.config, self.players = base_url, engine, config, players
        self.lock = threading.Lock()
        self.game: str = ""
        self.games: list[str] = []

    def start(self, session) -> str:
        body = {"engine": self.engine, "config": self.config, "seats": [name for name, _ in self.players]}
        response = session.post(
            f"{self.base_url}/api/games", json=body, headers=sb.auth(self.players[0][1]), timeout=WAIT + 30
        )
        if response.status_code != 201:
            raise RuntimeError(f"POST /api/games: {response.status_code} {response.text[:300]}")
        game = response.json()["id"]
        for _, token in self.players[1:]:  # the other seats were invitations: each player accepts
            url = f"{self.base_url}/api/games/{game}/accept"
            accepted = session.post(url, headers=sb.auth(token), timeout=WAIT + 30)
            if accepted.status_code != 200:
                raise RuntimeError(f"POST /api/games/{game}/accept: {accepted.status_code} {accepted.text[:300]}")
        self.game = game
        self.games.append(self.game)
        return self.game

    def renew(self, finished: str, session) -> None:
        """The game ``finished`` is over: start the next one (once, whoever notices first)."""
        with self.lock:
            if self.game == finished:
                self.start(session)


@dataclass
class Record:
    sent: float  # wall clock just before sending (time.time)
    start: float  # perf_counter before sending
    end: float  # perf_counter when the verdict (or the 202/error) came back
    outcome: str  # accepted | rejected | pending | error
    received_at: float | None = None  # the stored receipt time (epoch seconds), when returned
    status: int = 0


def submit(session, base_url: str, game: str, token: str, move: dict) -> Record:
    body = {"move": move, "idempotency_key": uuid.uuid4().hex}
    url = f"{base_url}/api/games/{game}/moves"
    sent, start = time.time(), time.perf_counter()
    try:
        response = session.post(url, json=body, params={"wait": WAIT}, headers=sb.auth(token), timeout=WAIT + 30)
    except Exception:
        return Record(sent, start, time.perf_counter(), "error")
    end = time.perf_counter()
    submission = None
    outcome = "error"
    try:
        data = response.json()
    except ValueError:
        data = None
    if response.status_code == 200:
        outcome, submission = "accepted", data
    elif response.status_code == 422 and isinstance(data, dict) and isinstance(data.get("submission"), dict):
        outcome, submission = "rejected", data["submission"]
    elif response.status_code == 202:
        outcome, submission = "pending", data
    received = parse_time(submission.get("received_at")) if isinstance(submission, dict) else None
    return Record(sent, start, end, outcome, received, response.status_code)


class Client(threading.Thread):
    """A move-load client: loops over its seats, submits where ``legal-moves`` is not empty."""

    def __init__(self, base_url: str, seats: list[tuple[Slot, int]], stop: threading.Event, seed: int) -> None:
        super().__init__(daemon=True)
        self.base_url, self.seats, self.stop = base_url, seats, stop
        self.rng = random.Random(seed)
        self.records: list[Record] = []
        self.recent: deque[float] = deque(maxlen=16)
        self.failures: list[str] = []
        self.answered: list[float] = []  # when each HTTP answer came (every request: polls too)

    def stall_limit(self) -> float:
        """How long a game may show no legal move and no new event before we ask if it is over:
        a few verdict latencies (an opponent is usually that far behind), at least 0.1 s."""
        return max(0.1, 3 * sb.median(self.recent)) if self.recent else 0.5

    def run(self) -> None:
        import requests

        session = requests.Session()
        session.hooks["response"].append(lambda response, **kwargs: self.answered.append(time.perf_counter()))
        stalled: dict[int, tuple[str, int, float]] = {}
        pause = 0.002
        try:
            while not self.stop.is_set():
                progressed = False
                for index, (slot, seat) in enumerate(self.seats):
                    if self.stop.is_set():
                        break
                    game, token = slot.game, slot.players[seat][1]
                    response = session.get(
                        f"{self.base_url}/api/games/{game}/legal-moves", headers=sb.auth(token), timeout=30
                    )
                    if response.status_code != 200:
                        self.failures.append(f"legal-moves {response.status_code}")
                        time.sleep(0.05)
                        continue
                    data = response.json()
                    if not data.get("moves"):
                        now, mark = time.perf_counter(), stalled.get(index)
                        if mark is None or mark[:2] != (game, data.get("head_seq")):
                            stalled[index] = (game, data.get("head_seq"), now)
                        elif now - mark[2] > self.stall_limit():
                            stalled.pop(index)
                            url = f"{self.base_url}/api/games/{game}"
                            detail = session.get(url, headers=sb.auth(token), timeout=30)
                            if detail.ok and detail.json()["status"] == "finished":
                                slot.renew(game, session)
                        continue
                    stalled.pop(index, None)
                    record = submit(session, self.base_url, game, token, self.rng.choice(data["moves"]))
                    self.records.append(record)
                    if record.outcome in ("accepted", "rejected"):
                        self.recent.append(record.end - record.start)
                    progressed = True
                if progressed:
                    pause = 0.002
                else:
                    self.stop.wait(pause)
                    pause = min(pause * 2, 0.02)
        except Exception as error:  # a client that dies says why; the others go on
            self.failures.append(repr(error))


class TurnsClient(Client):
    """A move-load client of ``--mode turns``: asks ``GET /api/me/turns?wait=`` (its account's turns
    in all its games at once, waiting for one) and submits a random legal move in each game listed
    (in random order). A held game missing from the answer has ended or is being replaced: the
    client asks that game's status and starts the next game of a finished one."""

    def run(self) -> None:
        import requests

        session = requests.Session()
        session.hooks["response"].append(lambda response, **kwargs: self.answered.append(time.perf_counter()))
        token = self.seats[0][0].players[self.seats[0][1]][1] if self.seats else ""
        try:
            while not self.stop.is_set():
                response = session.get(
                    f"{self.base_url}/api/me/turns", params={"wait": TURNS_WAIT}, headers=sb.auth(token), timeout=30
                )
                if response.status_code != 200:
                    self.failures.append(f"turns {response.status_code}")
                    self.stop.wait(0.05)
                    continue
                data = response.json()
                running = {item["game"] for item in (*data["turns"], *data["waiting"])}
                for slot, _ in self.seats:
                    game = slot.game
                    if game not in running:
                        detail = session.get(f"{self.base_url}/api/games/{game}", headers=sb.auth(token), timeout=30)
                        if detail.ok and detail.json()["status"] == "finished":
                            slot.renew(game, session)
                turns = list(data["turns"])
                self.rng.shuffle(turns)
                for turn in turns:
                    if self.stop.is_set():
                        break
                    record = submit(session, self.base_url, turn["game"], token, self.rng.choice(turn["moves"]))
                    self.records.append(record)
        except Exception as error:  # a client that dies says why; the others go on
            self.failures.append(repr(error))


class WindowProbe(threading.Thread):
    """Plays one Satori slot and never answers a katsu window: each played card opens a window that
    only the timer closes. Notes each window's deadline and each move's receipt lag."""

    def __init__(self, base_url: str, slot: Slot, stop: threading.Event, seed: int) -> None:
        super().__init__(daemon=True)
        self.base_url, self.slot, self.stop = base_url, slot, stop
        self.rng = random.Random(seed)
        self.deadlines: dict[tuple[str, str], float] = {}
        self.records: list[Record] = []
        self.failures: list[str] = []

    def get_game(self, session, game: str) -> dict:
        url, token = f"{self.base_url}/api/games/{game}", self.slot.players[0][1]
        response = session.get(url, headers=sb.auth(token), timeout=30)
        response.raise_for_status()
        return response.json()

    def run(self) -> None:
        import requests

        session = requests.Session()
        try:
            while not self.stop.is_set():
                game = self.slot.game
                detail = self.get_game(session, game)
                if detail["status"] == "finished":
                    self.slot.renew(game, session)
                    continue
                window = detail.get("window")
                if window and window.get("deadline_at"):
                    self.watch(session, game, window["id"], parse_time(window["deadline_at"]))
                    continue
                if not detail.get("actors"):
                    time.sleep(0.01)
                    continue
                seat = detail["actors"][0]
                token = self.slot.players[seat][1]
                response = session.get(f"{self.base_url}/api/games/{game}/legal-moves", headers=sb.auth(token))
                moves = response.json().get("moves", []) if response.ok else []
                choices = [m for m in moves if m["type"] == "play_card"]
                choices = choices or [m for m in moves if m["type"] not in ANSWERS]
                if not choices:
                    time.sleep(0.01)
                    continue
                self.records.append(submit(session, self.base_url, game, token, self.rng.choice(choices)))
        except Exception as error:
            self.failures.append(repr(error))

    def watch(self, session, game: str, window: str, deadline: float) -> None:
        """Wait out the window (its close is what is measured), then return; a window once seen is
        followed to its close even when the phase is over, so it counts in the phase it opened in."""
        self.deadlines[(game, window)] = deadline
        ahead = deadline - time.time()
        if ahead > 0:
            time.sleep(ahead)
        give_up = time.monotonic() + 30
        while time.monotonic() < give_up:
            current = self.get_game(session, game).get("window")
            if not current or current.get("id") != window:
                return
            time.sleep(0.01)
        self.failures.append(f"window {window} of {game} still open 30 s after its deadline")


def close_lateness(base_url: str, probes: list[WindowProbe]) -> tuple[list[float], int]:
    """Lateness (ms) of every close_window event of a window the probes saw open, and how many
    seen windows had no close_window event (closed otherwise, or not at all)."""
    import requests

    session = requests.Session()
    late, unclosed = [], 0
    for probe in probes:
        token = probe.slot.players[0][1]
        for game in sorted({game for game, _ in probe.deadlines}):
            closes: dict[str, float] = {}
            after = 0
            while True:
                params = {"after": after, "limit": 1000}
                response = session.get(f"{base_url}/api/games/{game}/events", params=params, headers=sb.auth(token))
                response.raise_for_status()
                events = response.json()
                for event in events:
                    data = event.get("data") or {}
                    if event.get("kind") == "system" and str(data.get("type", "")).startswith("close"):
                        closes.setdefault(data.get("window", ""), parse_time(event["created_at"]))
                if len(events) < 1000:
                    break
                after = events[-1]["seq"]
            for (g, window), deadline in probe.deadlines.items():
                if g != game:
                    continue
                if window in closes:
                    late.append((closes[window] - deadline) * 1000)
                else:
                    unclosed += 1
    return late, unclosed


# ---- a run of the stack -------------------------------------------------------------------------
@dataclass
class Phase:
    seconds: float
    records: list[Record] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds by part (CpuMeter), if metered
    requests: int = 0  # HTTP requests the move-load clients had answered in the measured seconds

    @property
    def decided(self) -> list[Record]:
        return [r for r in self.records if r.outcome in ("accepted", "rejected")]

    def moves_per_s(self) -> float:
        return len(self.decided) / self.seconds

    def latency_ms(self) -> list[float]:
        return [(r.end - r.start) * 1000 for r in self.decided]

    def lag_ms(self) -> list[float]:
        return [(r.received_at - r.sent) * 1000 for r in self.records if r.received_at is not None]

    def cpu_ms_per_move(self) -> dict[str, float]:
        moves = len(self.decided)
        return {part: seconds * 1000 / moves for part, seconds in self.cpu.items()} if moves else {}

    def counts(self) -> str:
        outcomes = [r.outcome for r in self.records]
        return " ".join(f"{name}={outcomes.count(name)}" for name in ("accepted", "rejected", "pending", "error"))


MODE = {"poll": Client, "turns": TurnsClient}  # --mode: how the move-load clients find their turns


def play(
    base_url: str, assignment, seconds: float, warmup: float, probe_slots=(), seed: int = 0, meter=None, mode="turns"
):
    """Run the move-load clients (and window probes on ``probe_slots``) for ``warmup + seconds``;
    the phase holds the moves whose verdict came back inside the measured ``seconds``."""
    stop = threading.Event()
    clients = [MODE[mode](base_url, seats, stop, seed * 1000 + i) for i, seats in enumerate(assignment)]
    probes = [WindowProbe(base_url, slot, stop, seed * 1000 + 500 + i) for i, slot in enumerate(probe_slots)]
    for thread in (*clients, *probes):
        thread.start()
    try:
        time.sleep(warmup)
        cpu_before = meter.read() if meter else None
        begin = time.perf_counter()
        time.sleep(seconds)
        end = time.perf_counter()
        cpu = CpuMeter.spent(cpu_before, meter.read()) if meter else {}
    finally:
        stop.set()
        for thread in (*clients, *probes):
            thread.join(WAIT + 40)
    phase = Phase(end - begin, cpu=cpu)
    for client in clients:
        phase.records += [r for r in client.records if begin <= r.end <= end]
        phase.requests += sum(1 for moment in client.answered if begin <= moment <= end)
        phase.failures += client.failures
    for probe in probes:
        phase.failures += probe.failures
    return phase, probes


def idle_windows(base_url: str, probe_slots, seconds: float, seed: int):
    """Only the window probes: lateness of closes and receipt lag with nothing else running."""
    stop = threading.Event()
    probes = [WindowProbe(base_url, slot, stop, seed * 1000 + i) for i, slot in enumerate(probe_slots)]
    for probe in probes:
        probe.start()
    try:
        time.sleep(seconds)
    finally:
        stop.set()
        for probe in probes:
            probe.join(WAIT + 40)
    return probes


# ---- c) in process ------------------------------------------------------------------------------
def in_process(seconds: float, seed: int) -> tuple[int, float]:
    """Nine Card moves through ``services.move_submit`` + ``services.game_advance`` in this process:
    (moves, seconds spent in those two calls)."""
    from django.contrib.auth import get_user_model

    from games import services
    from games.engines import REGISTRY
    from games.models import Game

    rng = random.Random(seed)
    User = get_user_model()
    engine = REGISTRY[LOAD_ENGINE]
    users = [User.objects.create_user(username=f"i{uuid.uuid4().hex[:10]}") for _ in range(2)]
    moves, spent = 0, 0.0
    wall_end = time.perf_counter() + seconds * 3  # the games' setup is outside the clock
    while spent < seconds and time.perf_counter() < wall_end:
        game = services.game_create(
            engine_slug=LOAD_ENGINE, config=dict(LOAD_CONFIG), seats=users, created_by=users[0], consent=True
        )
        while spent < seconds:
            game = Game.objects.get(pk=game.pk)
            if game.status == "finished" or game.state is None:
                break
            state = engine.load_state(game.state)
            for seat in sorted(engine.actors(state)):
                move = rng.choice(engine.legal_moves(state, seat))
                start = time.perf_counter()
                services.move_submit(game_id=game.pk, user=users[seat], move=move, idempotency_key=uuid.uuid4().hex)
                services.game_advance(game_id=game.pk)
                spent += time.perf_counter() - start
                moves += 1
    return moves, spent


# ---- main ---------------------------------------------------------------------------------------
QUICK = {"games": 12, "clients": 8, "seconds": 10, "warmup": 1, "pgbench_seconds": 5, "scale_seconds": 5}
QUICK |= {"window_seconds": 8, "window_games": 3, "in_process_seconds": 3}
FULL = {"games": 24, "clients": 16, "seconds": 30, "warmup": 3, "pgbench_seconds": 10, "scale_seconds": 15}
FULL |= {"window_seconds": 20, "window_games": 4, "in_process_seconds": 10}


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="Nine Card games played at once (24; quick 12)")
    parser.add_argument("--clients", type=int, help="client threads, and pgbench clients (16; quick 8)")
    parser.add_argument("--seconds", type=float, help="measured seconds of each stack run (30; quick 10)")
    parser.add_argument("--warmup", type=float, help="seconds of play before each measurement (3; quick 1)")
    parser.add_argument("--repeat", type=int, default=1, help="stack measurements; min and median printed")
    parser.add_argument("--quick", action="store_true", help="smaller and shorter: within 3 minutes")
    parser.add_argument("--pgbench-seconds", type=int, help="pgbench -T (10; quick 5)")
    parser.add_argument("--scale-seconds", type=float, help="each run of workers 1 vs 2 (15; quick 5)")
    parser.add_argument("--window-seconds", type=float, help="each window phase, idle and loaded (20; quick 8)")
    parser.add_argument("--window-games", type=int, help="Satori games with timed windows (4; quick 3)")
    parser.add_argument("--in-process-seconds", type=float, help="time in the services (10; quick 3)")
    parser.add_argument("--web-workers", type=int, default=2, help="gunicorn processes (2)")
    parser.add_argument("--web-threads", type=int, default=8, help="gunicorn threads per process (8)")
    parser.add_argument("--pool", help="Celery worker pool (default: Celery's, prefork)")
    parser.add_argument("--concurrency", type=int, help="Celery worker concurrency (default: CPU count)")
    parser.add_argument("--prefetch", type=int, help="Celery prefetch multiplier (default: the settings')")
    parser.add_argument("--server-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--redis-host", default="redis://127.0.0.1:6379")
    parser.add_argument("--redis-db", type=int, default=12, help="a Redis database of its own; flushed")
    parser.add_argument(
        "--mode",
        choices=sorted(MODE),
        default="turns",
        help="how clients find their turns: turns = GET /api/me/turns?wait= (default); poll = GET legal-moves "
        "of each held game in turn, as before (works against older commits)",
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for name, value in (QUICK if args.quick else FULL).items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.clients < 2 or args.games < 1:
        parser.error("needs at least 2 clients and 1 game")
    return args


def seat_assignment(slots: list[Slot], clients: int) -> list[list[tuple[Slot, int]]]:
    """Seat k of game g goes to client (2g + k) mod C: each client holds about 2N/C seats, never
    both seats of one game."""
    assignment: list[list[tuple[Slot, int]]] = [[] for _ in range(clients)]
    for g, slot in enumerate(slots):
        for seat in range(2):
            assignment[(2 * g + seat) % clients].append((slot, seat))
    return assignment


def run(args, cleanup: sb.Cleanup) -> None:
    import redis
    import requests

    say(f"pipeline: {args.games} games, {args.clients} clients, {args.seconds:g} s x {args.repeat}", end="")
    say(f"; clients --mode {args.mode}", end="")
    say(f"; {os.cpu_count()} cores")

    # a) pgbench
    tps = pgbench_tps(args.server_url, args.clients, args.pgbench_seconds, cleanup)
    say(f"pgbench     : {tps:,.0f} TPS (one-row INSERT, -c {args.clients} -j 2 -T {args.pgbench_seconds})")

    # b) the stack on a scratch database
    database_url = sb.scratch_url(args.server_url, "kifu_pipeline")
    redis_url = f"{args.redis_host}/{args.redis_db}"
    queue = f"kifu-pipeline-{uuid.uuid4().hex[:6]}"
    sb.create_database(database_url)
    cleanup.add("drop the scratch database", lambda: sb.drop_database(database_url))
    env = sb.stack_env(database_url, redis_url, queue)
    sb.django_setup(env)
    from django.core.management import call_command
    from django.db import connections

    cleanup.add("close this process's connections", connections.close_all)
    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    redis.Redis.from_url(redis_url).flushdb()
    cleanup.add("flush the Redis database", lambda: redis.Redis.from_url(redis_url).flushdb())
    logdir = Path(tempfile.mkdtemp(prefix="kifu-pipeline-"))
    stack = sb.make_stack(
        env,
        logdir,
        web_workers=args.web_workers,
        web_threads=args.web_threads,
        pool=args.pool,
        concurrency=args.concurrency,
        prefetch=args.prefetch,
    )
    cleanup.add("stop the stack", stack.stop)
    cleanup.stack = stack  # its logs are shown if the run fails
    stack.start()
    base = stack.base_url
    say(f"stack       : migrated and up in {time.perf_counter() - started:.0f} s; logs in {logdir}")
    say(f"              gunicorn {' '.join(stack.web.argv[2:])}")
    say(f"              celery {' '.join(stack.worker.argv[3:])}")

    started = time.perf_counter()
    people = sb.accounts(base, args.clients + 2)
    load_people, window_people = people[: args.clients], people[args.clients :]
    session = requests.Session()
    slots = []
    for g in range(args.games):
        players = [load_people[(2 * g + seat) % args.clients] for seat in range(2)]
        slot = Slot(base, LOAD_ENGINE, LOAD_CONFIG, players)
        slot.start(session)
        slots.append(slot)
    window_slots = [Slot(base, WINDOW_ENGINE, WINDOW_CONFIG, window_people) for _ in range(args.window_games)]
    for slot in window_slots:
        slot.start(session)
    assignment = seat_assignment(slots, args.clients)
    made = len(slots) + len(window_slots)
    say(f"setup       : {len(people)} accounts, {made} games in {time.perf_counter() - started:.0f} s")

    # e) windows, idle first (nothing else running)
    idle = idle_windows(base, window_slots, args.window_seconds, args.seed)
    idle_late, idle_unclosed = close_lateness(base, idle)
    idle_lag = [lag for probe in idle for lag in Phase(1, probe.records).lag_ms()]
    failures = [f for probe in idle for f in probe.failures]

    # b) the measurement, K times
    meter = CpuMeter(stack, sb.database_name(database_url))
    runs = []
    for k in range(args.repeat):
        phase, _ = play(base, assignment, args.seconds, args.warmup, seed=args.seed + k, meter=meter, mode=args.mode)
        latency = phase.latency_ms()
        cpu = phase.cpu_ms_per_move()
        figures = {
            "moves_per_s": phase.moves_per_s(),
            "p50_ms": sb.percentile(latency, 50),
            "p95_ms": sb.percentile(latency, 95),
            "p99_ms": sb.percentile(latency, 99),
            **{f"cpu_{part}_ms": cpu.get(part, float("nan")) for part in ("web", "worker", "db")},
            "web_ms_per_request": phase.cpu.get("web", float("nan")) * 1000 / max(phase.requests, 1),
            "requests_per_move": phase.requests / max(len(phase.decided), 1),
        }
        runs.append((phase, figures))
        failures += phase.failures
        if not phase.decided:
            # Clients that never get a verdict (a game that never started, say) are a broken bench, not 0 moves/s.
            raise SystemExit(f"stack run {k + 1}: no move was decided in {phase.seconds:.1f} s; logs in {logdir}")
        say(
            f"stack run {k + 1}  : {figures['moves_per_s']:.1f} validated moves/s over {phase.seconds:.1f} s; "
            f"submit->verdict p50 {fmt_ms(figures['p50_ms'])} p95 {fmt_ms(figures['p95_ms'])} "
            f"p99 {fmt_ms(figures['p99_ms'])} ms ({phase.counts()}); CPU ms per move: "
            f"web {figures['cpu_web_ms']:.2f} worker {figures['cpu_worker_ms']:.2f} db {figures['cpu_db_ms']:.2f}; "
            f"{figures['requests_per_move']:.2f} requests per move, web {figures['web_ms_per_request']:.2f} ms each"
        )
    summary = {name: [figures[name] for _, figures in runs] for name in runs[0][1]}
    if args.repeat > 1:
        for name, values in summary.items():
            say(f"  {name:<12}: min {min(values):.1f}  median {sb.median(values):.1f}  ({args.repeat} runs)")
    load_lag = [lag for phase, _ in runs for lag in phase.lag_ms()]

    # e) windows under load
    loaded, probes = play(
        base, assignment, args.window_seconds, args.warmup, window_slots, seed=args.seed + 100, mode=args.mode
    )
    load_late, load_unclosed = close_lateness(base, probes)
    failures += loaded.failures
    say(f"  (while the windows were measured under load: {loaded.moves_per_s():.1f} moves/s)")

    # d) workers 1 vs 2
    scale = {}
    for concurrency in (1, 2):
        sb.restart_worker(stack, concurrency=concurrency)
        phase, _ = play(
            base, assignment, args.scale_seconds, args.warmup, seed=args.seed + 200 + concurrency, mode=args.mode
        )
        scale[concurrency] = phase.moves_per_s()
        failures += phase.failures
    games_played = sum(len(slot.games) for slot in slots)
    stack.stop()

    # c) in process, against the same database, the stack stopped (no worker takes the queued tasks)
    try:
        moves, spent = in_process(args.in_process_seconds, args.seed)
        per_move = f"{spent / moves * 1000:.2f} ms per move ({moves} moves in {spent:.2f} s = {moves / spent:,.0f}/s)"
    except Exception as error:  # the services are being rewritten: say so, keep the other figures
        per_move = f"failed: {error!r}"

    moves_per_s = sb.median(summary["moves_per_s"])
    p50, p99 = sb.median(summary["p50_ms"]), sb.median(summary["p99_ms"])
    ratio = moves_per_s / tps
    say("")
    say(f"pgbench          : {tps:,.0f} TPS, one-row INSERT, {args.clients} clients")
    say(
        f"stack            : {moves_per_s:.1f} validated moves/s, submit->verdict p50 {fmt_ms(p50)} "
        f"p95 {fmt_ms(sb.median(summary['p95_ms']))} p99 {fmt_ms(p99)} ms "
        f"({args.games} games, {args.clients} clients, {games_played} games played in all)"
    )
    say(f"ratio            : moves/s : pgbench TPS = {ratio:.4f} (issue 14 target >= 0.03)")
    cpu_parts = {part: sb.median(summary[f"cpu_{part}_ms"]) for part in ("web", "worker", "db")}
    say(
        "stack CPU        : "
        + ", ".join(f"{part} {ms:.2f}" for part, ms in cpu_parts.items())
        + f" = {sum(cpu_parts.values()):.2f} ms per validated move (median; the processes' CPU time); "
        f"web {sb.median(summary['web_ms_per_request']):.2f} ms per HTTP request "
        f"({sb.median(summary['requests_per_move']):.2f} requests per move, --mode {args.mode})"
    )
    say(f"in-process       : {per_move}")
    say(
        f"workers 1 vs 2   : c=1 {scale[1]:.1f} moves/s, c=2 {scale[2]:.1f} moves/s, "
        f"2:1 = {scale[2] / scale[1] if scale[1] else float('nan'):.2f}"
    )
    say(f"window close idle: {spread(idle_late)}" + (f", {idle_unclosed} without close" if idle_unclosed else ""))
    say(f"window close load: {spread(load_late)}" + (f", {load_unclosed} without close" if load_unclosed else ""))
    say(f"receipt lag idle : {spread(idle_lag)}")
    say(f"receipt lag load : {spread(load_lag)}")
    if failures:
        say(f"client problems  : {len(failures)}, e.g. {sorted(set(failures))[:5]}")
    shutil.rmtree(logdir, ignore_errors=True)
    say(
        f"pipeline: moves_per_s={moves_per_s:.1f} p50_ms={fmt_ms(p50)} p99_ms={fmt_ms(p99)} "
        f"pgbench_tps={tps:.0f} ratio={ratio:.4f}"
    )


def main() -> None:
    args = arguments()
    cleanup = sb.Cleanup()
    cleanup.install_signals()
    try:
        run(args, cleanup)
    except KeyboardInterrupt:
        print("interrupted; cleaning up", file=sys.stderr)
        raise SystemExit(130) from None
    except Exception:
        stack = cleanup.stack
        if stack is not None:
            print(f"the run failed; the stack's logs ({stack.logdir}):\n{stack.logs()}", file=sys.stderr)
        raise
    finally:
        cleanup.run()


if __name__ == "__main__":
    main()
