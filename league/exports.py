"""Exports of the league's reads: standings as CSV, and fixtures and deadlines as iCalendar feeds
(per season, tournament and ladder, and per player behind a feed key). Nothing here writes.

CSV: Python's ``csv`` module, UTF-8 with a byte-order mark, a fixed column order, a download name. iCalendar: the
``icalendar`` library (RFC 5545). Every deadline is an event with a start and no end, which RFC 5545
(3.6.1) reads as an instant at that time. UIDs are built from the row they describe
(``season-fixture-12@kifu``), so a calendar that subscribes updates an event when its deadline moves
instead of adding a second one.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from datetime import UTC, datetime

import icalendar
from django.contrib.auth import get_user_model
from django.db.models import Count, Q
from django.http import HttpResponse
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.http import content_disposition_header

from .models import Challenge, Ladder, Tournament, TournamentBoard, TournamentRound
from .seasons.models import Fixture, Season

User = get_user_model()
UID_DOMAIN = "kifu"
FEED_KEY_SALT = "league.exports.player-calendar"


# ---- CSV ----------------------------------------------------------------------------------------
def csv_response(*, filename: str, header: list[str], rows: Iterable[Iterable]) -> HttpResponse:
    """A CSV download: the header, then one line a row (``None`` is an empty cell).

    It starts with a UTF-8 byte-order mark: Excel opens a double-clicked CSV as UTF-8 only with one
    (else Japanese names come out garbled); readers that decode with ``utf-8-sig`` drop it."""
    out = io.StringIO()
    out.write("\ufeff")
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


LADDER_COLUMNS = [
    "position", "username", "display_name", "active", "played", "won", "drawn", "lost",
    "forfeits_won", "forfeits_lost", "mu", "sigma", "ordinal",
]  # fmt: skip


def ladder_csv_rows(entries) -> Iterable[list]:
    """``LADDER_COLUMNS`` of each ladder entry (``selectors.standings``), in the order given."""
    for entry in entries:
        profile = getattr(entry.user, "player_profile", None)
        display = (profile.display_name if profile else "") or entry.user.username
        yield [
            entry.position, entry.user.username, display, entry.active, entry.played, entry.won, entry.drawn,
            entry.lost, entry.forfeits_won, entry.forfeits_lost, entry.mu, entry.sigma, entry.ordinal,
        ]  # fmt: skip


# ---- iCalendar ----------------------------------------------------------------------------------
def _calendar(name: str) -> icalendar.Calendar:
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//Kifu//league calendar//EN")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("x-wr-calname", name)
    return calendar


def _event(uid: str, at: datetime, summary: str, description: str = "", *, stamp: datetime) -> icalendar.Event:
    event = icalendar.Event()
    event.add("uid", f"{uid}@{UID_DOMAIN}")
    event.add("dtstamp", stamp)
    event.add("dtstart", at.astimezone(UTC).replace(microsecond=0))  # iCalendar times are whole seconds
    event.add("summary", summary)
    if description:
        event.add("description", description)
    return event


def calendar_response(calendar: icalendar.Calendar, *, filename: str) -> HttpResponse:
    response = HttpResponse(calendar.to_ical(), content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(False, filename)  # RFC 6266: names in any script
    return response


def _names(ids) -> dict[int, str]:
    return dict(User.objects.filter(pk__in=set(ids)).values_list("pk", "username"))


def _fixture_events(fixtures: list[Fixture], *, stamp: datetime) -> list[icalendar.Event]:
    names = _names(pk for f in fixtures for pk in f.seat_ids)
    events = []
    for fixture in fixtures:
        season = fixture.season
        players = " v ".join(names.get(pk, "?") for pk in fixture.seat_ids)
        state = f"result: {fixture.result}" if fixture.result else "to be played"
        events.append(
            _event(
                f"season-fixture-{fixture.pk}",
                fixture.play_by,
                f"Play by: {players} ({season.league.name} season {season.number}, round {fixture.round})",
                f"Division {fixture.division.tier}, round {fixture.round}, board {fixture.board}; {state}. "
                f"Game {fixture.game_id}.",
                stamp=stamp,
            )
        )
    return events


def _fixtures():
    return Fixture.objects.select_related("season__league", "division").order_by("play_by", "pk")


def _board_events(boards: list[TournamentBoard], deadlines: dict, *, stamp: datetime) -> list[icalendar.Event]:
    names = _names(pk for board in boards for pk in board.seat_ids)
    events = []
    for board in boards:
        deadline = deadlines.get((board.tournament_id, board.round))
        if deadline is None or board.is_bye:
            continue
        players = " v ".join(names.get(pk, "?") for pk in board.seat_ids)
        state = "decided" if board.is_done else "to be played"
        events.append(
            _event(
                f"tournament-board-{board.pk}",
                deadline,
                f"Play by: {players} ({board.tournament.name}, round {board.round})",
                f"Round {board.round}, board {board.number}; {state}.",
                stamp=stamp,
            )
        )
    return events


def _round_event(round_: TournamentRound, tournament: Tournament, boards: int, *, stamp) -> icalendar.Event:
    return _event(
        f"tournament-{tournament.pk}-round-{round_.number}",
        round_.deadline_at,
        f"Round {round_.number} deadline: {tournament.name}",
        f"Every game of round {round_.number} ({boards} boards) must be finished by now.",
        stamp=stamp,
    )


def _challenge_events(challenges, *, stamp: datetime) -> list[icalendar.Event]:
    events = []
    for challenge in challenges:
        pair = f"{challenge.challenger.username} v {challenge.defender.username}"
        where = f"{challenge.ladder.name or 'ladder ' + str(challenge.ladder_id)}"
        if challenge.status == Challenge.Status.ISSUED:
            uid, at, summary = "answer", challenge.accept_by, f"Answer by: challenge {pair} ({where})"
            description = f"{challenge.defender.username} accepts or declines by now, or forfeits."
        else:
            uid, at, summary = "play", challenge.play_by, f"Play by: challenge {pair} ({where})"
            description = "The challenge game must be finished by now."
        if at is not None:
            events.append(_event(f"challenge-{challenge.pk}-{uid}", at, summary, description, stamp=stamp))
    return events


def _open_challenges():
    return Challenge.objects.filter(status__in=Challenge.OPEN).select_related("ladder", "challenger", "defender")


def season_calendar(season: Season, *, tier: int | None = None, now: datetime | None = None) -> icalendar.Calendar:
    """Every fixture of the season (or of division ``tier``) at its play-by date. Linear: 10,000
    fixtures take about 1.2 s of CPU, nearly all in the library's line folding."""
    stamp = now or datetime.now(UTC)
    calendar = _calendar(f"{season.league.name} season {season.number}")
    fixtures = _fixtures().filter(season=season)
    if tier is not None:
        fixtures = fixtures.filter(division__tier=tier)
    for event in _fixture_events(list(fixtures), stamp=stamp):
        calendar.add_component(event)
    return calendar


