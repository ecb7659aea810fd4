"""Reported results (issue 17): a seated player reports, the others confirm or dispute, an organiser
settles or enters a result; a pending report counts as confirmed when its time runs out; a finished
table game is its keeper's report. A confirmed or settled result decides the pairing through its
kind's own path (``pairings.decide_reported``, ``pairings.decide_table_game``).

Every service locks the pairing's owner, then its row (``pairings.pairing_get(lock=True)``), then
the report, so two steps on one pairing are serialised. Each step is a ``ResultReportStep`` (the
tournament's and season's log of reported results) and, for a ladder's pairing, an event in the
ladder log. A step sent again with the same idempotency key by the same person returns the report
as it is and does nothing twice.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from games.errors import ServiceError
from games.models import Game
from games.table import table_game_for_pairing
from kifu.locking import lock_by_id

from ..models import Ladder, ResultReport, ResultReportStep, Tournament
from ..scoring import reports as rules
from ..scoring.errors import ScoringError
from ..seasons.models import Season
from ..services.ladders import ladder_update
from ..services.log import event_append, projection_advance
from ..services.matches import game_ranking
from ..services.membership import is_organiser, require_organiser
from .pairings import (
    LADDER_STEPS,
    Pairing,
    decide_reported,
    decide_table_game,
    pairing_game_replace,
    pairing_get,
    pairing_of_game,
)

log = logging.getLogger("kifu.league")
Status, Step = ResultReport.Status, ResultReportStep.Kind
REASON_LENGTH = 200


# ---- the steps ---------------------------------------------------------------------------------
def _step(report: ResultReport, pairing: Pairing, kind: str, *, actor, now: datetime, payload=None, key: str = ""):
    seq = report.steps.count() + 1
    payload = payload or {}
    ResultReportStep.objects.create(
        report=report, seq=seq, kind=kind, actor=actor, at=now, payload=payload, idempotency_key=key or ""
    )
    if pairing.ladder is not None and kind in LADDER_STEPS:
        body = {"report": str(report.pk), pairing.kind: pairing.key, **payload}
        event_append(pairing.ladder, kind=LADDER_STEPS[kind], payload=body, actor=actor, at=now)


def _repeat(pairing: Pairing, by, key: str, *kinds: str) -> ResultReport | None:
    """The report a step of one of ``kinds`` with this idempotency key already made, if ``by`` sent
    it before."""
    if not key:
        return None
    if len(key) > 100:
        raise ServiceError("bad_idempotency_key", "the idempotency key must be 1-100 characters")
    step = (
        ResultReportStep.objects.filter(
            actor=by, idempotency_key=key, report__kind=pairing.kind, report__pairing=pairing.key
        )
        .select_related("report")
        .first()
    )
    if step is None:
        return None
    if step.kind not in kinds:
        raise ServiceError(
            "idempotency_key_reused",
            f"this idempotency key was used for a {step.kind} step of this pairing; send a new key",
            status=409,
        )
    return step.report


def _open_report(pairing: Pairing) -> ResultReport | None:
    report = ResultReport.objects.filter(kind=pairing.kind, pairing=pairing.key, status__in=ResultReport.OPEN).first()
    return lock_by_id(ResultReport, report.pk) if report else None


def _require_seated(pairing: Pairing, by) -> None:
    if by is None or not by.is_authenticated:
        raise ServiceError("not_authenticated", "log in (send your API token) to do this", status=401)
    if by.pk not in pairing.players:
        raise ServiceError(
            "not_in_pairing", "only the players of this pairing may report or confirm its result", status=403
        )


def _player_step(kind: str, pairing, by, key: str, step: str) -> tuple[Pairing, ResultReport | None]:
    """The pairing locked, for a step of one of its players, and the report if this step (same
    person, same idempotency key) was done already."""
    target = pairing_get(kind, pairing, lock=True)
    _require_seated(target, by)
    return target, _repeat(target, by, key, step)


def _require_no_online_play(pairing: Pairing) -> None:
    """Unless the pairing is decided at the table only, a game begun on the server decides it: no
    report or organiser's entry overrides it (a decided result is corrected by the corrections)."""
    if pairing.mode != rules.TABLE and pairing.online_game_played():
        raise ServiceError(
            "online_game_in_play",
            "this pairing's game is being played on the server; its result decides the pairing, not a report",
            status=409,
        )


