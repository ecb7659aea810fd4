"""The real stack end to end: a Swiss tournament over HTTP whose rounds are paired by the worker
as soon as the last game of the previous round ends, to final standings (JSON and CSV)."""

from __future__ import annotations

import pytest

from kifu.devstack import wait_until

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


def ok(response, status: int = 200):
    assert response.status_code == status, response.text
    return response.json() if response.headers.get("Content-Type", "").startswith("application/json") else response


def test_a_swiss_tournament_runs_itself_on_the_worker(stack, players):
    organiser, *entrants = players(6)
    slug = f"club-{organiser.name}"
    ok(organiser.post("/api/clubs", {"name": f"Club {organiser.name}", "slug": slug}), 201)
    for player in entrants:
        ok(player.post(f"/api/clubs/{slug}/join"))
        ok(organiser.post(f"/api/clubs/{slug}/members/{player.name}/approve"))
    tournament = ok(
        organiser.post(
            f"/api/clubs/{slug}/tournaments",
            {"name": "Night Swiss", "engine": "nine-card", "format": "swiss", "rounds": 3, "seed": 1},
        ),
        201,
    )
    tid = tournament["id"]
    for player in entrants:
        ok(player.post(f"/api/tournaments/{tid}/entries"), 201)
    assert ok(organiser.post(f"/api/tournaments/{tid}/start"))["current_round"] == 1
    by_name = {p.name: p for p in entrants}
    rank = {p.name: i for i, p in enumerate(entrants)}
    for number in (1, 2, 3):
        boards = ok(organiser.get(f"/api/tournaments/{tid}/rounds", round=number))
        assert len(boards) == 3  # five players: two games and a bye
        for board in boards:
            if board["second"] is None:
                continue
            loser = max(board["first"], board["second"], key=rank.get)  # the better seed wins
            moved = by_name[loser].move(board["game"], {"type": "resign"})
            assert moved.status_code == 200 and moved.json()["status"] == "accepted", moved.text
        wait_until(
            lambda n=number: (
                (t := organiser.get(f"/api/tournaments/{tid}").json())["current_round"] > n or t["status"] == "finished"
            ),
            60,
            f"the worker to take round {number}'s results",
        )
    final = ok(organiser.get(f"/api/tournaments/{tid}/standings"))
    assert final["status"] == "finished"
    assert final["standings"][0]["username"] == entrants[0].name and final["standings"][0]["points"] == 3
    assert sum(row["points"] for row in final["standings"]) == 6 + 3  # six games, three byes
    csv_text = ok(organiser.get(f"/api/tournaments/{tid}/standings.csv")).text
    assert csv_text.splitlines()[1].split(",")[1] == entrants[0].name
