"""The real stack end to end: a seasonal league over HTTP - two divisions, every fixture finished by
a resign, results recorded by the worker through game_finished, the season closing itself, and
season 2 built with the right players promoted, relegated, dropped and joining."""

from __future__ import annotations

import pytest

from kifu.devstack import wait_until

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


def ok(response, status: int = 200):
    assert response.status_code == status, response.text
    return response.json() if response.headers.get("Content-Type", "").startswith("application/json") else response


def test_a_league_season_runs_on_the_worker_and_the_next_promotes_and_relegates(stack, players):
    organiser, a1, a2, a3, a4, b1, b2, b3, newcomer = players(9)
    slug = f"club-{organiser.name}"
    ok(organiser.post("/api/clubs", {"name": f"Club {organiser.name}", "slug": slug}), 201)
    for player in (a1, a2, a3, a4, b1, b2, b3, newcomer):
        ok(player.post(f"/api/clubs/{slug}/join"))
        ok(organiser.post(f"/api/clubs/{slug}/members/{player.name}/approve"))
    league = ok(
        organiser.post(
            f"/api/clubs/{slug}/leagues",
            {"name": "Tuesday Nine Card League", "engine": "nine-card", "divisions": 2, "days_per_round": 7},
        ),
        201,
    )
    lid = league["id"]
    refused = a1.post(f"/api/leagues/{lid}/players", {"username": a1.name})
    assert refused.status_code == 403 and refused.json()["code"] == "not_organiser"
    for player in (a1, a2, a3, a4, b1, b2, b3):
        ok(organiser.post(f"/api/leagues/{lid}/players", {"username": player.name}), 201)
    season = ok(organiser.post(f"/api/leagues/{lid}/seasons", {}), 201)
    sid = season["id"]
    names = lambda group: [p.name for p in group]  # noqa: E731
    assert [[p["username"] for p in d["players"]] for d in season["divisions"]] == [
        names((a1, a2, a3, a4)),
        names((b1, b2, b3)),
    ]

    # who wins: in division 1 the bottom seed beats everyone, in division 2 too
    strength = {p.name: i for i, p in enumerate((a4, a1, a2, a3, b3, b1, b2))}
    by_name = {p.name: p for p in (a1, a2, a3, a4, b1, b2, b3)}
    fixtures = ok(organiser.get(f"/api/seasons/{sid}/fixtures"))
    assert len(fixtures) == 6 + 3
    for fixture in fixtures:
        loser = max(fixture["home"], fixture["away"], key=strength.get)
        moved = by_name[loser].move(fixture["game"], {"type": "resign"})
        assert moved.status_code == 200 and moved.json()["status"] == "accepted", moved.text
    wait_until(
        lambda: organiser.get(f"/api/seasons/{sid}").json()["status"] == "closed",
        60,
        "the worker to record every result and close the season",
    )
    final = ok(organiser.get(f"/api/seasons/{sid}/standings"))
    tables = [[row["username"] for row in d["standings"]] for d in final["divisions"]]
    assert tables == [names((a4, a1, a2, a3)), names((b3, b1, b2))]
    assert [row["points"] for row in final["divisions"][0]["standings"]] == [9, 6, 3, 0]
    assert [row["zone"] for row in final["divisions"][0]["standings"]] == [None, None, "relegated", "relegated"]
    assert [row["zone"] for row in final["divisions"][1]["standings"]] == ["promoted", "promoted", None]
    fixtures = ok(organiser.get(f"/api/seasons/{sid}/fixtures"))
    assert {f["method"] for f in fixtures} == {"played"}
    csv_lines = ok(organiser.get(f"/api/seasons/{sid}/standings.csv")).text.splitlines()
    assert csv_lines[1].split(",")[:4] == ["1", "1", a4.name, "9.0"]

    # between seasons: a1 drops out, a newcomer joins
    ok(organiser.post(f"/api/leagues/{lid}/players", {"username": newcomer.name}), 201)
    ok(organiser.http.delete(f"{organiser.base_url}/api/leagues/{lid}/players/{a1.name}", timeout=30))
    plan = ok(organiser.get(f"/api/leagues/{lid}/next-season"))
    assert plan["leaving"] == [a1.name]
    second = ok(organiser.post(f"/api/leagues/{lid}/seasons", {}), 201)
    assert second["number"] == 2
    divisions = [[(p["username"], p["came"]) for p in d["players"]] for d in second["divisions"]]
    assert divisions == [
        [(a4.name, "stayed"), (b3.name, "promoted"), (b1.name, "promoted")],
        [(a2.name, "relegated"), (a3.name, "relegated"), (b2.name, "stayed"), (newcomer.name, "new")],
    ]
    assert [[p["username"] for p in d["players"]] for d in plan["divisions"]] == [
        [name for name, _ in d] for d in divisions
    ]
    assert len(ok(organiser.get(f"/api/seasons/{second['id']}/fixtures"))) == 3 + 6