def _require_undecided(pairing: Pairing) -> None:
    if pairing.decided:
        raise ServiceError(
            "pairing_decided",
            "this pairing is decided already; an organiser corrects a decided result with a correction",
            status=409,
        )


def _checked(pairing: Pairing, ranking, scores) -> tuple[list, dict | None]:
    try:
        return rules.check_result(pairing.players, ranking, scores, series=pairing.series)
    except ScoringError as error:
        raise ServiceError(error.code, error.message) from None


def _decide(report: ResultReport, pairing: Pairing, status: str, *, now: datetime, actor) -> None:
    report.status, report.decided_at = status, now
    report.save(update_fields=["status", "decided_at", "confirmed_by", "ranking", "scores"])
    if report.game_id and report.game.source == Game.Source.TABLE:
        decide_table_game(pairing, report.game_id, now=now)
    else:
        decide_reported(pairing, report.ranking, _int_keys(report.scores), now=now, actor=actor)


def _int_keys(scores: dict | None) -> dict | None:
    return None if scores is None else {int(player): value for player, value in scores.items()}


def _json_scores(scores: dict | None) -> dict | None:
    return None if scores is None else {str(player): value for player, value in scores.items()}


def _new_report(target: Pairing, ranking, scores, *, by, now, confirmed_by, hours=None, game=None) -> ResultReport:
    hours = target.confirm_hours if hours is None else hours
    return ResultReport.objects.create(
        kind=target.kind,
        pairing=target.key,
        players=target.players,
        ranking=ranking,
        scores=_json_scores(scores),
        game=game,
        reported_by=by,
        reported_at=now,
        confirm_by=now + timedelta(hours=hours),
        confirmed_by=confirmed_by,
        **{target.owner_field: target.owner},
    )


def _finish(pairing: Pairing) -> None:
    if pairing.ladder is not None:
        projection_advance(pairing.ladder)


@transaction.atomic
def result_report(
    *, kind: str, pairing: str, by, ranking, scores=None, idempotency_key: str = "", now: datetime | None = None
) -> ResultReport:
    """A seated player reports the result of a pairing played at a table: ``ranking`` of user ids
    (best first, ties grouped), ``scores`` by user id (a series: each player's match points)."""
    now = now or timezone.now()
    target, repeat = _player_step(kind, pairing, by, idempotency_key, Step.REPORTED)
    if repeat is not None:
        return repeat
    if target.mode == rules.ONLINE:
        raise ServiceError(
            "reports_not_allowed",
            "this pairing is decided by a game played on the server only; an organiser may allow results "
            'reported from a table (setting "results": "either" or "table")',
            status=409,
        )
    _require_undecided(target)
    _require_no_online_play(target)
    if _open_report(target) is not None:
        raise ServiceError(
            "report_open",
            "a result is already reported for this pairing: confirm or dispute it instead",
            status=409,
        )
    ranking, scores = _checked(target, ranking, scores)
    report = _new_report(target, ranking, scores, by=by, now=now, confirmed_by=[by.pk])
    payload = {"ranking": ranking, "scores": report.scores}
    _step(report, target, Step.REPORTED, actor=by, now=now, payload=payload, key=idempotency_key)
    _finish(target)
    return report


def _waiting(report: ResultReport) -> list[int]:
    """The players who have not confirmed yet."""
    return [player for player in report.players if player not in report.confirmed_by]


