"""The reported results' API (issue 17): report, confirm, dispute, settle by username; refusal codes
and statuses; the Idempotency-Key header; results waiting for me; the organiser's setting."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from league import services
from league.models import Challenge, LadderEvent, ResultReport

pytestmark = pytest.mark.django_db


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def test_report_confirm_by_api_with_idempotency_and_my_waiting_list(club_with, clock):
    club, organiser, (aki, ben, cho) = club_with(3)
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card")
    for member in (aki, ben):
        services.ladder_join(ladder_id=ladder.pk, by=member)
    challenge = services.challenge_create(ladder_id=ladder.pk, by=ben, defender=aki)
    base = f"/api/pairings/challenge/{challenge.pk}"
    body = {"ranking": [[ben.username], [aki.username]], "scores": {ben.username: 5, aki.username: 4}}
    refused = api(ben).post(f"{base}/report", body, format="json")
    assert refused.status_code == 409 and refused.json()["code"] == "reports_not_allowed"
    assert api(aki).put(f"/api/ladders/{ladder.pk}/reporting", {"results": "either"}, format="json").status_code == 403
    setting = api(organiser).put(f"/api/ladders/{ladder.pk}/reporting", {"results": "either"}, format="json")
    assert setting.json() == {"results": "either", "report_confirm_hours": 48.0}
    assert api().get(f"/api/ladders/{ladder.pk}/reporting").json()["results"] == "either"
    bad = api(organiser).put(f"/api/ladders/{ladder.pk}/reporting", {"results": "chess"}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_results_mode"
    assert api().post(f"{base}/report", body, format="json").status_code == 401
    outsider = api(cho).post(f"{base}/report", body, format="json")
    assert outsider.status_code == 403 and outsider.json()["code"] == "not_in_pairing"
    wrong = api(ben).post(f"{base}/report", {"ranking": [[ben.username], [cho.username]]}, format="json")
    assert wrong.status_code == 400 and wrong.json()["code"] == "player_not_in_pairing"
    ghost = api(ben).post(f"{base}/report", {"ranking": [["nobody"], [aki.username]]}, format="json")
    assert ghost.status_code == 400 and ghost.json()["code"] == "unknown_player"
    for _ in range(2):
        answer = api(ben).post(f"{base}/report", body, format="json", HTTP_IDEMPOTENCY_KEY="slip-7")
        assert answer.status_code == 200, answer.json()
    assert ResultReport.objects.count() == 1
    shouted = f"/api/pairings/challenge/{str(challenge.pk).upper()}/report"  # the same pairing, spelt otherwise
    again = api(ben).post(shouted, body, format="json", HTTP_IDEMPOTENCY_KEY="slip-7")
    assert again.status_code == 200 and ResultReport.objects.count() == 1
    shown = answer.json()["open_report"]
    assert shown["ranking"] == [[ben.username], [aki.username]]
    assert shown["scores"] == {ben.username: 5.0, aki.username: 4.0}
    assert shown["waiting_for"] == [aki.username] and shown["steps"][0]["actor"] == ben.username
    mine = api(aki).get("/api/me/reports").json()
    assert [r["pairing"] for r in mine] == [str(challenge.pk)]
    assert api(ben).get("/api/me/reports").json() == []
    assert len(api(ben).get("/api/me/reports?waiting=false").json()) == 1
    assert api(ben).get("/api/me/reports?waiting=maybe").json()["code"] == "bad_parameter"
    confirmed = api(aki).post(f"{base}/confirm", {"idempotency_key": "ok"}, format="json")
    assert confirmed.status_code == 200 and confirmed.json()["decided"] is True
    assert api(aki).post(f"{base}/confirm", {"idempotency_key": "ok"}, format="json").status_code == 200
    again = api(aki).post(f"{base}/confirm", {}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "pairing_decided"
    assert Challenge.objects.get(pk=challenge.pk).status == "decided"
    assert LadderEvent.objects.filter(ladder=ladder, kind="result", payload__source="report").count() == 1
    assert api().get("/api/pairings/duel/1").json()["code"] == "unknown_pairing_kind"
    assert api().get("/api/pairings/challenge/nope").status_code == 404


def test_settle_and_dispute_by_api(club_with, clock):
    club, organiser, (aki, ben) = club_with(2)
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card", settings={"results": "table"})
    for member in (aki, ben):
        services.ladder_join(ladder_id=ladder.pk, by=member)
    challenge = services.challenge_create(ladder_id=ladder.pk, by=ben, defender=aki)
    base = f"/api/pairings/challenge/{challenge.pk}"
    nothing = api(aki).post(f"{base}/confirm", {}, format="json")
    assert nothing.status_code == 409 and nothing.json()["code"] == "no_open_report"
    api(ben).post(f"{base}/report", {"ranking": [[ben.username, aki.username]]}, format="json")
    disputed = api(aki).post(f"{base}/dispute", {"reason": "I won 5-4"}, format="json")
    assert disputed.json()["open_report"]["status"] == "disputed"
    assert api(ben).post(f"{base}/settle", {}, format="json").json()["code"] == "not_organiser"
    settled = api(organiser).post(
        f"{base}/settle", {"ranking": [[aki.username], [ben.username]], "reason": "sheet"}, format="json"
    )
    assert settled.status_code == 200 and settled.json()["decided"] is True
    steps = [step["kind"] for step in settled.json()["reports"][0]["steps"]]
    assert steps == ["reported", "disputed", "settled"]
    assert Challenge.objects.get(pk=challenge.pk).outcome == {"winner": aki.pk, "reason": "report"}


def test_a_mature_games_pairing_is_shown_only_with_consent(club_with, clock):
    from games import services as game_services
    from league.models import TournamentBoard
    from league.tournaments import lifecycle

    club, organiser, (ann, bob, cy) = club_with(3)
    for user in (organiser, ann, bob):
        game_services.mature_consent_confirm(user=user, adult=True, consent=True)
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Late", engine="kazekami-kyoko", format="round_robin",
        settings={"mature": True, "results": "table"},
    )  # fmt: skip
    for player in (ann, bob):
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=player)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser)
    board = TournamentBoard.objects.get(tournament=tournament, round=1, second__isnull=False)
    assert api(ann).get(f"/api/pairings/board/{board.pk}").status_code == 200
    for viewer in (cy, None):
        assert api(viewer).get(f"/api/pairings/board/{board.pk}").json()["code"] == "not_found"


def test_a_tournaments_log_of_reported_results(club_with, clock):
    from league.models import TournamentBoard
    from league.tournaments import lifecycle

    club, organiser, (aki, ben) = club_with(2)
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Cup", engine="nine-card", format="round_robin",
        settings={"results": "table"},
    )  # fmt: skip
    for player in (aki, ben):
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=player)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser)
    board = TournamentBoard.objects.get(tournament=tournament)
    assert api().get(f"/api/tournaments/{tournament.pk}/reports").json() == []
    base = f"/api/pairings/board/{board.pk}"
    api(aki).post(f"{base}/report", {"ranking": [[aki.username], [ben.username]]}, format="json")
    api(ben).post(f"{base}/confirm", {}, format="json")
    (report,) = api().get(f"/api/tournaments/{tournament.pk}/reports").json()
    assert report["status"] == "confirmed" and report["pairing"] == str(board.pk)
    assert [(step["kind"], step["actor"]) for step in report["steps"]] == [
        ("reported", aki.username),
        ("confirmed", ben.username),
    ]
    assert api().get("/api/tournaments/999999/reports").json()["code"] == "not_found"
