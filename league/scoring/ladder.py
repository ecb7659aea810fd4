"""Challenge and rating ladders as pure functions: settings, challenge range, and the fold of the log.

A ladder's history is its append-only log; positions, records and ratings are what this module's
``project`` folds out of it. The rules implemented (each a setting, because real clubs differ):

- challenge range (``challenge_range``): a player may challenge up to N places above; N is fixed
  (an int) or set by band of the challenger's position
  (``[{"to": 10, "places": 2}, {"to": null, "places": 4}]``).
- open challenges (``max_open_challenges``): how many undecided challenges a player may be in at
  once, as challenger or defender.
- acceptance (``accept_days``): a defender who neither accepts nor declines in time forfeits
  (declining is a forfeit too).
- playing (``play_days``, from acceptance): at the deadline the side the game is waiting for
  forfeits; if it waits for both or neither, the challenge is void.
- challenger's win (``on_challenger_win``): ``swap``, the two exchange places; ``leapfrog``, the
  challenger takes the defender's place and everyone from there down to the challenger's old
  place moves down one.
- rematch (``rematch_cooldown_days``): the same two players may not meet again (either way round)
  until this long after their last decided challenge.
- new players (``new_player_free_challenges``): a player enters at the bottom; their first N
  challenges may go to anyone above, whatever the range.
- inactivity (``inactivity_days``, ``inactivity_drop_places``): a player with no challenge for
  that long drops N places, and again after each further period.
- matches (``match``): a challenge (or a rated game) is a match, e.g.
  ``{"format": "best_of", "target": 3}``.

A challenger's loss or a draw changes no places. A forfeit counts as a win for the other side
(a defender's forfeit moves the challenger up). Forfeits are not rated: no game was played.
Corrections (an organiser's later ``correction`` event) replace fields of an earlier result,
forfeit, drop or withdrawal, or void it; the fold uses the corrected version at the original
place in the log, so everything after it is recomputed on the changed positions.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from . import matches as match_rules
from .errors import ScoringError
from .ratings import Rating, initial_rating, rate_ranking
from .reports import check_confirm_hours, check_mode

CHALLENGE = "challenge"
RATING = "rating"
KINDS = (CHALLENGE, RATING)

# Event kinds of a ladder log; names are never reused for another meaning.
LADDER_CREATED = "ladder_created"
SETTINGS_CHANGED = "settings_changed"
PLAYER_JOINED = "player_joined"
PLAYER_WITHDREW = "player_withdrew"
CHALLENGE_ISSUED = "challenge_issued"
CHALLENGE_ACCEPTED = "challenge_accepted"
CHALLENGE_WITHDRAWN = "challenge_withdrawn"
CHALLENGE_VOID = "challenge_void"
RESULT = "result"
FORFEIT = "forfeit"
INACTIVITY_DROP = "inactivity_drop"
CORRECTION = "correction"
# A reported result's steps (league.reports): history only, the fold moves nothing for them; the
# result they lead to is an ordinary RESULT event (source "report").
RESULT_REPORTED = "result_reported"
RESULT_CONFIRMED = "result_confirmed"
RESULT_DISPUTED = "result_disputed"
RESULT_SETTLED = "result_settled"
EVENT_KINDS = (
    LADDER_CREATED,
    SETTINGS_CHANGED,
    PLAYER_JOINED,
    PLAYER_WITHDREW,
    CHALLENGE_ISSUED,
    CHALLENGE_ACCEPTED,
    CHALLENGE_WITHDRAWN,
    CHALLENGE_VOID,
    RESULT,
    FORFEIT,
    INACTIVITY_DROP,
    CORRECTION,
    RESULT_REPORTED,
    RESULT_CONFIRMED,
    RESULT_DISPUTED,
    RESULT_SETTLED,
)
# What a correction may change, and which fields of each.
CORRECTABLE = {
    RESULT: ("ranking",),
    FORFEIT: ("winner", "loser"),
    INACTIVITY_DROP: ("places",),
    PLAYER_WITHDREW: (),
}

CHALLENGE_DEFAULTS = {
    "challenge_range": 3,
    "max_open_challenges": 1,
    "accept_days": 3,
    "play_days": 7,
    "on_challenger_win": "swap",
    "rematch_cooldown_days": 7,
    "new_player_free_challenges": 1,
    "inactivity_days": 30,
    "inactivity_drop_places": 1,
    "match": None,
    "allow_bots": False,  # may bot accounts (games.accounts.is_bot) join and play
}
RATING_DEFAULTS = {"match": None, "allow_bots": False}
# How the ladder's pairings may be decided (league.scoring.reports): kept only once an organiser
# sets them, so a ladder's settings read as before until then (absent: online, 48 hours).
REPORT_SETTINGS = ("results", "report_confirm_hours")


class SettingsError(ScoringError):
    code = "invalid_ladder_settings"


class ChallengeRefused(ScoringError):
    code = "challenge_refused"


# ---- settings ---------------------------------------------------------------------------------
def _number(settings: dict, name: str, *, minimum: float, maximum: float, whole: bool = False) -> None:
    value = settings[name]
    kind = (int,) if whole else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or not minimum <= value <= maximum:
        what = "a whole number" if whole else "a number"
        raise SettingsError(f"setting {name!r} must be {what} from {minimum:g} to {maximum:g}, not {value!r}")


def _check_range(value) -> None:
    if isinstance(value, int) and not isinstance(value, bool):
        if not 1 <= value <= 1000:
            raise SettingsError(f"challenge_range must be 1-1000 places, not {value}")
        return
    shape = 'an int, or bands like [{"to": 10, "places": 2}, {"to": null, "places": 4}]'
    if not isinstance(value, list) or not value:
        raise SettingsError(f"challenge_range must be {shape}")
    previous = 0
    for index, band in enumerate(value):
        if not isinstance(band, dict) or set(band) != {"to", "places"}:
            raise SettingsError(f"challenge_range band {index} must be an object with 'to' and 'places'")
        places, to = band["places"], band["to"]
        if isinstance(places, bool) or not isinstance(places, int) or not 1 <= places <= 1000:
            raise SettingsError(f"challenge_range band {index}: places must be 1-1000")
        last = index == len(value) - 1
        if last != (to is None):
            raise SettingsError("challenge_range: only the last band has 'to': null (it covers everyone below)")
        if not last and (isinstance(to, bool) or not isinstance(to, int) or to <= previous):
            raise SettingsError(f"challenge_range band {index}: 'to' must be a position above {previous}")
        previous = to or previous


def validate_settings(kind: str, settings: dict | None, *, base: dict | None = None) -> dict:
    """The full settings of a ladder of ``kind``: ``settings`` over ``base`` (or the defaults).

    Unknown keys and bad values raise SettingsError saying what is allowed.
    """
    if kind not in KINDS:
        raise SettingsError(f"ladder kind must be one of {', '.join(KINDS)}, not {kind!r}", code="bad_ladder_kind")
    defaults = CHALLENGE_DEFAULTS if kind == CHALLENGE else RATING_DEFAULTS
    settings = {} if settings is None else settings
    if not isinstance(settings, dict):
        raise SettingsError("settings must be a JSON object")
    unknown = sorted(set(settings) - set(defaults) - set(REPORT_SETTINGS))
    if unknown:
        allowed = ", ".join(sorted([*defaults, *REPORT_SETTINGS]))
        raise SettingsError(f"unknown {kind} ladder setting(s) {', '.join(unknown)}; allowed: {allowed}")
    full = {**copy.deepcopy(base or defaults), **copy.deepcopy(settings)}
    full.setdefault("allow_bots", False)  # a ladder made before the setting existed
    if not isinstance(full["allow_bots"], bool):
        raise SettingsError(f"setting 'allow_bots' must be true or false, not {full['allow_bots']!r}")
    if full["match"] is not None:
        full["match"] = match_rules.validate_spec(full["match"])
    try:
        if "results" in full:
            check_mode(full["results"])
        if "report_confirm_hours" in full:
            full["report_confirm_hours"] = check_confirm_hours(full["report_confirm_hours"])
    except ScoringError as error:
        raise SettingsError(error.message) from None
    if kind == RATING:
        return full
    _check_range(full["challenge_range"])
    _number(full, "max_open_challenges", minimum=1, maximum=20, whole=True)
    _number(full, "accept_days", minimum=0.001, maximum=365)
    _number(full, "play_days", minimum=0.001, maximum=365)
    _number(full, "rematch_cooldown_days", minimum=0, maximum=365)
    _number(full, "new_player_free_challenges", minimum=0, maximum=100, whole=True)
    _number(full, "inactivity_days", minimum=0, maximum=3650)
    _number(full, "inactivity_drop_places", minimum=1, maximum=1000, whole=True)
    if full["on_challenger_win"] not in ("swap", "leapfrog"):
        raise SettingsError(f"on_challenger_win must be 'swap' or 'leapfrog', not {full['on_challenger_win']!r}")
    return full


def range_places(settings: dict, position: int) -> int:
    """How many places above ``position`` (1 = top) its holder may challenge."""
    rule = settings["challenge_range"]
    if isinstance(rule, int):
        return rule
    for band in rule:
        if band["to"] is None or position <= band["to"]:
            return band["places"]
    return rule[-1]["places"]  # unreachable: validation makes the last band open-ended


# ---- the projection ---------------------------------------------------------------------------
@dataclass(frozen=True)
class LogEvent:
    seq: int
    kind: str
    payload: dict
    at: datetime


@dataclass
class PlayerRecord:
    player: int
    active: bool = False
    withdrawn: bool = False
    ever_joined: bool = False
    joined_at: datetime | None = None
    last_active_at: datetime | None = None
    drop_from: datetime | None = None  # inactivity is counted from here
    free_challenges_left: int = 0
    played: int = 0
    won: int = 0
    lost: int = 0
    drawn: int = 0
    forfeits_won: int = 0
    forfeits_lost: int = 0
    drops: int = 0
    rating: Rating | None = None


@dataclass(frozen=True)
class RatingChange:
    player: int
    seq: int
    at: datetime
    before: Rating
    after: Rating
    game: str | None
    match: str | None


@dataclass
class Projection:
    kind: str
    settings: dict = field(default_factory=dict)
    order: list[int] = field(default_factory=list)  # challenge ladders: top first
    players: dict[int, PlayerRecord] = field(default_factory=dict)
    history: list[RatingChange] = field(default_factory=list)
    last_seq: int = 0
    voided: set[int] = field(default_factory=set)

    def record(self, player: int) -> PlayerRecord:
        if player not in self.players:
            self.players[player] = PlayerRecord(player)
        return self.players[player]

    def ranked(self) -> list[int]:
        """Players in standing order: the ladder order, or by rating ordinal on a rating ladder."""
        if self.kind == CHALLENGE:
            return list(self.order)
        rated = [record for record in self.players.values() if is_ranked(record)]
        return [record.player for record in sorted(rated, key=rank_key)]

    def positions(self) -> dict[int, int]:
        """Every ranked player's position (1 = top), in one pass."""
        return {player: index for index, player in enumerate(self.ranked(), start=1)}


