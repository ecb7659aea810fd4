"""Reads of reported results: a pairing's reports with their steps, and the reports waiting for a
player."""

from __future__ import annotations

from django.db.models import Prefetch, Q

from ..models import LeagueGame, Match, ResultReport, ResultReportStep
from ..selectors import usernames


def _with_steps(rows):
    return rows.select_related("reported_by").prefetch_related(
        Prefetch("steps", queryset=ResultReportStep.objects.select_related("actor").order_by("seq"))
    )


def pairing_reports(*, kind: str, key: str) -> list[ResultReport]:
    """Every report of a pairing, newest first, with its steps."""
    return list(_with_steps(ResultReport.objects.filter(kind=kind, pairing=str(key))).order_by("-reported_at"))


def reports_for(*, user, waiting_only: bool = False) -> list[ResultReport]:
    """The open reports of pairings ``user`` plays in (``waiting_only``: those waiting for their
    confirmation), oldest deadline first."""
    # Open reports are few (each waits days at most), and JSON containment is PostgreSQL's only
    # (embedded mode runs SQLite): filtered here rather than in SQL.
    rows = _with_steps(ResultReport.objects.filter(status__in=ResultReport.OPEN)).order_by("confirm_by")
    mine = [report for report in rows if user.pk in report.players]
    if waiting_only:
        return [r for r in mine if r.status == ResultReport.Status.PENDING and user.pk not in r.confirmed_by]
    return mine


def owner_reports(*, owner: str, owner_id) -> list[ResultReport]:
    """The reports of a ladder's, tournament's or season's pairings, newest first (its log of
    reported results)."""
    return list(_with_steps(ResultReport.objects.filter(Q(**{f"{owner}_id": owner_id}))).order_by("-reported_at"))


def _names(ids) -> dict[int, str]:
    return usernames(ids)


def report_dict(report: ResultReport, names: dict[int, str] | None = None) -> dict:
    """A report with usernames for user ids (the API's and the pages' shape)."""
    players = list(report.players)
    steps = list(report.steps.all())
    if names is None:
        names = _names([*players, *[s.actor_id for s in steps if s.actor_id], report.reported_by_id or 0])
    name = lambda pk: names.get(pk, str(pk))  # noqa: E731
    scores = None if report.scores is None else {name(int(pk)): value for pk, value in report.scores.items()}
    return {
        "id": report.pk,
        "kind": report.kind,
        "pairing": report.pairing,
        "status": report.status,
        "ranking": [[name(pk) for pk in group] for group in report.ranking],
        "scores": scores,
        "game": report.game_id,
        "reported_by": name(report.reported_by_id) if report.reported_by_id else None,
        "reported_at": report.reported_at,
        "confirm_by": report.confirm_by,
        "confirmed_by": [name(pk) for pk in report.confirmed_by],
        "waiting_for": [name(pk) for pk in players if pk not in report.confirmed_by] if report.is_open else [],
        "decided_at": report.decided_at,
        "steps": [
            {
                "seq": step.seq,
                "kind": step.kind,
                "actor": name(step.actor_id) if step.actor_id else None,
                "at": step.at,
                "reason": (step.payload or {}).get("reason", ""),
            }
            for step in steps
        ],
    }


def pairing_dict(pairing, reports: list[ResultReport]) -> dict:
    """A pairing (``pairings.Pairing``) with its reports, newest first."""
    ids = set(pairing.players)
    for report in reports:
        ids.update(report.players)
        ids.add(report.reported_by_id or 0)
        ids.update(step.actor_id for step in report.steps.all() if step.actor_id)
    names = _names(ids)
    described = [report_dict(report, names) for report in reports]
    owner = pairing.owner
    owner_name = str(owner) if pairing.owner_field == "season" else owner.name
    return {
        "kind": pairing.kind,
        "id": pairing.key,
        "owner": {"kind": pairing.owner_field, "id": owner.pk, "name": owner_name},
        "players": [names.get(pk, str(pk)) for pk in pairing.players],
        "results": pairing.mode,
        "report_confirm_hours": pairing.confirm_hours,
        "series": pairing.series,
        "decided": pairing.decided,
        "game": pairing.game.pk if pairing.game is not None else None,
        "open_report": next((r for r in described if r["status"] in ResultReport.OPEN), None),
        "reports": described,
    }


def rated_pairings_open(*, ladder) -> list[dict]:
    """A rating ladder's rated games and series not yet rated, each as ``{"kind", "id", "players"}``
    (usernames), for the ladder page's links to their report pages."""
    games = LeagueGame.objects.filter(ladder=ladder, challenge=None, match=None, recorded=False).select_related("game")
    matches = Match.objects.filter(ladder=ladder, challenge=None, status=Match.Status.RUNNING)
    rows = [
        ("game", str(link.game_id), link.game.seats.order_by("index").values_list("user_id", flat=True))
        for link in games
    ]
    rows += [("match", str(match.pk), match.players) for match in matches]
    names = usernames([pk for _kind, _key, players in rows for pk in players])
    return [
        {"kind": kind, "id": key, "players": [names.get(pk, str(pk)) for pk in players]} for kind, key, players in rows
    ]
