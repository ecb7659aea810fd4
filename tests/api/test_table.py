"""The table recorder (issue 17 part 2): a keeper records a game played at a real table line by line;
the engine checks each line at once, a resent line is stored once, and the finished record is an
ordinary record (export, verification, replay) marked as a table game, with no seed."""

from __future__ import annotations

import json
import random
import uuid

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from games import services, signals
from games.models import Event, Game, TableEntry
from games.records import replay_record
from games.table import table_game_for_pairing, table_keeper

pytestmark = pytest.mark.django_db

SPADES = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS"]
HEARTS = [card[:-1] + "H" for card in SPADES]


def user(name: str):
    return get_user_model().objects.create_user(username=name)


def api(account) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=account)
    return client


def refused(response, status: int, code: str) -> None:
    assert (response.status_code, response.json().get("code")) == (status, code), response.json()
    assert response.json()["message"]


class Keeper:
    """A keeper's client: sends each line with a fresh idempotency key and the seq it was typed for."""

    def __init__(self, account, game: dict) -> None:
        self.client, self.sheet = api(account), game

    @property
    def url(self) -> str:
        return f"/api/table-games/{self.sheet['game']}"

    def send(self, entry: dict, key: str | None = None, seq: bool = True):
        body = {"entry": {**entry, "seq": self.sheet["next_seq"]} if seq else entry}
        response = self.client.post(
            f"{self.url}/entries", body, format="json", HTTP_IDEMPOTENCY_KEY=key or uuid.uuid4().hex
        )
        if response.status_code in (200, 201):
            self.sheet = response.json()["sheet"]
        return response

    def ok(self, entry: dict):
        response = self.send(entry)
        assert response.status_code == 201, response.json()
        return response.json()

    def play_out(self, lines: int = 80) -> None:
        """Record the rest of the game as a table would: each chance step as the example outcome the
        sheet offers, each move a legal one it lists (chosen with a fixed seed), and a reaction window
        nobody answers closed; after ``lines`` lines the players resign in seat order until it ends."""
        rng = random.Random(7)
        for _ in range(lines):
            sheet = self.sheet
            if sheet["status"] == "finished":
                return
            closes = [line for line in sheet["system"] if line["type"] == "close_window"]
            if sheet["chance"]:
                self.ok({"kind": "chance", "data": sheet["chance"]["example"]})
            elif closes and (not sheet["actors"] or rng.random() < 0.3):  # nobody at the table answered
                self.ok({"kind": "system", "data": closes[0]})
            else:
                assert sheet["actors"], sheet
                seat = rng.choice(sheet["actors"])
                self.ok({"kind": "move", "seat": seat, "data": rng.choice(sheet["seats"][seat]["moves"])})
        for seat in range(len(self.sheet["seats"])):
            if self.sheet["status"] != "finished":
                response = self.send({"kind": "system", "data": {"type": "resign", "seat": seat}})
                assert response.status_code in (201, 422), response.json()  # 422: that seat had left
        assert self.sheet["status"] == "finished", self.sheet


def create(account, engine: str, seats: list[str], **extra) -> Keeper:
    response = api(account).post("/api/table-games", {"engine": engine, "seats": seats, **extra}, format="json")
    assert response.status_code == 201, response.json()
    return Keeper(account, response.json())


def finished_signals(capture):
    received = []

    def receiver(sender, game_id, outcome=None, **kwargs):
        received.append((str(game_id), outcome))

    signals.game_finished.connect(receiver)
    return received, receiver


def check_record(account, game_id: str, outcome: dict) -> None:
    """The finished record exports without a seed, replays to the stored outcome and verifies."""
    client = api(account)
    game = client.get(f"/api/games/{game_id}").json()
    assert game["source"] == "table" and game["status"] == "finished" and not game["seed"]
    record = client.get(f"/api/games/{game_id}/record")
    assert record.status_code == 200
    lines = record.content.decode().splitlines()
    header = json.loads(lines[0])
    assert "seed" not in header and "seed_sha256" not in header
    replay = replay_record(lines)
    assert replay.outcome_json() == outcome == game["outcome"]
    verification = client.get(f"/api/games/{game_id}/verification").json()
    assert verification["ok"] and verification["replay_ok"] and verification["projection_ok"], verification
    assert verification["seed_ok"] is None and verification["chance_ok"] is None
    assert verification["events"] == Event.objects.filter(game_id=game_id).count()
    client.force_login(account)  # the replay viewer is a web page: a session, not a token
    last = client.get(f"/games/{game_id}/replay.json", {"at": verification["events"]})
    assert last.status_code == 200 and last.json()["at"] == verification["events"]


