"""Leak scan with an independent oracle (issue 15, standing suite): no reader shows a secret early.

The engines' own leak checks (``tests/engines/harness.check_no_leaks``) trust each engine's
``hidden_from``; a bug there would hide itself. This scan takes its secrets from the *finished
record* instead, read with the rules' words for what a deal puts where (``SecretOracle``):

- the seed, until the game is over;
- at each deal (a chance event), every card dealt to another seat, every card of a face-down pile
  (stock, draw pile, set-aside cards, the necropolis) - and so the undrawn order - that no earlier
  event had named: these are secret from the other seats, spectators and anonymous clients at that
  point;
- later in the game, for the engines whose rules move a card between players or turn it face up
  only by an event that names it (``LATER``), such a card stays secret until an event names it.

Every engine is played in-process on PostgreSQL with random legal moves (seeded), long enough to
reach its later phases (``MAX_EVENTS``; Twenty-Two deals ten times). At each checkpoint every
endpoint a seat, a logged-in spectator, the same spectator under a spectator delay and an anonymous
client can read is fetched: the games list, game, state, events, legal moves, record and
verification (refused while running: the error bodies), checkpoint, invitations, the game and
account streams, a submission's status and an illegal move's rejection, and the web pages (game,
play, log, replay JSON). Then the game ends, the record is exported, and the oracle checks every
body. Bounded: about a minute on the shared test machine.
"""

from __future__ import annotations

import json
import random
import re
import uuid
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from rest_framework.test import APIClient

from games import record_io, selectors, services
from games.engines import REGISTRY
from games.models import Game
from games.records import parse_record

from ..live.test_spectator_delay import FakeClock  # timezone.now on a fake clock: events a second apart

pytestmark = pytest.mark.django_db

MAX_EVENTS = 160  # enough for every engine's later phases (Twenty-Two: several deals), bounded
MAX_CAPTURES = 7  # checkpoints per game: the deals first, then doubling event counts
DELAY = 4  # seconds of spectator delay for the delayed spectator (one event a second here)
EMBEDDED = override_settings(REDIS_URL="", KIFU_STREAM_KEEPALIVE_SECONDS=0.05, KIFU_STREAM_POLL_SECONDS=0.01)

# What a deal puts where, in the words of the rules (shared/rules/<game>.md), not the engines':
# per-seat private holdings, face-down piles (secret from everyone, order included), and the cards a
# deal itself turns face up.
PER_SEAT = {"hands", "set_aside"}
PILES = {"stock", "draw_pile", "set_aside", "necropolis"}
FACE_UP_AT_DEAL = {("necropolis", "necropolis"): 2}  # the first two tiles become the start tiles (setup §3)
# Engines whose rules only move a card between players, or turn it face up, by an event that names
# it - so a card no event has named since the deal is still secret from the others later on. Left
# out (their rules reveal cards without naming them, so the oracle cannot follow them past the
# deal): Satori's seats (a katsu hands cards over), Twenty-Two (the stock is turned up by a
# "draw"; its ten deals are checked each), Necropolis (a "draw" then "bury" turns a tile face up).
LATER = {"1234": "all", "mekuri-hinmin": "all", "nine-card": "all", "turn-thief": "all", "satori": "spectators"}
SHORT = {"satori": {"katsu_window_seconds": 5}}
# Turn Thief lists hundreds of legal moves (any card declared as any card): its later phases come
# sooner in events, and each of its reads costs more, so it plays fewer events.
EVENTS = {"turn-thief": 90}


