"""KifuClient: the Kifu REST API and its live streams over HTTP (requests), for bots and tools."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import closing
from typing import Any, cast

import requests

from .errors import KifuError
from .types import (
    Account,
    EngineInfo,
    Event,
    Game,
    GameState,
    Head,
    Move,
    Pairing,
    Seek,
    SiteRating,
    StreamMessage,
    Submission,
    Turns,
    Verification,
)
from .wire import parse_ndjson, parse_sse

OPEN_RETRIES = 5  # a stream that cannot be opened this many times in a row gives up


class KifuClient:
    """One account's connection to a Kifu server.

    Every refusal raises ``KifuError(code, message, status)``. A throttled request (429) is
    retried after its ``Retry-After`` up to ``throttle_retries`` times before it raises.
    """

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        timeout: float = 40.0,
        throttle_retries: int = 3,
        session: requests.Session | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api = f"{self.base_url}/api"
        self.timeout = timeout
        self.throttle_retries = throttle_retries
        self.http = session or requests.Session()
        self.username: str | None = None
        # game id -> the seq of this client's newest accepted move there: the heads before it are stale
        self.moved_at: dict[str, int] = {}
        if token:
            self.http.headers["Authorization"] = f"Token {token}"

    # ---- accounts ---------------------------------------------------------------------------
    @classmethod
    def create_account(cls, base_url: str, username: str, password: str, *, bot: bool = False, **options) -> KifuClient:
        """Make a new account and return a client holding its token. ``bot=True`` marks it as a
        bot account (organisers decide per ladder whether bots may play)."""
        client = cls(base_url, **options)
        body = {"username": username, "password": password, "bot": bot}
        account = cast(Account, client._call("POST", "/accounts", json=body))
        return client._use(account)

    @classmethod
    def login(cls, base_url: str, username: str, password: str, **options) -> KifuClient:
        """Exchange a username and password for the account's token."""
        client = cls(base_url, **options)
        account = cast(Account, client._call("POST", "/token", json={"username": username, "password": password}))
        return client._use(account)

    def _use(self, account: Account) -> KifuClient:
        self.username = account["username"]
        self.http.headers["Authorization"] = f"Token {account['token']}"
        return self

    @property
    def token(self) -> str | None:
        header = self.http.headers.get("Authorization", "")
        return header.removeprefix("Token ") or None

    def personal_token_create(self, name: str, scopes: list[str]) -> dict:
        """Make a scoped personal token of this account (needs the full token); the answer's ``key``
        is shown this once. Scopes: ``read`` (always), ``play``, ``organise``."""
        return self._call("POST", "/me/tokens", json={"name": name, "scopes": scopes})

    def personal_tokens(self) -> list[dict]:
        return self._call("GET", "/me/tokens")

    def personal_token_revoke(self, token_id: int) -> None:
        self._send("DELETE", f"/me/tokens/{token_id}")

    def play_only(self, name: str = "bot") -> KifuClient:
        """Go on with a new play-only personal token of this account instead of its full token: what
        a bot should hold (it can play, not organise or manage the account)."""
        made = self.personal_token_create(name, ["play"])
        self.http.headers["Authorization"] = f"Token {made['key']}"
        return self

    def me(self) -> Account:
        account = cast(Account, self._call("GET", "/me"))
        self.username = account["username"]
        return account

    def mature_consent(self, *, adult: bool, consent: bool) -> dict:
        """Confirm this account is an adult who consents to mature content (mature games need it)."""
        return self._call("POST", "/me/mature-consent", json={"adult": adult, "consent": consent})

    def withdraw_mature_consent(self) -> None:
        self._send("DELETE", "/me/mature-consent").close()

    def set_email(self, email: str) -> dict:
        """Set (``""``: remove) the account's e-mail address, for password reset and reminder mail
        (needs the full token: a personal token may not change it)."""
        return self._call("PUT", "/me/email", json={"email": email})

    def reminder_preferences(self) -> dict:
        """How deadline reminders reach this account: ``email``, ``webhook``, ``stream`` (on/off)
        and ``lead_minutes`` (how long before a deadline)."""
        return self._call("GET", "/me/reminders")

    def set_reminder_preferences(self, **changes: bool | int) -> dict:
        """Change some reminder preferences (the others stay), e.g. ``webhook=True, lead_minutes=60``."""
        return self._call("PATCH", "/me/reminders", json=changes)

    # ---- engines and games ------------------------------------------------------------------
    def engines(self) -> list[EngineInfo]:
        return cast(list[EngineInfo], self._call("GET", "/engines"))

    def engine(self, slug: str) -> EngineInfo:
        return cast(EngineInfo, self._call("GET", f"/engines/{slug}"))

    def games(self, **filters: Any) -> list[Game]:
        """Games, newest first; filters: ``engine``, ``status``, ``player``, ``limit``, ``offset``."""
        page = self._call("GET", "/games", params=filters)
        return cast(list[Game], page["results"] if isinstance(page, dict) else page)

    def create_game(self, engine: str, seats: list[str | None], config: dict | None = None) -> Game:
        """A new game; ``seats`` are usernames or None for an open seat. It starts when all are taken."""
        body = {"engine": engine, "seats": seats, "config": config or {}}
        return cast(Game, self._call("POST", "/games", json=body))

    def join(self, game_id: str, seat: int | None = None) -> Game:
        body = {} if seat is None else {"seat": seat}
        return cast(Game, self._call("POST", f"/games/{game_id}/join", json=body))

    def accept(self, game_id: str) -> Game:
        """Accept the seat someone else named this account for; the game starts once all have."""
        return cast(Game, self._call("POST", f"/games/{game_id}/accept"))

    def decline(self, game_id: str) -> Game:
        """Decline the seat someone else named this account for: the game is cancelled."""
        return cast(Game, self._call("POST", f"/games/{game_id}/decline"))

    def invitations(self) -> list[dict]:
        """The games waiting for this account's answer (first page): ``seat``, ``invited_by``, ``game``."""
        return cast(list[dict], self._call("GET", "/me/invitations")["results"])

    # ---- the lobby (README, Lobby) -----------------------------------------------------------
    def seeks(self, engine: str | None = None) -> list[Seek]:
        """Open tables, oldest first."""
        return cast(list[Seek], self._call("GET", "/lobby/seeks", params={"engine": engine} if engine else None))

    def open_seek(self, engine: str, seats: int, **table: Any) -> Seek:
        """Open a table and take its first seat; ``table``: ``config``, ``time_control``, ``rated``,
        ``rating_min``, ``rating_max``, ``expires_in_seconds``."""
        return cast(Seek, self._call("POST", "/lobby/seeks", json={"engine": engine, "seats": seats, **table}))

    def join_seek(self, seek_id: str) -> Seek:
        """Take a seat; when it was the last, ``game`` names the game that started."""
        return cast(Seek, self._call("POST", f"/lobby/seeks/{seek_id}/join"))

    def leave_seek(self, seek_id: str) -> Seek:
        return cast(Seek, self._call("POST", f"/lobby/seeks/{seek_id}/leave"))

    def quick_pair(self, engine: str, seats: int, **table: Any) -> Pairing:
        """Join the compatible open table nearest to full, or open one (``table``: ``config``,
        ``time_control``, ``rated``). Wait for ``game_started`` on ``stream_account`` if it did not fill."""
        return cast(Pairing, self._call("POST", "/lobby/quick", json={"engine": engine, "seats": seats, **table}))

    def rematch(self, game_id: str) -> Game:
        """Offer the players of a finished game another (or accept the rematch one of them offered)."""
        return cast(Game, self._call("POST", f"/games/{game_id}/rematch"))

    def site_ratings(self, username: str) -> list[SiteRating]:
        return cast(list[SiteRating], self._call("GET", f"/players/{username}/ratings"))

    def game(self, game_id: str) -> Game:
        return cast(Game, self._call("GET", f"/games/{game_id}"))

    def state(self, game_id: str) -> GameState:
        """The game as this account may see it (a seat sees its own hand)."""
        return cast(GameState, self._call("GET", f"/games/{game_id}/state"))

    def legal_moves(self, game_id: str) -> list[Move]:
        return cast(list[Move], self._call("GET", f"/games/{game_id}/legal-moves")["moves"])

    def events(self, game_id: str, after: int = 0, limit: int = 500) -> list[Event]:
        return cast(list[Event], self._call("GET", f"/games/{game_id}/events", params={"after": after, "limit": limit}))

    def record(self, game_id: str) -> str:
        """The finished game's record (JSON Lines)."""
        return self._call("GET", f"/games/{game_id}/record", raw=True)

    def verification(self, game_id: str) -> Verification:
        return cast(Verification, self._call("GET", f"/games/{game_id}/verification"))

    # ---- moves ------------------------------------------------------------------------------
    def submit_move(
        self, game_id: str, move: Move, *, idempotency_key: str | None = None, wait: float = 0.0
    ) -> Submission:
        """Submit a move; returns the submission (``pending``, or ``accepted`` within ``wait`` s).

        The same ``idempotency_key`` always returns the first verdict, so a retry after a lost
        answer is safe. A rejection by the rules raises KifuError (status 422, ``.submission``).
        """
        body = {"move": move, "idempotency_key": idempotency_key or uuid.uuid4().hex}
        submission = cast(Submission, self._call("POST", f"/games/{game_id}/moves", json=body, params={"wait": wait}))
        return self._note(submission)

    def submission(self, game_id: str, submission_id: str, *, wait: float = 0.0) -> Submission:
        """A submission and its verdict; waits up to ``wait`` s (max 30) for a pending one."""
        path = f"/games/{game_id}/submissions/{submission_id}"
        return self._note(cast(Submission, self._call("GET", path, params={"wait": wait})))

    def _note(self, submission: Submission) -> Submission:
        """Remember where an accepted move went in (``turns`` skips the heads written before it)."""
        seq = submission.get("event_seq")
        if submission.get("status") == "accepted" and isinstance(seq, int):
            self.moved_at[submission["game"]] = max(seq, self.moved_at.get(submission["game"], 0))
        return submission

    def resign(self, game_id: str, *, wait: float = 10.0) -> Submission:
        return self.submit_move(game_id, {"type": "resign"}, wait=wait)

    # ---- streams ----------------------------------------------------------------------------
    def turns(self, game_id: str, **stream_options: Any) -> Iterator[Head]:
        """The heads of a game at which this account's seat may act, current ones only; ends with the game.

        A stream delivers every head in order, and a client that acts on each lags behind: while
        it waited for a verdict, the stream kept the heads written before its move went in, and
        moves taken from those are for a position that has passed (the rules refuse them). So a
        head is skipped when it is older than this client's last accepted move in the game
        (``submit_move`` with ``wait``, or ``submission``, tells where it went in), not newer than
        a head already yielded, or no longer the game's head (``current_moves``: the stream brings
        the newer one). ``stream_options`` go to ``stream_game``.
        """
        newest = -1
        for message in self.stream_game(game_id, **stream_options):
            if message.type != "head":
                continue
            head = cast(Head, message.data)
            seq = head["head_seq"]
            if seq <= newest or seq < self.moved_at.get(game_id, 0) or not head.get("legal_moves"):
                continue
            newest = seq
            moves = self.current_moves(game_id, head)
            if moves:
                yield cast(Head, {**head, "legal_moves": moves})

    def my_turns(self, *, wait: float = 0.0) -> Turns:
        """Your turns in all your running games at once (``GET /api/me/turns``): ``turns`` - each
        game where your seat may act now, with its legal moves - and ``waiting``, the others. With
        ``wait`` (max 30 s) the server holds the answer until you may act somewhere or one of your
        games ends or starts: a bot playing many games needs one request per decision round, and
        no polling. A game where your move is still pending is listed as waiting, so submit with
        ``wait`` (the verdict) before asking again."""
        return cast(Turns, self._call("GET", "/me/turns", params={"wait": wait}, timeout=wait + 30))

    def current_moves(self, game_id: str, head: Head) -> list[Move] | None:
        """This seat's legal moves if ``head`` is still the game's head (one request), else None."""
        now = self._call("GET", f"/games/{game_id}/legal-moves")
        return cast(list[Move], now["moves"]) if now["head_seq"] == head["head_seq"] else None

    def stream_game(
        self,
        game_id: str,
        *,
        after: int = 0,
        timeout: float | None = None,
        format: str = "sse",
        reconnect: bool = True,
    ) -> Iterator[StreamMessage]:
        """A game's events live, as this account may see them; ends after the game ends.

        Yields ``event``, ``head`` and finally ``end`` messages. With ``reconnect`` a stream cut by
        its timeout or the network is reopened from the last event seq (Last-Event-ID), so the
        caller sees every event exactly once; the iteration ends with the ``end`` of a finished game.
        A connection that cannot be (re)opened is tried ``OPEN_RETRIES`` times in a row, then raises.
        """
        last: str | None = str(after)
        path = f"/games/{game_id}/stream"
        failures = 0
        while True:
            ended = None
            try:
                with closing(self._stream(path, last, timeout, format)) as messages:
                    for message in messages:
                        failures = 0
                        if message.id is not None:
                            last = message.id
                        if message.type == "end":
                            ended = message
                            if reconnect and message.data.get("reason") == "timeout":
                                break
                        yield message
            except KifuError as error:
                # e.g. a reused keep-alive connection the server had just closed
                if not reconnect or error.code != "connection_error" or failures >= OPEN_RETRIES:
                    raise
                failures += 1
            if not reconnect or (ended is not None and ended.data.get("reason") != "timeout"):
                return
            time.sleep(0.2 if ended is not None else 1.0)  # cut off without an end: back off a little

    def stream_account(
        self, *, after: str | None = None, timeout: float | None = None, format: str = "sse", reconnect: bool = True
    ) -> Iterator[StreamMessage]:
        """This account's ``game_started``, ``window_opened``, ``your_turn`` and ``game_ended``
        messages (and the lobby's ``seek_*`` notices), then ``end`` (timeout); with ``reconnect`` it
        goes on until the caller stops."""
        last = after
        while True:
            ended = False
            with closing(self._stream("/me/stream", last, timeout, format)) as messages:
                for message in messages:
                    if message.id is not None:
                        last = message.id
                    if message.type == "end":
                        ended = True
                        if reconnect:
                            break
                    yield message
            if not reconnect:
                return
            time.sleep(0.2 if ended else 1.0)

    def _stream(self, path: str, last_id: str | None, timeout: float | None, format: str):
        headers = {"Accept": "application/x-ndjson" if format == "ndjson" else "text/event-stream"}
        if last_id is not None:
            headers["Last-Event-ID"] = last_id
        params: dict[str, Any] = {"format": format}
        if timeout is not None:
            params["timeout"] = timeout
        response = self._send("GET", path, params=params, headers=headers, stream=True)
        parse = parse_ndjson if format == "ndjson" else parse_sse
        try:
            for message in parse(response.iter_content(chunk_size=None)):
                if message is not None:
                    yield message
        except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError):
            return  # the caller reconnects from the last id
        finally:
            response.close()

    # ---- transport --------------------------------------------------------------------------
    def _call(self, method: str, path: str, *, raw: bool = False, **kwargs) -> Any:
        response = self._send(method, path, **kwargs)
        return response.text if raw else response.json()

    def _send(self, method: str, path: str, **kwargs) -> requests.Response:
        # A stream's read timeout must outlast the server's keep-alive interval (15 s by default).
        kwargs.setdefault("timeout", (10, self.timeout) if kwargs.get("stream") else self.timeout)
        for attempt in range(self.throttle_retries + 1):
            try:
                response = self.http.request(method, f"{self.api}{path}", **kwargs)
            except requests.RequestException as error:
                raise KifuError("connection_error", str(error), 0) from error
            if response.status_code < 400:
                return response
            error = _error(response)
            response.close()
            if error.status == 429 and attempt < self.throttle_retries:
                time.sleep(min(error.retry_after or 1.0, 60.0))
                continue
            raise error
        raise AssertionError("unreachable")


def _error(response: requests.Response) -> KifuError:
    try:
        body = response.json()
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    retry_after = None
    if response.headers.get("Retry-After"):
        try:
            retry_after = float(response.headers["Retry-After"])
        except ValueError:
            retry_after = None
    return KifuError(
        str(body.get("code") or f"http_{response.status_code}"),
        str(body.get("message") or response.reason or "the server refused the request"),
        response.status_code,
        fields=body.get("fields"),
        retry_after=retry_after,
        submission=body.get("submission"),
    )