def is_ranked(record: PlayerRecord) -> bool:
    """On a rating ladder playing a rated game puts you on it; withdrawing takes you off."""
    return (record.active or record.played > 0) and not record.withdrawn


def rank_key(record: PlayerRecord) -> tuple[float, int]:
    """A rating ladder's order: the higher ordinal first, then the lower user id."""
    return (-(record.rating or initial_rating()).ordinal, record.player)


def effective_payloads(events: list[LogEvent]) -> dict[int, dict]:
    """The payload each corrected event has after its latest correction (``void`` included)."""
    by_seq = {event.seq: event for event in events}
    out: dict[int, dict] = {}
    for event in events:
        if event.kind != CORRECTION:
            continue
        target = by_seq.get(event.payload["target"])
        if target is not None:
            out[target.seq] = {**target.payload, **event.payload["changes"]}
    return out


def project(kind: str, events: list[LogEvent]) -> Projection:
    """Fold the whole log (in seq order) into positions, records and ratings."""
    projection = Projection(kind=kind)
    corrected = effective_payloads(events)
    for event in sorted(events, key=lambda e: e.seq):
        apply_event(projection, event, corrected.get(event.seq, event.payload))
    return projection


def apply_event(projection: Projection, event: LogEvent, payload: dict | None = None) -> None:
    """Fold one event (``payload``: its corrected payload, if corrected) into ``projection``.

    The projection may be partial (the incremental update of ``league.services.log``): ``players``
    holding only the records this event touches (``event_players``) and ``order`` only the window
    of places it can move (``order_window``); every rule here reads no more than that.
    """
    payload = event.payload if payload is None else payload
    projection.last_seq = event.seq
    if payload.get("void"):
        projection.voided.add(event.seq)
        return
    _APPLY.get(event.kind, _ignore)(projection, event, payload)