@transaction.atomic
def result_confirm(*, kind: str, pairing: str, by, idempotency_key: str = "", now: datetime | None = None):
    """Another player of the pairing confirms its open report; when every player has, it decides
    the pairing."""
    now = now or timezone.now()
    target, repeat = _player_step(kind, pairing, by, idempotency_key, Step.CONFIRMED)
    if repeat is not None:
        return repeat
    _require_undecided(target)
    report = _must_be_open(target)
    if by.pk in report.confirmed_by:
        code, words = (
            ("own_report", "you reported this result; the other players confirm it")
            if report.reported_by_id == by.pk
            else ("already_confirmed", "you have confirmed this result already")
        )
        raise ServiceError(code, words, status=409)
    if report.status == Status.DISPUTED:
        raise ServiceError("report_disputed", "this result is disputed; an organiser settles it now", status=409)
    report.confirmed_by = [*report.confirmed_by, by.pk]
    _step(report, target, Step.CONFIRMED, actor=by, now=now, key=idempotency_key)
    if _waiting(report):
        report.save(update_fields=["confirmed_by"])
    else:
        _decide(report, target, Status.CONFIRMED, now=now, actor=by)
    _finish(target)
    return report


def _must_be_open(target: Pairing) -> ResultReport:
    report = _open_report(target)
    if report is None:
        _require_undecided(target)
        raise ServiceError("no_open_report", "no result is reported for this pairing yet", status=409)
    return report


def _reason(reason) -> str:
    reason = (reason or "").strip()
    if len(reason) > REASON_LENGTH:
        raise ServiceError("invalid_reason", f"say why in at most {REASON_LENGTH} characters")
    return reason


@transaction.atomic
def result_dispute(
    *, kind: str, pairing: str, by, reason: str = "", idempotency_key: str = "", now: datetime | None = None
):
    """Another player of the pairing disputes its pending report: an organiser settles it."""
    now = now or timezone.now()
    target, repeat = _player_step(kind, pairing, by, idempotency_key, Step.DISPUTED)
    if repeat is not None:
        return repeat
    reason = _reason(reason)
    _require_undecided(target)
    report = _must_be_open(target)
    if report.reported_by_id == by.pk:
        raise ServiceError("own_report", "you reported this result; ask an organiser to change it", status=409)
    if report.status == Status.DISPUTED:
        raise ServiceError("report_disputed", "this result is disputed already; an organiser settles it", status=409)
    report.status = Status.DISPUTED
    report.save(update_fields=["status"])
    _step(report, target, Step.DISPUTED, actor=by, now=now, payload={"reason": reason}, key=idempotency_key)
    _finish(target)
    return report


@transaction.atomic
def result_settle(
    *,
    kind: str,
    pairing: str,
    by,
    ranking=None,
    scores=None,
    reason: str = "",
    idempotency_key: str = "",
    now: datetime | None = None,
):
    """An organiser decides the pairing: settles its open (pending or disputed) report - as reported
    when no ``ranking`` is given - or, with none open, enters the result directly."""
    now = now or timezone.now()
    target = pairing_get(kind, pairing, lock=True)
    require_organiser(target.club_id, by)
    repeat = _repeat(target, by, idempotency_key, Step.SETTLED, Step.ENTERED)
    if repeat is not None:
        return repeat
    report = _open_report(target)
    step = Step.SETTLED if report is not None else Step.ENTERED
    _require_undecided(target)
    if report is None or not report.game_id:
        _require_no_online_play(target)
    reason = _reason(reason)
    if report is not None and report.game_id and ranking is not None:
        raise ServiceError(
            "table_game_result",
            "this report is a table game's record: settle it as recorded, or correct it after it is decided",
        )
    if report is None and ranking is None:
        raise ServiceError("ranking_required", "no result is reported: send the ranking to enter", status=409)
    if ranking is not None:
        ranking, scores = _checked(target, ranking, scores)
    if report is None:
        report = _new_report(target, ranking, scores, by=by, now=now, confirmed_by=[], hours=0)
    elif ranking is not None:
        report.ranking, report.scores = ranking, _json_scores(scores)
    payload = {"ranking": report.ranking, "scores": report.scores, "reason": reason}
    _step(report, target, step, actor=by, now=now, payload=payload, key=idempotency_key)
    _decide(report, target, Status.SETTLED, now=now, actor=by)
    _finish(target)
    return report


