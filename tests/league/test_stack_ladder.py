"""The real stack end to end: a club, a Nine Card challenge ladder, a challenge over HTTP that
becomes a game two clients play to the end, and the ladder moving once the worker records it."""

from __future__ import annotations

import pytest

from kifu.devstack import wait_until

from ..conftest import Player

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


def ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json() if response.content else {}


def play_out(game_id: str, challenger: Player, defender: Player, *, defender_resigns: bool = False) -> dict:
    """Both commit every turn (the challenger its highest card, the defender its lowest: legal
    moves come sorted by value) until the game ends; or, after one turn, the defender resigns."""
    for turn in range(20):
        game = challenger.get(f"/api/games/{game_id}").json()
        if game["status"] == "finished":
            return game
        if defender_resigns and turn == 1:
            assert ok(defender.move(game_id, {"type": "resign"}))["status"] == "accepted"
            continue
        for player, pick in ((challenger, -1), (defender, 0)):
            moves = player.get(f"/api/games/{game_id}/legal-moves").json()["moves"]
            if moves:
                assert ok(player.move(game_id, moves[pick]))["status"] == "accepted"
    raise AssertionError("the game did not end")


def test_a_challenge_over_http_becomes_a_game_and_moves_the_ladder(stack, players):
    organiser, first, second = players(3)
    slug = f"club-{organiser.name}"
    ok(organiser.post("/api/clubs", {"name": f"Club {organiser.name}", "slug": slug}), 201)
    ladder = ok(
        organiser.post(f"/api/clubs/{slug}/ladders", {"engine": "nine-card", "settings": {"rematch_cooldown_days": 0}}),
        201,
    )
    for player in (first, second):
        ok(player.post(f"/api/clubs/{slug}/join"))  # asks to join ...
        ok(organiser.post(f"/api/clubs/{slug}/members/{player.name}/approve"))  # ... and is admitted
        ok(player.post(f"/api/ladders/{ladder['id']}/join"))
    standings = f"/api/ladders/{ladder['id']}/standings"
    assert [e["username"] for e in ok(first.get(standings))] == [first.name, second.name]

    by_name = {first.name: first, second.name: second}
    games = 0
    # The first game is played out (any result: a defender's win or a draw moves nothing); if the
    # challenger did not win it, the defender resigns the next one, so the test never rests on luck.
    for attempt in range(2):
        top, bottom = (by_name[e["username"]] for e in ok(first.get(standings)))
        challenge = ok(bottom.post(f"/api/ladders/{ladder['id']}/challenges", {"defender": top.name}), 201)
        assert challenge["status"] == "issued" and challenge["accept_by"]
        accepted = ok(top.post(f"/api/challenges/{challenge['id']}/accept"))
        game = play_out(accepted["game"], bottom, top, defender_resigns=attempt > 0)
        games += 1
        decided = wait_until(
            lambda c=challenge, p=bottom: (
                (d := p.get(f"/api/challenges/{c['id']}").json())["status"] == "decided" and d
            ),
            20,
            "the worker to record the game in the ladder",
        )
        winner_seat = game["outcome"]["ranking"][0]
        winner = game["seats"][winner_seat[0]]["player"] if len(winner_seat) == 1 else None
        assert decided["winner"] == winner, (decided, game["outcome"])
        after = [e["username"] for e in ok(first.get(standings))]
        if winner == bottom.name:
            assert after == [bottom.name, top.name], after
            break
        assert after == [top.name, bottom.name], after
    else:
        raise AssertionError("the challenger did not win even when the defender resigned")

    log = ok(organiser.get(f"/api/ladders/{ladder['id']}/events"))
    result = [e for e in log if e["kind"] == "result"][-1]
    assert result["payload"]["game"] == accepted["game"] and result["names"][str(result["payload"]["challenger"])]
    entries = {e["username"]: e for e in ok(first.get(standings))}
    assert entries[bottom.name]["won"] == 1
    history = ok(first.get(f"/api/ladders/{ladder['id']}/players/{bottom.name}/ratings"))
    assert len(history) == games and history[-1]["mu"] > history[-1]["mu_before"]  # the win raised it
    assert history[-1]["mu"] == entries[bottom.name]["mu"]
    assert sum(e["played"] for e in entries.values()) == 2 * games
    assert ok(first.get(f"/api/ladders/{ladder['id']}/verification"))["ok"]