def event_players(kind: str, payload: dict) -> list[int]:
    """The players whose records an event of ``kind`` changes."""
    if kind in (PLAYER_JOINED, PLAYER_WITHDREW, INACTIVITY_DROP):
        return [payload["player"]]
    if kind == CHALLENGE_ISSUED:
        return [payload["challenger"], payload["defender"]]
    if kind == RESULT:
        return [player for group in payload["ranking"] for player in group]
    if kind == FORFEIT:
        return [payload["winner"], payload["loser"]]
    return []


def order_window(kind: str, payload: dict, settings: dict, position: dict[int, int | None]) -> list[int]:
    """The places (1 = top) of a challenge ladder that an event may reorder, given the current
    ``position`` of its players (``event_players``): the two sides of a challenger's win (swap), or
    everything from the defender's place to the challenger's (leapfrog); a drop's place and the
    places it falls through. A join takes the place below the bottom (the caller's), a withdrawal
    closes the gap by moving everyone below up one (the caller's too)."""
    if kind in (RESULT, FORFEIT) and payload.get("challenger") is not None:
        c, d = position.get(payload["challenger"]), position.get(payload["defender"])
        if c is None or d is None or c <= d:
            return []
        return [d, c] if settings["on_challenger_win"] == "swap" else list(range(d, c + 1))
    if kind == INACTIVITY_DROP and position.get(payload["player"]) is not None:
        start = position[payload["player"]]
        return list(range(start, start + payload["places"] + 1))
    if kind == PLAYER_WITHDREW and position.get(payload["player"]) is not None:
        return [position[payload["player"]]]
    return []


