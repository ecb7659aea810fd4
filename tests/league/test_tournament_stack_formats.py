"""The real stack end to end, one test per format: multiplayer Swiss (turn-thief tables of four),
single elimination with best-of-three match boards, double elimination, groups to a playoff, and
a round deadline forfeited by beat. Everything goes through the API over HTTP; the worker pairs
each round when the last board of the previous one ends; players finish games by resigning."""

from __future__ import annotations

import time
import uuid

import pytest
import requests

from kifu.devstack import wait_until

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


def ok(response, status: int = 200):
    assert response.status_code == status, response.text
    return response.json()


def fetch(player, path: str, **params):
    """GET with a retry when the connection drops (a starved web worker can be restarted mid-test)."""
    for attempt in range(3):
        try:
            return ok(player.get(path, **params))
        except requests.ConnectionError:
            if attempt == 2:
                raise
            time.sleep(1)


def open_tournament(organiser, entrants, body: dict) -> int:
    slug = f"club-{organiser.name}"
    ok(organiser.post("/api/clubs", {"name": f"Club {organiser.name}", "slug": slug}), 201)
    for player in entrants:
        ok(player.post(f"/api/clubs/{slug}/join"))
        ok(organiser.post(f"/api/clubs/{slug}/members/{player.name}/approve"))
    tid = ok(organiser.post(f"/api/clubs/{slug}/tournaments", body), 201)["id"]
    for player in entrants:
        ok(player.post(f"/api/tournaments/{tid}/entries"), 201)
    return tid


def resign(player, game_id: str) -> None:
    key = uuid.uuid4().hex  # the same key on a retry: the move is applied once
    for attempt in range(3):
        try:
            moved = player.move(game_id, {"type": "resign"}, key=key)
            break
        except requests.ConnectionError:
            if attempt == 2:
                raise
            time.sleep(1)
    assert moved.status_code == 200 and moved.json()["status"] == "accepted", moved.text


def board_now(organiser, tid: int, number: int, board: int) -> dict:
    return next(b for b in fetch(organiser, f"/api/tournaments/{tid}/rounds", round=number) if b["number"] == board)


def play_to_the_end(organiser, tid: int, by_name: dict, loser_of, limit: int = 12) -> list[list[dict]]:
    """Each round: on every open board ``loser_of(board)`` resigns (each game of a match board, until
    the match is decided); then wait for the worker to pair the next round or finish. Returns the
    boards of each round as they ended."""
    for _ in range(limit):
        tournament = fetch(organiser, f"/api/tournaments/{tid}")
        if tournament["status"] == "finished":
            every = fetch(organiser, f"/api/tournaments/{tid}/rounds")
            return [[b for b in every if b["round"] == n] for n in range(1, tournament["current_round"] + 1)]
        number = tournament["current_round"]
        boards = fetch(organiser, f"/api/tournaments/{tid}/rounds", round=number)
        for board in boards:
            while board["result"] is None and board["decided_by"] == "":
                game = board["game"]
                resign(by_name[loser_of(board)], game)
                board = wait_until(
                    lambda g=game, n=board["number"], r=number: (
                        ((b := board_now(organiser, tid, r, n))["decided_by"] or b["game"] != g) and b
                    ),
                    60,
                    f"board {board['number']} of round {number} to record its game",
                )
        wait_until(
            lambda r=number: (
                (t := fetch(organiser, f"/api/tournaments/{tid}"))["current_round"] > r or t["status"] == "finished"
            ),
            60,
            f"the worker to take round {number}'s results",
        )
    raise AssertionError("the tournament did not finish")


def test_multi_swiss_of_turn_thief_on_the_worker(stack, players):
    organiser, *entrants = players(9)
    tid = open_tournament(
        organiser,
        entrants,
        {"name": "Thieves", "engine": "turn-thief", "format": "multi_swiss", "rounds": 2, "seed": 7,
         "settings": {"placement_points": [3, 1, 0, 0]}},
    )  # fmt: skip
    started = ok(organiser.post(f"/api/tournaments/{tid}/start"))
    assert started["settings"]["seats"] == {"preferred": 4, "min": 4, "max": 4}
    by_name = {p.name: p for p in entrants}
    rounds = play_to_the_end(organiser, tid, by_name, lambda board: board["players"][-1])  # seat 3 resigns
    assert len(rounds) == 2
    for boards in rounds:
        assert sorted(len(b["players"]) for b in boards) == [4, 4]
        assert all(b["placements"][-1] == [b["players"][-1]] for b in boards)
    record = fetch(organiser, f"/api/tournaments/{tid}/rounds/2")
    assert record["seed"] == 9 and len(record["pairing_input"]["players"]) == 8 and record["pairing_input"]["met"]
    final = fetch(organiser, f"/api/tournaments/{tid}/standings")
    assert final["status"] == "finished" and len(final["standings"]) == 8
    assert sum(row["points"] for row in final["standings"]) == 4 * (3 + 1)
    assert final["standings"][0]["points"] >= 4