# ---- time runs out -----------------------------------------------------------------------------
@transaction.atomic
def report_auto_confirm(*, report_id, now: datetime | None = None) -> bool:
    """Confirm one pending report whose time has run out (the players who did not answer in time
    are taken to agree). Returns whether it decided the pairing."""
    now = now or timezone.now()
    first = ResultReport.objects.filter(pk=report_id).values("kind", "pairing").first()
    if first is None:
        return False
    target = pairing_get(first["kind"], first["pairing"], lock=True)
    report = lock_by_id(ResultReport, report_id)
    if report.status != Status.PENDING or report.confirm_by > now:
        return False
    if target.decided:
        report.status, report.decided_at = Status.SUPERSEDED, now
        report.save(update_fields=["status", "decided_at"])
        _step(report, target, Step.SUPERSEDED, actor=None, now=now)
        return False
    waiting = _waiting(report)
    report.confirmed_by = [*report.confirmed_by, *waiting]
    _step(report, target, Step.AUTO_CONFIRMED, actor=None, now=now, payload={"for": waiting})
    _decide(report, target, Status.CONFIRMED, now=now, actor=None)
    _finish(target)
    return True


def reports_sweep(*, now: datetime | None = None) -> int:
    """Beat (and the embedded timer): confirm every pending report whose time has run out. Returns
    the pairings decided."""
    now = now or timezone.now()
    due = ResultReport.objects.filter(status=Status.PENDING, confirm_by__lte=now).order_by("confirm_by")
    return sum(report_auto_confirm(report_id=pk, now=now) for pk in list(due.values_list("pk", flat=True)))


# ---- table games -------------------------------------------------------------------------------
@transaction.atomic
def table_game_finished(*, game_id, now: datetime | None = None) -> ResultReport | None:
    """A game recorded at a table (``Game.Source.TABLE``) that belongs to a pairing has finished: its
    outcome is its keeper's report, waiting for the other players' confirmation (a keeper who is not
    one of the players confirms nothing). Idempotent: None for other games and repeats. A pairing
    decided online only does not take table games (logged)."""
    now = now or timezone.now()
    game = Game.objects.filter(pk=game_id, source=Game.Source.TABLE, status=Game.Status.FINISHED).first()
    link = pairing_of_game(game_id) if game is not None else None
    if link is None:
        return None
    target = pairing_get(*link, lock=True)
    if ResultReport.objects.filter(game=game).exists() or target.decided:
        return None
    if target.mode == rules.ONLINE:
        log.warning("table game %s: its %s %s is decided online only; not taken", game_id, *link)
        return None
    stale = _open_report(target)
    if stale is not None:  # a hand-written report of the same pairing gives way to the record
        stale.status, stale.decided_at = Status.SUPERSEDED, now
        stale.save(update_fields=["status", "decided_at"])
        _step(stale, target, Step.SUPERSEDED, actor=None, now=now, payload={"game": str(game.pk)})
    ranking, scores = game_ranking(game)
    keeper = _keeper(game)
    seated = [keeper.pk] if keeper is not None and keeper.pk in target.players else []
    report = _new_report(target, ranking, scores or None, by=keeper, now=now, confirmed_by=seated, game=game)
    payload = {"ranking": ranking, "scores": report.scores, "game": str(game.pk)}
    _step(report, target, Step.REPORTED, actor=keeper, now=now, payload=payload)
    _finish(target)
    return report


