"""Typed shapes of the API's JSON (TypedDicts, so the values stay plain dicts) and stream messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict

Move = dict[str, Any]  # {"type": <action>, ...parameters}, as in the game's rules


class Account(TypedDict):
    username: str
    token: str | None  # None from GET /me when the client uses a personal token (scoped)


class Flag(TypedDict):
    name: str
    type: str
    default: Any
    description: str
    choices: NotRequired[list[Any]]
    minimum: NotRequired[float]
    maximum: NotRequired[float]


class EngineInfo(TypedDict):
    slug: str
    name: str
    rules_version: str
    min_players: int
    max_players: int
    mature: bool
    flags: list[Flag]
    rules_url: str  # the game's rules for players, a web page in English and Japanese


class Seat(TypedDict):
    index: int
    name: str
    player: str | None


class Window(TypedDict):
    id: str
    opened_at: str | None
    deadline_at: str | None


class Outcome(TypedDict):
    ranking: list[list[int]]
    scores: dict[str, float]
    detail: dict[str, Any]


GameStatus = Literal["open", "running", "finished"]


class Game(TypedDict):
    id: str
    engine: str
    rules_version: str
    config: dict[str, Any]
    status: GameStatus
    source: str
    seats: list[Seat]
    actors: list[int]
    window: Window | None
    head_seq: int
    head_hash: str | None
    seed_sha256: str
    seed: str | None
    outcome: Outcome | None
    meta: dict[str, Any]
    created_at: str
    started_at: str | None
    finished_at: str | None
    urls: dict[str, str]


class Seek(TypedDict):
    """An open table of the lobby: its players so far and, once full, its game."""

    id: str
    engine: str
    seats: int
    taken: int
    players: list[str]
    config: dict[str, Any]
    time_control: dict[str, Any] | None
    rated: bool
    rating_min: float | None
    rating_max: float | None
    created_by: str
    status: Literal["open", "filled", "cancelled", "expired"]
    created_at: str
    expires_at: str
    game: str | None


class Pairing(TypedDict):
    joined: bool  # True: an open table was joined; False: a new one was opened
    seek: Seek


class SiteRating(TypedDict):
    engine: str
    rating: float  # the ordinal mu - 3 sigma
    mu: float
    sigma: float
    games: int
    updated_at: str


class GameState(TypedDict):
    game: str
    seat: int | None
    head_seq: int
    status: GameStatus
    actors: list[int]
    window: Window | None
    view: dict[str, Any] | None
    legal_moves: list[Move]
    outcome: Outcome | None


class Submission(TypedDict):
    id: str
    game: str
    seat: int
    move: Move
    idempotency_key: str
    status: Literal["pending", "accepted", "rejected"]
    code: str
    message: str
    event_seq: int | None
    received_at: str
    decided_at: str | None
    url: str


class Event(TypedDict):
    seq: int
    kind: Literal["chance", "move", "system"]
    seat: NotRequired[int]
    data: dict[str, Any]
    hash: NotRequired[str]
    created_at: str


class Head(TypedDict):
    """The ``head`` message of a game stream: where the game stands after the events before it."""

    game: str
    head_seq: int
    status: GameStatus
    seat: int | None
    actors: list[int]
    window: Window | None
    outcome: Outcome | None
    legal_moves: NotRequired[list[Move]]


class WaitingGame(TypedDict):
    """One of your running games in which you may not act now (``KifuClient.my_turns``)."""

    game: str
    engine: str
    seat: int
    head_seq: int


class Turn(WaitingGame):
    """One of your running games in which your seat may act now, with its legal moves."""

    moves: list[Move]


class Turns(TypedDict):
    turns: list[Turn]
    waiting: list[WaitingGame]


class Verification(TypedDict):
    game: str
    ok: bool
    events: int
    chain_ok: bool
    replay_ok: bool
    projection_ok: bool
    chance_ok: bool | None
    seed_ok: bool | None
    problems: list[str]


@dataclass(frozen=True)
class StreamMessage:
    """One message of a stream. Game streams: ``event`` (data: Event), ``head`` (data: Head) and
    ``end``; account streams: ``game_started``, ``window_opened``, ``your_turn``, ``game_ended``
    and ``end``. ``id`` is the resume point (an event seq, or a server time in ms), when it has one."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