def test_single_elimination_of_best_of_three_matches_on_the_worker(stack, players):
    organiser, *entrants = players(5)
    tid = open_tournament(
        organiser,
        entrants,
        {"name": "Knockout", "engine": "nine-card", "format": "single_elimination",
         "settings": {"third_place": True, "match": {"format": "best_of", "target": 3}}},
    )  # fmt: skip
    seeding = [p.name for p in reversed(entrants)]
    member = entrants[0]
    refused = member.post(f"/api/tournaments/{tid}/start", {"seeding": seeding})
    assert refused.status_code == 403 and refused.json()["code"] == "not_organiser"
    ok(organiser.post(f"/api/tournaments/{tid}/start", {"seeding": seeding}))
    strength = {name: index for index, name in enumerate(seeding)}
    by_name = {p.name: p for p in entrants}
    rounds = play_to_the_end(organiser, tid, by_name, lambda b: max(b["players"], key=strength.get))
    assert [sorted(b["bracket_match"] for b in boards) for boards in rounds] == [["W1-1", "W1-2"], ["3P", "W2-1"]]
    assert all(b["decided_by"] == "match" and b["match"] for boards in rounds for b in boards)
    final = fetch(organiser, f"/api/tournaments/{tid}/standings")["standings"]
    assert [(row["rank"], row["username"]) for row in final] == list(enumerate(seeding, start=1))


def test_double_elimination_on_the_worker(stack, players):
    organiser, *entrants = players(5)
    tid = open_tournament(
        organiser, entrants, {"name": "Double", "engine": "nine-card", "format": "double_elimination"}
    )
    ok(organiser.post(f"/api/tournaments/{tid}/start"))
    strength = {p.name: index for index, p in enumerate(entrants)}
    by_name = {p.name: p for p in entrants}
    rounds = play_to_the_end(organiser, tid, by_name, lambda b: max(b["players"], key=strength.get))
    played = [b["bracket_match"] for boards in rounds for b in boards]
    assert "GF" in played and "GF2" not in played  # the winners-bracket champion won: no reset
    assert len(played) == 2 * 4 - 2  # no reset: 2n - 2 matches (everyone but the champion loses twice)
    final = fetch(organiser, f"/api/tournaments/{tid}/standings")["standings"]
    assert [row["username"] for row in final[:2]] == [entrants[0].name, entrants[1].name]


def test_groups_to_playoff_on_the_worker(stack, players):
    organiser, *entrants = players(7)
    tid = open_tournament(
        organiser,
        entrants,
        {"name": "Cup", "engine": "nine-card", "format": "groups_playoff", "settings": {"groups": 2, "advance": 2}},
    )
    started = ok(organiser.post(f"/api/tournaments/{tid}/start"))
    groups = {e["username"]: e["group"] for e in started["entries"]}
    assert sorted(groups.values()) == [0, 0, 0, 1, 1, 1]
    strength = {p.name: index for index, p in enumerate(entrants)}
    by_name = {p.name: p for p in entrants}
    rounds = play_to_the_end(organiser, tid, by_name, lambda b: max(b["players"], key=strength.get))
    stages = [sorted({b["bracket_match"] for b in boards}) for boards in rounds]
    assert stages[:3] == [[""], [""], [""]] and stages[3:] == [["W1-1", "W1-2"], ["W2-1"]]
    final = fetch(organiser, f"/api/tournaments/{tid}/standings")["standings"]
    assert [row["username"] for row in final[:2]] == [entrants[0].name, entrants[1].name]
    assert [row["rank"] for row in final] == [1, 2, 3, 3, 5, 6]