@transaction.atomic
def pairing_to_table(*, kind: str, pairing, by) -> tuple[str, Game]:
    """Play the pairing at a real table: its server game, not yet played, is replaced by a table game
    that ``by`` (a player of the pairing or an organiser) records with the table recorder
    (``games.table``); its finish comes back as that keeper's report (``table_game_finished``).
    Returns the pairing's key (a rated game's is its game, so it changes) and the table game. Sent
    again once moved, it returns the same table game. Refusals: 409 ``reports_not_allowed`` (the
    pairing is decided online only), ``pairing_decided``, ``no_game``, and the recorder's own
    (``game_in_play`` once a move was made on the server, ...)."""
    target = pairing_get(kind, pairing, lock=True)
    if by is None or not by.is_authenticated:
        raise ServiceError("not_authenticated", "log in (send your API token) to do this", status=401)
    organiser = is_organiser(target.club_id, by)
    if by.pk not in target.players and not organiser:
        raise ServiceError(
            "not_in_pairing", "only the players of this pairing or an organiser may move it to the table", status=403
        )
    _require_undecided(target)
    if target.mode == rules.ONLINE:
        raise ServiceError(
            "reports_not_allowed",
            "this pairing is decided by a game on the server only; an organiser may allow table results "
            "(results: table or either)",
            status=409,
        )
    game = target.game
    if game is None:
        raise ServiceError("no_game", "this pairing has no game to play at the table yet", status=409)
    if game.source == Game.Source.TABLE:
        return target.key, game
    table = table_game_for_pairing(game_id=game.pk, keeper=by, organiser=organiser)
    return pairing_game_replace(target, table), table


def _keeper(game: Game):
    """Who kept the table game: the author of its last accepted line where the recorder keeps them
    (``games.table``'s entries, reached by their related name), else its creator - the keeper of a
    game started at the table, or the organiser of an event's pairing game."""
    entries = getattr(game, "table_entries", None)
    last = entries.filter(status="accepted").select_related("keeper").order_by("-pk").first() if entries else None
    return last.keeper if last is not None else game.created_by


def may_settle(pairing: Pairing, user) -> bool:
    return is_organiser(pairing.club_id, user)


# ---- the organiser's setting -------------------------------------------------------------------
OWNERS = ("ladder", "tournament", "season")


@transaction.atomic
def reporting_set(*, owner: str, owner_id, by, results: str | None = None, confirm_hours=None) -> dict:
    """An organiser sets how the pairings of a ladder, tournament or season may be decided
    (``results``: online, table or either) and after how many hours an unconfirmed report counts as
    confirmed. A ladder's change is a ``settings_changed`` event of its log; a tournament's is kept
    in its settings, a season's in its rules. Applies to reports made from now on."""
    changes = {}
    try:
        if results is not None:
            changes["results"] = rules.check_mode(results)
        if confirm_hours is not None:
            changes["report_confirm_hours"] = rules.check_confirm_hours(confirm_hours)
    except ScoringError as error:
        raise ServiceError(error.code, error.message) from None
    if owner == "ladder":
        if changes:
            ladder_update(ladder_id=owner_id, by=by, settings=changes)
        return reporting_of(Ladder.objects.get(pk=owner_id).settings)
    model, field = {"tournament": (Tournament, "settings"), "season": (Season, "rules")}[owner]
    row = lock_by_id(model, owner_id, missing=ServiceError("not_found", f"no such {owner}", status=404))
    club = row.club_id if owner == "tournament" else row.league.club_id
    require_organiser(club, by)
    if changes:
        setattr(row, field, {**getattr(row, field), **changes})
        row.save(update_fields=[field])
    return reporting_of(getattr(row, field))


def reporting_get(*, owner: str, owner_id) -> dict:
    """The reporting setting of a ladder, tournament or season (404 if there is none)."""
    model, field = {
        "ladder": (Ladder, "settings"),
        "tournament": (Tournament, "settings"),
        "season": (Season, "rules"),
    }[owner]
    row = model.objects.filter(pk=owner_id).first()
    if row is None:
        raise ServiceError("not_found", f"no such {owner}", status=404)
    return reporting_of(getattr(row, field))


def reporting_of(settings: dict) -> dict:
    return {
        "results": settings.get("results", rules.DEFAULT_MODE),
        "report_confirm_hours": float(settings.get("report_confirm_hours", rules.DEFAULT_CONFIRM_HOURS)),
    }
