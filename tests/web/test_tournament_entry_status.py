"""A finished tournament's entries say finished and where they placed, not "playing": on the page,
in the API's entries, and in the standings (JSON and CSV); a withdrawn entry still says so."""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client
from rest_framework.test import APIClient

from league.tournaments import ops
from tests.web.test_tournament_pages import club, make, page_of, play_round  # noqa: F401 (club: the fixture)

pytestmark = pytest.mark.django_db


def entry_cells(page: str) -> dict[str, str]:
    rows = page.split('id="entries"')[1].split("</tbody>")[0].split("<tr data-entry=")[1:]
    return {row.split('"')[1]: row.split("<td>")[-1].split("</td>")[0] for row in rows}


def test_entries_say_finished_and_placed_once_the_tournament_is_over(club):  # noqa: F811
    club_, organiser, members = club
    tournament = make(club_, organiser, members[:5], rounds=2)
    api = APIClient()
    assert {e["status"] for e in api.get(f"/api/tournaments/{tournament.pk}").json()["entries"]} == {"active"}
    assert set(entry_cells(page_of(Client(), tournament)).values()) == {"playing"}
    play_round(tournament)
    ops.tournament_drop(tournament_id=tournament.pk, by=organiser, player=members[4])
    play_round(tournament)
    assert tournament.status == "finished"

    standings = api.get(f"/api/tournaments/{tournament.pk}/standings").json()["standings"]
    rank = {row["username"]: row["rank"] for row in standings}
    cells = entry_cells(page_of(Client(), tournament))
    assert "playing" not in cells.values()
    assert cells[members[4].username] == "withdrew after round 2"  # round 2 was already paired
    for member in members[:4]:
        assert cells[member.username] == f"finished, placed {rank[member.username]}"
    assert sorted(rank[m.username] for m in members[:5]) == sorted(row["rank"] for row in standings)

    entries = {e["username"]: e for e in api.get(f"/api/tournaments/{tournament.pk}").json()["entries"]}
    assert entries[members[4].username]["status"] == "dropped"
    for member in members[:4]:
        assert entries[member.username]["status"] == "finished"
        assert entries[member.username]["rank"] == rank[member.username]
    assert {row["username"]: row["status"] for row in standings} == {
        m.username: "dropped" if m == members[4] else "finished" for m in members[:5]
    }
    sheet = api.get(f"/api/tournaments/{tournament.pk}/standings.csv").content.decode("utf-8-sig")
    statuses = {row["username"]: row["status"] for row in csv.DictReader(io.StringIO(sheet))}
    assert statuses == {row["username"]: row["status"] for row in standings}
    # the players' pages say where they placed, or that they withdrew
    profile = Client().get(f"/players/{members[0].username}/").content.decode()
    assert f"finished, placed {rank[members[0].username]})" in profile.split('id="player-tournaments"')[1]
    assert "finished, withdrew)" in Client().get(f"/players/{members[4].username}/").content.decode()
    japanese = Client(HTTP_ACCEPT_LANGUAGE="ja").get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f"終了・{rank[members[0].username]}位" in japanese
