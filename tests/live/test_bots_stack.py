"""Every registered game, played end to end on the real stack by bot accounts written with
kifu_client: a heuristic bot and random bots on alternating seats, each following its own game
stream (no polling). Small configs keep each game short."""

from __future__ import annotations

import threading
import uuid

import pytest

from bots.random_bot import Bot, BotResult
from games.engines import REGISTRY
from kifu_client import KifuClient

pytestmark = [pytest.mark.stack, pytest.mark.django_db]

PASSWORD = "a-long-pass-1"

# slug -> (players, config): short games; every registered engine must be here (checked below).
GAMES = {
    "nine-card": (2, {}),
    "satori": (2, {"katsu_window_seconds": 3}),
    "turn-thief": (4, {"max_discards": 8, "reaction_window_seconds": 10}),
    "1234": (2, {}),
    "necropolis": (2, {"turn_limit": 12}),
    "mekuri-hinmin": (2, {"auto_tie_after_events": 80}),
    "twenty-two": (2, {"elimination_threshold": 5, "first_deal_size": 3}),
    "twenty-two/gambling_cucumber": (
        3,
        {"variant": "gambling_cucumber", "elimination_threshold": 5, "first_deal_size": 3},
    ),
    "kazekami-kyoko": (2, {}),
    "believers": (2, {"max_contributions": 6}),
}


def test_every_registered_engine_is_played():
    assert {case.split("/")[0] for case in GAMES} == set(REGISTRY)


def requests_of(client: KifuClient) -> list[tuple[str, str]]:
    log: list[tuple[str, str]] = []
    client.http.hooks["response"].append(lambda r, *a, **k: log.append((r.request.method, r.request.path_url)))
    return log


@pytest.mark.parametrize("case", sorted(GAMES))
def test_bots_play_every_game_from_the_streams(stack, case):
    engine = case.split("/")[0]
    players, config = GAMES[case]
    kinds = ["heuristic" if seat % 2 == 0 else "random" for seat in range(players)]
    clients = []
    for _ in range(players):
        client = KifuClient.create_account(stack.base_url, f"bot{uuid.uuid4().hex[:10]}", PASSWORD, bot=True)
        assert client.me()["bot"] is True
        clients.append(client)
    mature = REGISTRY[engine].mature
    if mature:  # an operator vouches for the bot accounts, as the arena's --mature-consent does
        for client in clients:
            client.mature_consent(adult=True, consent=True)
    game = clients[0].create_game(engine, [client.username for client in clients], config)
    assert all(seat["bot"] for seat in game["seats"])
    if mature:
        for client in clients[1:]:
            client.accept(game["id"])
    logs = [requests_of(client) for client in clients]

    results: list[BotResult | BaseException | None] = [None] * players

    def run(seat: int) -> None:
        try:
            bot = Bot.of_kind(kinds[seat], clients[seat], engine, seed=seat, stream_timeout=60)
            results[seat] = bot.play(game["id"])
        except BaseException as error:  # re-raised below
            results[seat] = error

    threads = [threading.Thread(target=run, args=(seat,), daemon=True) for seat in range(players)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(90)
    assert not any(thread.is_alive() for thread in threads), f"{case}: a bot did not finish in 90 s"
    bot_requests = [list(log) for log in logs]  # before the checks below add their own
    for result in results:
        if isinstance(result, BaseException):
            raise result

    final = clients[0].game(game["id"])
    assert final["status"] == "finished", final
    assert all(r.finished and r.outcome == final["outcome"] for r in results), case
    assert [r.seat for r in results] == list(range(players))
    moves = [e for e in clients[0].events(game["id"]) if e["kind"] == "move"]
    accepted, pending = sum(r.accepted for r in results), sum(r.pending for r in results)
    assert 0 < accepted <= len(moves) <= accepted + pending, (case, accepted, pending, len(moves))
    assert results[0].accepted > 0 and results[0].views > 0, "the heuristic bot never decided anything"
    assert clients[0].verification(game["id"])["ok"]
    # From the streams alone: a random bot reads only its stream and submits moves; a heuristic
    # bot also reads its seat's state once per decision - never a polling loop.
    for seat, log in enumerate(bot_requests):
        paths = {(method, path.split("?")[0].removeprefix(f"/api/games/{game['id']}")) for method, path in log}
        allowed = {("GET", "/stream"), ("POST", "/moves")} | ({("GET", "/state")} if kinds[seat] != "random" else set())
        assert paths <= allowed, (case, seat, paths)
        state_reads = sum(1 for method, path in log if path.split("?")[0].endswith("/state"))
        assert state_reads == results[seat].views <= results[seat].messages