def _ignore(projection: Projection, event: LogEvent, payload: dict) -> None:
    """Events that are history but move nothing (accepted, withdrawn or void challenges)."""


def _settings(projection: Projection, event: LogEvent, payload: dict) -> None:
    projection.settings = payload["settings"]


def _touch(record: PlayerRecord, at: datetime) -> None:
    record.last_active_at = at
    record.drop_from = at


def _joined(projection: Projection, event: LogEvent, payload: dict) -> None:
    record = projection.record(payload["player"])
    if record.active:
        return
    if not record.ever_joined:
        record.free_challenges_left = projection.settings.get("new_player_free_challenges", 0)
    record.active = record.ever_joined = True
    record.withdrawn = False
    record.joined_at = event.at
    _touch(record, event.at)
    if projection.kind == CHALLENGE:
        projection.order.append(record.player)


def _withdrew(projection: Projection, event: LogEvent, payload: dict) -> None:
    record = projection.record(payload["player"])
    record.active, record.withdrawn = False, True
    if record.player in projection.order:
        projection.order.remove(record.player)


def _issued(projection: Projection, event: LogEvent, payload: dict) -> None:
    challenger = projection.record(payload["challenger"])
    if payload.get("free"):
        challenger.free_challenges_left = max(0, challenger.free_challenges_left - 1)
    _touch(challenger, event.at)
    _touch(projection.record(payload["defender"]), event.at)


def challenger_wins(order: list[int], challenger: int, defender: int, rule: str) -> list[int]:
    """The order after a challenger's win: unchanged unless the challenger was below the defender."""
    if challenger not in order or defender not in order:
        return order
    c, d = order.index(challenger), order.index(defender)
    if c <= d:
        return order
    order = list(order)
    if rule == "swap":
        order[c], order[d] = defender, challenger
    else:  # leapfrog
        order.pop(c)
        order.insert(d, challenger)
    return order


def drop_places(order: list[int], player: int, places: int) -> list[int]:
    if player not in order:
        return order
    order = list(order)
    index = order.index(player)
    order.pop(index)
    order.insert(min(index + places, len(order)), player)
    return order