def test_a_round_deadline_is_forfeited_by_beat(stack, players):
    organiser, first, second = players(3)
    tid = open_tournament(
        organiser,
        [first, second],
        {"name": "Slow", "engine": "nine-card", "format": "swiss", "rounds": 1,
         "settings": {"round_deadline_seconds": 10}},
    )  # fmt: skip
    ok(organiser.post(f"/api/tournaments/{tid}/start"))
    (board,) = fetch(organiser, f"/api/tournaments/{tid}/rounds", round=1)
    assert fetch(organiser, f"/api/tournaments/{tid}/rounds/1")["deadline_at"]
    wait_until(
        lambda: fetch(organiser, f"/api/tournaments/{tid}")["status"] == "finished",
        40,
        "beat to forfeit the round at its deadline and the worker to finish the tournament",
    )
    (board,) = fetch(organiser, f"/api/tournaments/{tid}/rounds", round=1)
    assert board["decided_by"] == "double_forfeit" and board["result"] == "0-0"  # nobody moved
    game = fetch(organiser, f"/api/games/{board['game']}")
    assert game["status"] == "finished"
    last = fetch(organiser, f"/api/games/{board['game']}/events")[-1]  # a system resign that says why
    assert (last["kind"], last["data"]) == ("system", {"type": "resign", "seat": 0, "reason": "round deadline"})
    assert fetch(organiser, f"/api/games/{board['game']}/verification")["ok"] is True
    final = fetch(organiser, f"/api/tournaments/{tid}/standings")["standings"]
    assert [row["points"] for row in final] == [0, 0]


def test_round_operations_on_the_worker(stack, players):
    """A correction completes round 1, a withdrawal and a planned pairing shape round 2: the worker
    pairs it from the corrected standings, with the organiser's tables."""
    organiser, *entrants = players(5)
    tid = open_tournament(
        organiser, entrants, {"name": "Ops", "engine": "nine-card", "format": "swiss", "rounds": 2, "seed": 3}
    )
    ok(organiser.post(f"/api/tournaments/{tid}/start"))
    by_name = {p.name: p for p in entrants}
    played, corrected = fetch(organiser, f"/api/tournaments/{tid}/rounds", round=1)
    resign(by_name[played["second"]], played["game"])  # first seat wins board 1
    wait_until(
        lambda: fetch(organiser, f"/api/tournaments/{tid}/rounds", round=1)[0]["result"] == "1-0",
        60,
        "the worker to record board 1",
    )
    quitter = by_name[played["second"]]
    dropped = ok(quitter.post(f"/api/tournaments/{tid}/drop"))
    assert {e["username"]: e["status"] for e in dropped["entries"]}[quitter.name] == "dropped"
    stay = [played["first"], corrected["first"], corrected["second"]]
    plan = {"round": 2, "tables": [[corrected["second"], played["first"]], [corrected["first"]]]}
    refused = ok(organiser.post(f"/api/tournaments/{tid}/pairings", {**plan, "tables": [stay]}), 400)
    assert refused["code"] == "invalid_pairing"
    assert ok(organiser.post(f"/api/tournaments/{tid}/pairings", plan)) == {"round": 2, "planned": True}
    # the organiser decides board 2 (second seat wins): the round is complete, the worker pairs round 2
    ranking = [[corrected["second"]], [corrected["first"]]]
    ok(organiser.post(f"/api/tournaments/{tid}/results", {"round": 1, "board": 2, "ranking": ranking}))
    wait_until(
        lambda: fetch(organiser, f"/api/tournaments/{tid}")["current_round"] == 2, 60, "the worker to pair round 2"
    )
    boards = fetch(organiser, f"/api/tournaments/{tid}/rounds", round=2)
    assert [b["players"] for b in boards] == plan["tables"]
    assert fetch(organiser, f"/api/tournaments/{tid}/rounds/2")["manual"] is True
    resign(by_name[played["first"]], boards[0]["game"])
    wait_until(
        lambda: fetch(organiser, f"/api/tournaments/{tid}")["status"] == "finished", 60, "the tournament to finish"
    )
    final = {r["username"]: r for r in fetch(organiser, f"/api/tournaments/{tid}/standings")["standings"]}
    assert final[corrected["second"]]["points"] == 2 and final[corrected["first"]]["byes"] == 1
    assert final[quitter.name]["status"] == "dropped" and final[quitter.name]["played"] == 1