def test_a_nine_card_game_recorded_at_the_table(django_capture_on_commit_callbacks):
    aki, ben = user("aki"), user("ben")
    keeper = create(aki, "nine-card", ["aki", "ben"], keeper_seat=0, meta={"place": "club room"})
    sheet = keeper.sheet
    assert sheet["source"] == "table" and sheet["status"] == "running" and sheet["head_seq"] == 0
    form = sheet["chance"]
    assert form["step"] == "deal" and form["completable"] == ["set_aside"]
    assert sorted(form["pool"]) == sorted(SPADES + HEARTS)
    assert {f["name"]: f["shape"] for f in form["fields"]} == {"hands": "per_seat", "set_aside": "per_seat"}
    assert Game.objects.get(pk=sheet["game"]).seed == ""
    # Someone else's table game is not theirs to keep.
    refused(api(ben).post(f"{keeper.url}/entries", {"entry": {"kind": "move"}}, format="json"), 403, "not_keeper")

    # Moves before the deal, a duplicate card, a card of the wrong suit: refused, nothing stored.
    refused(
        keeper.send({"kind": "move", "seat": 0, "data": {"type": "commit_card", "card": "AS"}}), 422, "chance_expected"
    )
    twice = {"type": "deal", "hands": [SPADES[:8] + ["AS"], HEARTS[:9]]}
    refused(keeper.send({"kind": "chance", "data": twice}), 422, "duplicate_card")
    wrong = {"type": "deal", "hands": [SPADES[:8] + ["KH"], HEARTS[:9]]}
    refused(keeper.send({"kind": "chance", "data": wrong}), 422, "bad_deal")
    assert not Event.objects.filter(game_id=sheet["game"]).exists()

    # The deal as the cards are revealed: the hands only; the set-aside cards are completed.
    key = uuid.uuid4().hex
    deal = {"kind": "chance", "data": {"type": "deal", "hands": [SPADES[:9], HEARTS[4:]]}, "seq": 1}
    first = keeper.send(deal, key=key, seq=False)
    assert first.status_code == 201 and first.json()["entry"]["event_seq"] == 1
    stored = Event.objects.get(game_id=sheet["game"], seq=1).payload
    assert stored["set_aside"] == [SPADES[9:], HEARTS[:4]]  # in pack order
    # The same line sent again (an answer lost on the way back): the first verdict, one event.
    again = keeper.send(deal, key=key, seq=False)
    assert again.status_code == 200 and again.json()["entry"]["id"] == first.json()["entry"]["id"]
    assert Event.objects.filter(game_id=sheet["game"]).count() == 1
    refused(keeper.send({**deal, "seq": 2}, key=key, seq=False), 409, "idempotency_conflict")
    # A line typed for a place the record has left (an old offline queue): refused, not misplaced.
    stale = {"kind": "move", "seat": 0, "data": {"type": "commit_card", "card": "AS"}, "seq": 1}
    refused(keeper.send(stale, seq=False), 409, "seq_mismatch")
    refused(keeper.send({"kind": "chance", "data": deal["data"]}), 422, "unexpected_chance")

    # The sheet offers each seat's legal moves; a card not in hand is refused with the engine's code.
    assert keeper.sheet["actors"] == [0, 1]
    assert {m["card"] for m in keeper.sheet["seats"][0]["moves"]} == set(SPADES[:9])
    assert keeper.sheet["seats"][1]["view"]["players"][1]["hand"]  # the keeper sees every seat's cards
    refused(
        keeper.send({"kind": "move", "seat": 1, "data": {"type": "commit_card", "card": "2H"}}), 422, "card_not_in_hand"
    )
    refused(
        keeper.send({"kind": "move", "seat": 7, "data": {"type": "commit_card", "card": "AS"}}), 422, "malformed_event"
    )
    refused(keeper.send({"kind": "guess", "data": {"type": "x"}}), 422, "malformed_entry")

    received, receiver = finished_signals(None)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            keeper.play_out()
    finally:
        signals.game_finished.disconnect(receiver)
    game = Game.objects.get(pk=sheet["game"])
    assert game.status == "finished" and received == [(str(game.pk), game.outcome)]
    assert game.head_seq in (1 + 12, 1 + 18)  # the deal, then two or three rounds of two commits a turn
    assert TableEntry.objects.filter(game=game, status="accepted").count() == game.head_seq
    assert table_keeper(game_id=game.pk) == aki
    refused(keeper.send({"kind": "system", "data": {"type": "resign", "seat": 0}}), 409, "game_over")
    check_record(aki, str(game.pk), game.outcome)
    assert (
        json.loads(api(aki).get(f"/api/games/{game.pk}/record").content.decode().splitlines()[0])["meta"]["place"]
        == "club room"
    )


