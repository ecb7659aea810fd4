"""Real objects for the schemathesis run (tests/robustness/test_fuzz_schema.py): each path parameter
of an operation gets the id or slug of something that exists, so the generated bodies and queries
reach the views' own checks instead of a 404.

The objects are made through the API itself, by the user the fuzzer calls as (the club's organiser),
and only those an operation's path needs: ``World(token).path_parameters(path)``.
"""

from __future__ import annotations

from functools import cached_property

from django.contrib.auth import get_user_model
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from rest_framework.test import APIClient

from league import services as league_services
from league.models import Club
from tests.web.games import random_record

CLUB = "fuzz-club"
RIVALS = ("fuzz-b", "fuzz-c", "fuzz-d")


class World:
    def __init__(self, token: str) -> None:
        self.api = APIClient()
        self.api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        self.me = get_user_model().objects.get(auth_token__key=token)

    def _ok(self, response, status: int = 201) -> dict:
        assert response.status_code == status, (response.status_code, response.content[:300])
        return response.json()

    def post(self, path: str, body: dict | None = None, status: int = 201) -> dict:
        return self._ok(self.api.post(path, body or {}, format="json"), status)

    @cached_property
    def rivals(self) -> list:
        return [get_user_model().objects.create_user(name) for name in RIVALS]

    @cached_property
    def club(self) -> str:
        self.post("/api/clubs", {"name": "Fuzz Club", "slug": CLUB})
        club_id = Club.objects.get(slug=CLUB).pk
        for rival in self.rivals:
            league_services.membership_invite(club_id=club_id, by=self.me, user=rival)
            league_services.membership_join(club_id=club_id, by=rival)
        return CLUB

    @cached_property
    def ladder(self) -> int:
        ladder = self.post(f"/api/clubs/{self.club}/ladders", {"engine": "nine-card", "name": "Fuzz ladder"})
        for rival in self.rivals:
            league_services.ladder_join(ladder_id=ladder["id"], by=rival)
        self.post(f"/api/ladders/{ladder['id']}/join", status=200)  # last: the fuzzer challenges upwards
        return ladder["id"]

    @cached_property
    def challenge(self) -> int:
        return self.post(f"/api/ladders/{self.ladder}/challenges", {"defender": RIVALS[-1]})["id"]

    @cached_property
    def league(self) -> int:
        body = {"name": "Fuzz league", "engine": "nine-card", "divisions": 1, "days_per_round": 7}
        league = self.post(f"/api/clubs/{self.club}/leagues", body)
        for name in (self.me.username, *RIVALS):
            self.post(f"/api/leagues/{league['id']}/players", {"username": name})
        return league["id"]

    @cached_property
    def season(self) -> int:
        return self.post(f"/api/leagues/{self.league}/seasons")["id"]

    @cached_property
    def fixture(self) -> int:
        fixtures = self._ok(self.api.get(f"/api/seasons/{self.season}/fixtures"), 200)
        return fixtures[0]["id"]

    @cached_property
    def tournament(self) -> int:
        body = {"name": "Fuzz cup", "engine": "nine-card", "format": "swiss"}
        tournament = self.post(f"/api/clubs/{self.club}/tournaments", body)
        for name in (self.me.username, *RIVALS):
            self.post(f"/api/tournaments/{tournament['id']}/entries", {"username": name})
        self.post(f"/api/tournaments/{tournament['id']}/start", status=200)
        return tournament["id"]

    @cached_property
    def game(self) -> int:
        """A game in play with the fuzzer in a seat."""
        seats = [self.me.username, self.rivals[0].username]
        return self.post("/api/games", {"engine": "nine-card", "seats": seats})["id"]

    @cached_property
    def finished_game(self) -> int:
        """A finished game with its record (imported)."""
        record = random_record("nine-card", [self.me.username, self.rivals[0].username])
        return self.post("/api/records", {"record": record})["id"]

    @cached_property
    def games(self) -> list:
        """Games of several engines in several states, taken in turn by the operations on a game:
        an invitation still open (``game``), games in play with the fuzzer seated (a two-player and
        a three-player engine), one in play it only watches, finished ones of two engines."""
        from games import services

        me, rivals = self.me, self.rivals

        def running(slug: str, seats: list) -> str:
            return str(services.game_create(consent=True, engine_slug=slug, config={}, seats=seats, created_by=me).pk)

        three = random_record("satori", [me.username, rivals[0].username, rivals[1].username])
        return [
            self.game,
            running("necropolis", [me, rivals[0]]),
            running("satori", [rivals[0], me, rivals[1]]),
            running("nine-card", [rivals[1], rivals[2]]),  # the fuzzer is a spectator
            self.finished_game,
            self.post("/api/records", {"record": three})["id"],
        ]

    def next_game(self, path: str):
        """The game for the next case of an operation on ``/api/games/{id}...``: in turn from ``games``
        (the same order every run); a submission's status is asked of the game it was sent to."""
        if "{sid}" in path:
            return self.game
        self._turn = getattr(self, "_turn", -1) + 1
        return self.games[self._turn % len(self.games)]

    @cached_property
    def match(self) -> int:
        body = {
            "engine": "nine-card",
            "players": [self.me.username, self.rivals[0].username],
            "format": "best_of",
            "target": 3,
        }
        return self.post("/api/matches", body)["id"]

    @cached_property
    def seek(self) -> str:
        """An open lobby table of a rival's, with seats left for the fuzzer to take."""
        from lobby import services

        return str(services.seek_create(user=self.rivals[1], engine_slug="satori", seats=3).pk)

    @cached_property
    def webhook(self) -> int:
        return self.post("/api/webhooks", {"url": "https://example.org/kifu"})["id"]

    @cached_property
    def personal_token(self) -> int:
        """A personal token of the fuzzer's (issue 19 item 3), to list and revoke."""
        return self.post("/api/me/tokens", {"name": "fuzz", "scopes": ["play"]})["id"]

    @cached_property
    def table_game(self) -> str:
        """A table game the fuzzer keeps (issue 17), waiting for its deal."""
        body = {"engine": "nine-card", "seats": [self.me.username, "ben"], "keeper_seat": 0}
        return self.post("/api/table-games", body)["game"]

    def path_parameters(self, path: str) -> dict:
        """Real values for the path parameters of the operation at ``path`` (an OpenAPI template)."""
        resource = path.split("/")[2]
        found: dict = {}
        if "{id}" in path and resource != "pairings":
            if resource == "games":
                found["id"] = self.next_game(path)
            else:
                singular = {
                    "seasons": "season",
                    "fixtures": "fixture",
                    "matches": "match",
                    "lobby": "seek",
                    "table-games": "table_game",
                }
                found["id"] = getattr(self, singular.get(resource, resource[:-1]))
        if resource == "pairings":  # a pairing's result (issue 17): the world's ladder challenge
            found["kind"], found["id"] = "challenge", str(self.challenge)
        if "{slug}" in path:
            found["slug"] = "nine-card" if resource == "engines" else self.club
        if "{username}" in path:
            found["username"] = RIVALS[0] if resource != "players" else self.me.username
        if "{seq}" in path:
            found["seq"] = 1
        if "{number}" in path:
            found["number"] = 1
        if "{sid}" in path:
            found["sid"] = self.submission
        if "{token_id}" in path:
            found["token_id"] = self.personal_token
        # The API client above reconnects Django's close_old_connections after each of its requests;
        # the fuzzer's own requests must not close the test transaction's connection (see ``token``).
        request_started.disconnect(close_old_connections)
        request_finished.disconnect(close_old_connections)
        return found

    @cached_property
    def submission(self) -> str:
        """A move submission of the fuzzer's (pending or decided: the status answers either way)."""
        response = self.api.post(
            f"/api/games/{self.game}/moves", {"move": {"type": "resign"}, "idempotency_key": "fuzz"}, format="json"
        )
        assert response.status_code in (200, 202), (response.status_code, response.content[:300])
        return response.json()["id"]