def tournament_calendar(tournament: Tournament, *, now: datetime | None = None) -> icalendar.Calendar:
    """Each paired round with a deadline (later rounds appear once they are paired)."""
    stamp = now or datetime.now(UTC)
    calendar = _calendar(tournament.name)
    counts = dict(TournamentBoard.objects.filter(tournament=tournament).values_list("round").annotate(n=Count("pk")))
    rounds = TournamentRound.objects.filter(tournament=tournament, deadline_at__isnull=False).order_by("number")
    for round_ in rounds:
        calendar.add_component(_round_event(round_, tournament, counts.get(round_.number, 0), stamp=stamp))
    return calendar


def ladder_calendar(ladder: Ladder, *, now: datetime | None = None) -> icalendar.Calendar:
    """The open challenges: answer-by dates of issued ones, play-by dates of accepted ones."""
    stamp = now or datetime.now(UTC)
    calendar = _calendar(ladder.name or f"Ladder {ladder.pk}")
    for event in _challenge_events(_open_challenges().filter(ladder=ladder).order_by("issued_at"), stamp=stamp):
        calendar.add_component(event)
    return calendar


def player_calendar(user, *, now: datetime | None = None) -> icalendar.Calendar:
    """One player's deadlines: their fixtures in running seasons, their boards in running tournaments
    (at the round's deadline), and their open ladder challenges."""
    stamp = now or datetime.now(UTC)
    calendar = _calendar(f"Kifu: {user.username}")
    fixtures = _fixtures().filter(
        Q(home=user) | Q(away=user) | Q(players__contains=[user.pk]), season__status=Season.Status.RUNNING
    )
    boards = list(
        TournamentBoard.objects.filter(tournament__status=Tournament.Status.RUNNING, players__contains=[user.pk])
        .select_related("tournament")
        .order_by("tournament_id", "round", "number")
    ) + list(
        TournamentBoard.objects.filter(tournament__status=Tournament.Status.RUNNING, players=[])
        .filter(Q(first=user) | Q(second=user))
        .select_related("tournament")
        .order_by("tournament_id", "round", "number")
    )
    deadlines = {
        (row["tournament_id"], row["number"]): row["deadline_at"]
        for row in TournamentRound.objects.filter(
            tournament_id__in={b.tournament_id for b in boards}, deadline_at__isnull=False
        ).values("tournament_id", "number", "deadline_at")
    }
    challenges = _open_challenges().filter(Q(challenger=user) | Q(defender=user)).order_by("issued_at")
    events = (
        _fixture_events(list(fixtures), stamp=stamp)
        + _board_events(boards, deadlines, stamp=stamp)
        + _challenge_events(challenges, stamp=stamp)
    )
    for event in events:
        calendar.add_component(event)
    return calendar


def player_feed_key(user) -> str:
    """The key in a player's feed address. It is an HMAC of the server's secret over the user and
    their password hash, so it needs no table and changes (revoking old addresses) when the password
    does; it opens only this feed, unlike the API token, which calendar apps should never hold."""
    return salted_hmac(FEED_KEY_SALT, f"{user.pk}:{user.password}", algorithm="sha256").hexdigest()[:40]


def player_feed_key_valid(user, key: str | None) -> bool:
    return bool(key) and constant_time_compare(player_feed_key(user), key)