def test_a_satori_game_completes_its_set_aside():
    keeper_account = user("keeper")
    keeper = create(keeper_account, "satori", ["aki", "ben", "chie"])
    form = keeper.sheet["chance"]
    assert form["completable"] == ["set_aside"]
    example = dict(form["example"])
    left_out = example.pop("set_aside")
    keeper.ok({"kind": "chance", "data": example})
    stored = Event.objects.get(game_id=keeper.sheet["game"], seq=1).payload
    assert sorted(stored["set_aside"]) == sorted(left_out)
    keeper.play_out()
    game = Game.objects.get(pk=keeper.sheet["game"])
    assert game.status == "finished"
    check_record(keeper_account, str(game.pk), game.outcome)


def test_a_necropolis_game_takes_its_exchange_draws_from_the_keeper():
    keeper_account = user("keeper")
    keeper = create(keeper_account, "necropolis", ["aki", "ben"], keeper_seat=1)
    tiles = keeper.sheet["chance"]["example"]["necropolis"]
    short = {"type": "deal", "necropolis": tiles[:-1] + [tiles[0]]}
    refused(keeper.send({"kind": "chance", "data": short}), 422, "duplicate_card")
    keeper.play_out()
    game = Game.objects.get(pk=keeper.sheet["game"])
    assert game.status == "finished"
    chance = Event.objects.filter(game=game, kind="chance").count()
    assert chance >= 1 and TableEntry.objects.filter(game=game).count() == game.head_seq + 1
    check_record(keeper_account, str(game.pk), game.outcome)


def test_a_1234_game_needs_its_stock_in_full():
    keeper_account = user("keeper")
    keeper = create(keeper_account, "1234", ["aki", "ben", "chie"])
    example = dict(keeper.sheet["chance"]["example"])
    assert keeper.sheet["chance"]["completable"] == []
    example.pop("stock")  # the stock is drawn from in play: never invented by the server
    response = keeper.send({"kind": "chance", "data": example})
    assert response.status_code == 422 and response.json()["code"] in ("malformed_event", "bad_deal")
    keeper.play_out()
    game = Game.objects.get(pk=keeper.sheet["game"])
    check_record(keeper_account, str(game.pk), game.outcome)


def test_a_pairing_game_moves_to_the_table():
    organiser, aki, ben, chie = user("organiser"), user("aki"), user("ben"), user("chie")
    server = services.game_create(
        engine_slug="nine-card", config=None, seats=[aki, ben], created_by=organiser, consent=True
    )
    assert server.status == "running" and server.head_seq == 1  # the server dealt
    with pytest.raises(Exception) as refusal:
        table_game_for_pairing(game_id=server.pk, keeper=chie)
    assert refusal.value.code == "not_keeper"
    game = table_game_for_pairing(game_id=server.pk, keeper=ben)
    server.refresh_from_db()
    assert server.status == "cancelled" and server.deadline_at is None
    assert game.source == "table" and game.organised and game.created_by == organiser and game.seed == ""
    assert [(s.user, s.name) for s in game.seats.order_by("index")] == [(aki, "aki"), (ben, "ben")]
    assert game.head_seq == 0 and game.status == "running"
    with pytest.raises(Exception) as again:
        table_game_for_pairing(game_id=server.pk, keeper=organiser)
    assert again.value.code == "game_cancelled"
    # The organiser and both players may keep it; their lines are checked like any other.
    keeper = Keeper(organiser, api(organiser).get(f"/api/table-games/{game.pk}").json())
    keeper.ok({"kind": "chance", "data": {"type": "deal", "hands": [SPADES[:9], HEARTS[:9]]}})
    assert api(aki).get(f"/api/table-games/{game.pk}").json()["head_seq"] == 1
    assert api(chie).get(f"/api/table-games/{game.pk}").status_code == 404
    played = services.game_create(
        engine_slug="nine-card", config=None, seats=[aki, ben], created_by=organiser, consent=True
    )
    services.move_submit(game_id=played.pk, user=aki, move={"type": "commit_card", "card": "AS"}, idempotency_key="k")
    services.game_advance(game_id=played.pk)
    if Event.objects.filter(game=played, kind="move").exists():
        with pytest.raises(Exception) as in_play:
            table_game_for_pairing(game_id=played.pk, keeper=aki)
        assert in_play.value.code == "game_in_play"