def tokens(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from tokens(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from tokens(item)


class SecretOracle:
    """The secrets of each moment of a finished record, for each viewer (a seat, or None)."""

    def __init__(self, slug: str, record_text: str) -> None:
        record = parse_record(record_text.splitlines())
        self.seed = record.header.get("seed")
        self.config = record.engine.validate_config(record.header.get("config") or {})  # in full, as the API shows it
        assert self.seed, "a finished server game's record reveals its seed"
        self.slug = slug
        self.deals: set[int] = set()
        self._at: list[dict[str, int | None]] = [{}]  # after event seq -> token -> owner (None: a pile)
        self._fresh: list[dict[str, int | None]] = [{}]  # secrets the deal at that seq made
        named: set[str] = set()
        live: dict[str, int | None] = {}
        for seq, event in enumerate(record.events, start=1):
            data = event["data"]
            fresh: dict[str, int | None] = {}
            if event["kind"] == "chance":
                placed = self._placed(data)
                named |= set(tokens(data)) - set(placed)
                fresh = {token: owner for token, owner in placed.items() if token not in named}
                live = dict(fresh)
                if fresh:
                    self.deals.add(seq)
            else:
                for token in tokens(data):
                    named.add(token)
                    live.pop(token, None)
            self._at.append(dict(live))
            self._fresh.append(fresh)

    def _placed(self, data: dict) -> dict[str, int | None]:
        placed: dict[str, int | None] = {}
        for key, value in data.items():
            if key in PER_SEAT and value and all(isinstance(part, list) for part in value):
                for seat, cards in enumerate(value):
                    placed.update((token, seat) for token in tokens(cards))
            elif key in PILES:
                skip = FACE_UP_AT_DEAL.get((self.slug, key), 0)
                placed.update((token, None) for token in tokens(value[skip:]))
        return placed

    def secrets(self, seq: int, viewer: int | None) -> set[str]:
        """What ``viewer`` must not see of the game as it stood after event ``seq``."""
        later = LATER.get(self.slug)
        secret = {token for token, owner in self._fresh[seq].items() if owner is None or owner != viewer}
        if viewer is None and later in ("all", "spectators"):
            secret |= set(self._at[seq])
        elif later == "all":  # a seat may have drawn a pile's card since the deal: only others' hands
            secret |= {token for token, owner in self._at[seq].items() if owner is not None and owner != viewer}
        return secret


@dataclass
class Capture:
    """Every body read at one checkpoint: (viewer, seat or None, what) -> text."""

    seq: int
    bodies: list[tuple[str, int | None, str, str]] = field(default_factory=list)


class Table:
    """One game played with random legal moves, its viewers and their clients."""

    def __init__(self, slug: str, seats: int, rng: random.Random, clock) -> None:
        make = get_user_model().objects.create_user
        tag = uuid.uuid4().hex[:6]
        self.slug, self.rng, self.clock = slug, rng, clock
        self.users = [make(f"{slug[:8]}-{tag}-{seat}") for seat in range(seats)]
        self.fan = make(f"fan-{tag}")
        if REGISTRY[slug].mature:  # adults who opted in; anonymous clients get a 404, which is read too
            for user in (*self.users, self.fan):
                services.mature_consent_confirm(user=user, adult=True, consent=True)
        config = SHORT.get(slug, {})
        self.game = services.game_create(
            engine_slug=slug, config=config, seats=self.users, created_by=self.users[0], consent=True
        )
        if REGISTRY[slug].mature:  # each player accepts a mature game for themselves
            for user in self.users[1:]:
                services.game_accept(game_id=self.game.pk, user=user)
        assert self.refresh().status == Game.Status.RUNNING
        self.viewers: list[tuple[str, int | None, APIClient, Client]] = []
        for seat, user in enumerate(self.users):
            self.viewers.append((f"seat {seat}", seat, *self._clients(user)))
        self.viewers.append(("spectator", None, *self._clients(self.fan)))
        self.viewers.append(("anonymous", None, APIClient(), Client()))
        self.last_submission: dict[int, str] = {}

    @staticmethod
    def _clients(user) -> tuple[APIClient, Client]:
        api, web = APIClient(), Client()
        api.force_authenticate(user)
        web.force_login(user)
        return api, web

    def refresh(self) -> Game:
        self.game = Game.objects.get(pk=self.game.pk)
        return self.game

    def step(self) -> bool:
        """One random legal move, or let an open window time out; False once the game is over."""
        game = self.refresh()
        if game.is_finished:
            return False
        self.clock.advance(1)
        if not game.actors or (game.deadline_at and self.rng.random() < 0.1):
            self.clock.now = max(self.clock.now, (game.deadline_at or self.clock.now) + timedelta(seconds=1))
            services.game_advance(game_id=game.pk)
            return True
        seat = self.rng.choice(sorted(game.actors))
        moves = selectors.legal_moves(game=game, seat=seat)
        if not moves:  # a head may only pass by resigning; let its window run out instead
            self.clock.now = (game.deadline_at or self.clock.now) + timedelta(seconds=1)
            services.game_advance(game_id=game.pk)
            return True
        result = services.move_submit(
            game_id=game.pk, user=self.users[seat], move=self.rng.choice(moves), idempotency_key=uuid.uuid4().hex
        )
        self.last_submission[seat] = str(result.submission.public_id)
        services.game_advance(game_id=game.pk)
        return True

    def finish(self) -> None:
        game = self.refresh()
        if not game.is_finished:
            services.game_forfeit(game_id=game.pk, seats=range(len(self.users)), reason="leak scan over")
        assert self.refresh().is_finished

    def capture(self, *, streams: bool) -> Capture:
        game = self.refresh()
        capture = Capture(seq=game.head_seq)
        for name, seat, api, web in self.viewers:
            capture.bodies.extend((name, seat, what, text) for what, text in self._read(api, web, seat, streams))
        # The same spectator under a spectator delay: it sees an older position, never a later secret.
        services.game_spectator_delay_set(game_id=game.pk, seconds=DELAY)
        name, seat, api, web = self.viewers[-2]
        capture.bodies.extend(("delayed spectator", None, w, t) for w, t in self._read(api, web, None, streams))
        services.game_spectator_delay_set(game_id=game.pk, seconds=0)
        return capture

    def _read(self, api: APIClient, web: Client, seat: int | None, streams: bool):
        base = f"/api/games/{self.game.pk}"
        paths = [
            f"/api/games?engine={self.slug}",
            base,
            f"{base}/state",
            f"{base}/events",
            f"{base}/legal-moves",
            f"{base}/record",  # refused while running: the error body
            f"{base}/verification",
            f"{base}/checkpoint",
            f"{base}/events?after=abc",  # an error body
            "/api/me/invitations",
        ]
        if seat is not None and seat in self.last_submission:
            paths.append(f"{base}/submissions/{self.last_submission[seat]}")
        for path in paths:
            yield path, api.get(path).content.decode()
        # An illegal move's rejection (a seat) or refusal (anyone else): the message names no secret.
        illegal = {"move": {"type": "play_card", "card": "XX"}, "idempotency_key": uuid.uuid4().hex}
        response = api.post(f"{base}/moves", illegal, format="json")
        yield "illegal move", response.content.decode()
        if response.status_code == 202:
            services.game_advance(game_id=self.game.pk)
            yield "illegal move verdict", api.get(response.json()["url"]).content.decode()
        for path in (f"/games/{self.game.pk}", f"/games/{self.game.pk}/play", f"/games/{self.game.pk}/log.json"):
            yield path, web.get(path).content.decode()
        as_ = "spectator" if seat is None else str(seat)
        yield "replay.json", web.get(f"/games/{self.game.pk}/replay.json", {"as": as_}).content.decode()
        if streams:
            yield "game stream", _stream_text(api.get(f"{base}/stream", {"timeout": 0.2}))
            yield "account stream", _stream_text(api.get("/api/me/stream", {"timeout": 0.2}))


def _stream_text(response) -> str:
    if not hasattr(response, "streaming_content"):
        return response.content.decode()
    return b"".join(response.streaming_content).decode()


def _pattern(secret: str) -> re.Pattern:
    """A card or tile id as a whole token: '10H' is not found in '10HX' nor 'AS' in 'PASS'."""
    return re.compile(rf"(?<![\w#-]){re.escape(secret)}(?![\w#-])")


def _without_config(text: str, config: dict) -> str:
    """The body without the game's config: a config may list the deck (Satori's does), which is
    public composition, not who holds what."""
    try:
        body = json.loads(text)
    except ValueError:
        return text

    def strip(value):
        if isinstance(value, dict):
            return {key: strip(item) for key, item in value.items() if not (key == "config" and item == config)}
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    return json.dumps(strip(body))


def check(oracle: SecretOracle, capture: Capture) -> list[str]:
    found = []
    for viewer, seat, what, raw in capture.bodies:
        text = _without_config(raw, oracle.config)
        if oracle.seed in text:
            found.append(f"after seq {capture.seq}: {viewer} sees the seed in {what}")
        for secret in sorted(oracle.secrets(capture.seq, seat)):
            if _pattern(secret).search(text):
                found.append(f"after seq {capture.seq}: {viewer} sees {secret} in {what}")
    return found


def scan(slug: str, seats: int, seed: int, monkeypatch) -> tuple[int, int, list[str]]:
    """Play, capture at the deals and along the way, finish, then judge with the record's oracle."""
    rng = random.Random(f"{slug}-{seed}")
    table = Table(slug, seats, rng, FakeClock(monkeypatch))
    captures = [table.capture(streams=True)]
    mark = 3  # then 6, 12, 24, ...: short games are read often, long ones into their later phases
    deals_seen = {table.game.head_seq}
    while table.refresh().head_seq < EVENTS.get(slug, MAX_EVENTS) and table.step():
        game = table.refresh()
        if game.is_finished:
            break
        new_deal = game.head_seq not in deals_seen and _last_is_chance(game)
        if len(captures) < MAX_CAPTURES and (new_deal or game.head_seq >= mark):
            deals_seen.add(game.head_seq)
            captures.append(table.capture(streams=len(captures) == MAX_CAPTURES - 1))
            mark = max(mark, game.head_seq) * 2 if game.head_seq >= mark else mark
    table.finish()
    oracle = SecretOracle(slug, record_io.record_export(game=table.refresh()))
    found = [leak for capture in captures for leak in check(oracle, capture)]
    reads = sum(len(capture.bodies) for capture in captures)
    secrets = sum(len(oracle.secrets(capture.seq, None)) for capture in captures)
    return reads, secrets, found


def _last_is_chance(game: Game) -> bool:
    return game.events.filter(seq=game.head_seq, kind="chance").exists()


@EMBEDDED
@pytest.mark.parametrize("slug", sorted(REGISTRY))
def test_no_reader_sees_a_secret_of_the_record(slug, monkeypatch):
    engine = REGISTRY[slug]
    seats = max(engine.min_seats, 3 if engine.max_seats >= 3 else engine.min_seats)
    reads, secrets, found = scan(slug, seats, 1, monkeypatch)
    assert not found, "\n".join(found[:20])
    assert reads > 80  # at least one full pass: every viewer, every endpoint
    if slug not in ("believers", "kazekami-kyoko"):  # no chance events: the seed is their secret
        assert secrets > 0, f"{slug}: the oracle found no secret to look for"


def test_the_oracle_finds_a_planted_leak():
    """The oracle is not vacuous: a body that quotes another seat's dealt card, a face-down card or
    the seed is caught; the seat's own card is not."""
    deal = {"type": "deal", "hands": [["AS", "2S"], ["KH", "QH"]], "stock": ["10C", "JD"]}
    header = {"kifu": 1, "game": "nine-card", "seats": ["a", "b"], "seed": "ab" * 32}
    record = "\n".join(json.dumps(line) for line in (header, {"kind": "chance", "data": deal}))
    oracle = SecretOracle("nine-card", record)
    capture = Capture(seq=1, bodies=[("seat 0", 0, "state", '{"hand": ["AS", "2S"]}')])
    assert check(oracle, capture) == []
    for body in ('{"hands": [null, ["KH"]]}', "<td>10C</td>", '{"stock": ["JD"]}', f"seed {'ab' * 32}"):
        assert check(oracle, Capture(seq=1, bodies=[("seat 0", 0, "x", body)])), body
    assert oracle.secrets(1, None) == {"AS", "2S", "KH", "QH", "10C", "JD"}