def _result(projection: Projection, event: LogEvent, payload: dict) -> None:
    ranking = [list(group) for group in payload["ranking"]]
    for index, group in enumerate(ranking):
        for player in group:
            record = projection.record(player)
            record.played += 1
            if index > 0:
                record.lost += 1
            elif len(group) == 1:
                record.won += 1
            else:
                record.drawn += 1
            _touch(record, event.at)
    players = [player for group in ranking for player in group]
    if payload.get("rated", True) and len(players) > 1:
        before = {p: projection.record(p).rating or initial_rating() for p in players}
        after = rate_ranking(before, ranking)
        for player, rating in after.items():
            projection.record(player).rating = rating
            change = RatingChange(
                player, event.seq, event.at, before[player], rating, payload.get("game"), payload.get("match")
            )
            projection.history.append(change)
    challenger, defender = payload.get("challenger"), payload.get("defender")
    if projection.kind == CHALLENGE and challenger is not None and ranking[0] == [challenger]:
        projection.order = challenger_wins(
            projection.order, challenger, defender, projection.settings["on_challenger_win"]
        )


def _forfeit(projection: Projection, event: LogEvent, payload: dict) -> None:
    winner, loser = projection.record(payload["winner"]), projection.record(payload["loser"])
    winner.forfeits_won += 1
    loser.forfeits_lost += 1
    _touch(winner, event.at)
    _touch(loser, event.at)
    if projection.kind == CHALLENGE and payload["winner"] == payload.get("challenger"):
        projection.order = challenger_wins(
            projection.order, payload["challenger"], payload["defender"], projection.settings["on_challenger_win"]
        )


def _drop(projection: Projection, event: LogEvent, payload: dict) -> None:
    record = projection.record(payload["player"])
    record.drops += 1
    record.drop_from = datetime.fromisoformat(payload["due_at"])
    projection.order = drop_places(projection.order, record.player, payload["places"])


_APPLY = {
    LADDER_CREATED: _settings,
    SETTINGS_CHANGED: _settings,
    PLAYER_JOINED: _joined,
    PLAYER_WITHDREW: _withdrew,
    CHALLENGE_ISSUED: _issued,
    RESULT: _result,
    FORFEIT: _forfeit,
    INACTIVITY_DROP: _drop,
}


# ---- questions the services ask of a projection ----------------------------------------------
def check_challenge(projection: Projection, challenger: int, defender: int) -> bool:
    """Whether ``challenger`` may challenge ``defender`` now by position; returns whether the
    challenge uses one of the challenger's free challenges. Raises ChallengeRefused."""
    positions = {player: index for index, player in enumerate(projection.order, start=1)}
    record = projection.players.get(challenger)
    free_left = record.free_challenges_left if record else 0
    return check_challenge_at(projection.settings, challenger, defender, positions, free_left)


def check_challenge_at(
    settings: dict, challenger: int, defender: int, positions: dict[int, int | None], free_left: int
) -> bool:
    """``check_challenge`` from the two players' places (``positions``; None or absent: not on
    the ladder) and the challenger's free challenges left."""
    if challenger == defender:
        raise ChallengeRefused("you cannot challenge yourself", code="challenge_self")
    c, d = positions.get(challenger), positions.get(defender)
    if c is None:
        raise ChallengeRefused("you are not on this ladder: join it first", code="not_on_ladder")
    if d is None:
        raise ChallengeRefused("that player is not on this ladder", code="defender_not_on_ladder")
    if d > c:
        raise ChallengeRefused(
            f"you can only challenge players above you (you are {c}, they are {d})", code="defender_below"
        )
    places = range_places(settings, c)
    if c - d <= places:
        return False
    if free_left > 0:
        return True
    lowest = max(1, c - places)
    raise ChallengeRefused(
        f"from place {c} you may challenge places {lowest}-{c - 1} (range {places}); they are {d}",
        code="out_of_range",
    )


def inactivity_due(projection: Projection, now: datetime, busy: set[int]) -> list[tuple[datetime, int]]:
    """Every inactivity drop due by ``now`` as ``(due_at, player)``, earliest first.

    Each period counts from the player's last activity or last drop, so a sweep that ran late (or
    months of simulated time at once) appends exactly the drops that were due, one per period.
    Players in an undecided challenge are not dropped.
    """
    days = projection.settings.get("inactivity_days") or 0
    if projection.kind != CHALLENGE or not days:
        return []
    period = timedelta(days=days)
    due: list[tuple[datetime, int]] = []
    for player in projection.order:
        record = projection.players[player]
        if player in busy or record.drop_from is None:
            continue
        at = record.drop_from + period
        while at <= now:
            due.append((at, player))
            at += period
    place = {player: index for index, player in enumerate(projection.order)}
    return sorted(due, key=lambda item: (item[0], place[item[1]]))