def test_creation_refusals():
    keeper_account = user("keeper")
    client = api(keeper_account)
    refused(
        client.post("/api/table-games", {"engine": "nine-card", "seats": ["a"]}, format="json"), 400, "bad_seat_count"
    )
    refused(
        client.post("/api/table-games", {"engine": "chess", "seats": ["a", "b"]}, format="json"), 400, "unknown_game"
    )
    body = {"engine": "nine-card", "seats": ["a", "b"], "keeper_seat": 2}
    refused(client.post("/api/table-games", body, format="json"), 400, "bad_seat")
    body = {"engine": "nine-card", "seats": ["a", "b"], "meta": {"spectator_delay_seconds": 5}}
    refused(client.post("/api/table-games", body, format="json"), 400, "unknown_meta_key")
    assert (
        APIClient().post("/api/table-games", {"engine": "nine-card", "seats": ["a", "b"]}, format="json").status_code
        == 401
    )
    server = services.game_create(
        engine_slug="nine-card", config=None, seats=[keeper_account, None], created_by=keeper_account
    )
    refused(client.get(f"/api/table-games/{server.pk}"), 409, "not_a_table_game")


@pytest.mark.parametrize(
    ("engine", "seats"),
    [
        ("turn-thief", 4),
        ("mekuri-hinmin", 2),
        ("twenty-two", 3),
        ("kazekami-kyoko", 2),
        ("believers", 3),
    ],
)
def test_every_other_engine_is_recordable(engine, seats):
    """The rest of the engines, recorded to the end from the sheet's own offers: the chance steps as
    a keeper would type them (the sheet's example outcome), each move a legal one it lists."""
    keeper_account = user("keeper")
    services.mature_consent_confirm(user=keeper_account, adult=True, consent=True)
    keeper = create(keeper_account, engine, [f"player {n}" for n in range(seats)], keeper_seat=0)
    keeper.play_out()
    game = Game.objects.get(pk=keeper.sheet["game"])
    assert game.status == "finished" and game.source == "table"
    if engine == "turn-thief":  # no timers at a table: the keeper closed each unanswered window
        assert Event.objects.filter(game=game, kind="system", payload__type="close_window").exists()
    check_record(keeper_account, str(game.pk), game.outcome)


@pytest.mark.parametrize(
    "data",
    [
        {"type": "deal", "hands": [SPADES[:9]]},
        {"type": "deal", "hands": [SPADES[:9], None]},
        {"type": "deal", "hands": [SPADES[:9], [1, 2]], "set_aside": [None, 7]},
        {"type": "deal", "hands": "AS", "set_aside": [[], []]},
        {"type": "deal", "hands": [[["AS"]], HEARTS[:9]]},
        {"type": "deal", "hands": [SPADES[:9], HEARTS[:9]], "set_aside": [SPADES[9:], HEARTS[:4] + ["AS"]]},
        {"type": "deal", "hands": [SPADES[:9], HEARTS[:9]], "extra": True},
        {"type": "reshuffle", "draw_pile": []},
        {"type": 7},
    ],
)
def test_a_malformed_deal_is_refused_never_a_server_error(data):
    keeper = create(user("keeper"), "nine-card", ["aki", "ben"])
    response = keeper.send({"kind": "chance", "data": data})
    assert response.status_code == 422 and response.json()["code"], response.json()
    assert not Event.objects.filter(game_id=keeper.sheet["game"]).exists()


def test_the_online_paths_never_deal_or_move_in_a_table_game():
    """A seated player's move through the online API is refused (the keeper enters every line), and
    a league's forfeit of a table game resigns the seat without drawing the next deal from a seed."""
    aki = user("aki")
    keeper = create(aki, "twenty-two", ["aki", "ben", "chie"], keeper_seat=0)
    game_id = keeper.sheet["game"]
    submitted = services.move_submit(game_id=game_id, user=aki, move={"type": "resign"}, idempotency_key="k")
    services.game_advance(game_id=game_id)
    submitted.submission.refresh_from_db()
    assert (submitted.submission.status, submitted.submission.code) == ("rejected", "table_game")
    due = keeper.sheet["chance"]["step"]
    services.game_forfeit(game_id=game_id, seats=[2], reason="round deadline")
    assert not Event.objects.filter(game_id=game_id, kind="chance").exists()
    sheet = api(aki).get(f"/api/table-games/{game_id}").json()
    assert sheet["status"] == "running" and sheet["chance"]["step"] == due  # still the keeper's to enter
    assert Event.objects.get(game_id=game_id, seq=1).payload == {
        "type": "resign",
        "seat": 2,
        "reason": "round deadline",
    }
