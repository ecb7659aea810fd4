"""Stream fuzzing (issue 15, "Bad input"): the event streams (``/api/games/{id}/stream``,
``/api/me/stream``) with odd query parameters and ``Last-Event-ID`` values, and cut mid-stream.

Whatever comes in, a stream either is refused before it starts - a 4xx JSON ``{"code", "message"}``
with a stable code - or answers 200 with a well-formed stream (read here by a strict reader of its
own, not the client package's) that ends with an ``end`` message; never a 5xx and never an error
half way through the body. A stream cut after any number of chunks leaves nothing behind: its
mailbox on the notice bus is gone, and the next request is served as usual.

In-process, embedded (the feeds poll the database), with streams of at most a fraction of a second
so the cases stay bounded. The suite's cases are the same every run (Hypothesis ``derandomize``);
``KIFU_FUZZ_EXAMPLES`` and ``KIFU_FUZZ_RANDOM=1`` as for tests/robustness/test_fuzz_schema.py, and
``bin/fuzz`` runs many more.
"""

from __future__ import annotations

import json
import os
import re
from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games import services
from games.notices import BUS
from tests.web.games import random_record

from .fuzz_report import record_case

pytestmark = pytest.mark.django_db

# Streams of at most 0.3 s (a longer ?timeout= is a refusal), a keep-alive every 0.1 s, polling.
SHORT = override_settings(
    REDIS_URL="", KIFU_STREAM_MAX_SECONDS=0.3, KIFU_STREAM_KEEPALIVE_SECONDS=0.1, KIFU_STREAM_POLL_SECONDS=0.05
)
FUZZ = settings(
    max_examples=int(os.environ.get("KIFU_FUZZ_STREAM_EXAMPLES", os.environ.get("KIFU_FUZZ_EXAMPLES", "40"))),
    derandomize=os.environ.get("KIFU_FUZZ_RANDOM", "") != "1",
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
# The refusals a stream may answer before it starts; anything else is a new code to review.
STABLE_CODES = {"bad_parameter", "bad_text", "not_found", "not_authenticated"}

# Values that have broken parsers before: signs, separators, exponents, other digits, the edges of
# a seq and of a millisecond date (the year 10000), numbers past every integer type, text.
ODD = [
    "", " ", "0", "-0", "+1", " 7 ", "1_0", "0x10", "1e3", "1.5", ".5", "nan", "NaN", "inf", "-inf", "1e999",
    "\u0661\u0662", "１２", "253402300799999", "253402300800000", "1000000000000000", "1000000000000001",
    "9" * 30, "9" * 5000, "-1", "null", "[]", "{}", "true", "%", "%00", "\x00", "\ud800", "é", "0.0", "1e-300",
    "0.3", "0.30000000000000004", "0.05", "sse", "ndjson", "SSE", "json", "sse,ndjson",
]  # fmt: skip
odd = st.one_of(
    st.sampled_from(ODD),
    st.integers(-(10**20), 10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=12),
)
# A header reaches Django as latin-1 text without line breaks (WSGI).
header_text = st.one_of(
    st.sampled_from([value for value in ODD if value.isascii() and "\x00" not in value]),
    st.integers(-(10**20), 10**20).map(str),
    st.text(st.characters(min_codepoint=32, max_codepoint=255), max_size=12),
)
params = st.fixed_dictionaries(
    {},
    optional={
        "after": odd,
        "timeout": st.one_of(odd, st.floats(0.0, 0.35).map(str)),
        "format": st.one_of(st.sampled_from(["sse", "ndjson"]), odd),
        "limit": odd,  # not a stream parameter: ignored, but the guards read every query string
        "since": odd,
    },
)
requests = st.fixed_dictionaries(
    {
        "stream": st.sampled_from(["game", "finished", "account"]),
        "caller": st.sampled_from(["seat", "stranger", "anonymous"]),
        "params": params,
        "last_event_id": st.none() | header_text,
        "accept": st.sampled_from([None, "application/x-ndjson", "text/event-stream", "*/*", "application/json"]),
        "cut": st.none() | st.integers(0, 4),  # hang up after this many chunks
    }
)

MESSAGE_TYPES = {
    "event", "head", "end", "invitation", "game_cancelled", "game_started", "window_opened", "your_turn",
    "game_ended",
}  # fmt: skip


def sse_messages(text: str) -> list[dict]:
    """A strict reader of what the server writes: blocks ``retry: N``, ``: keep-alive``, or
    ``event: <type>`` [``id: <id>``] ``data: <one line of JSON>``, each closed by an empty line."""
    assert text.endswith("\n\n"), text[-200:]
    out = []
    for block in text[:-2].split("\n\n"):
        lines = block.split("\n")
        if lines == ["retry: 2000"] or lines == [": keep-alive"]:
            continue
        assert lines[0].startswith("event: ") and lines[-1].startswith("data: "), block
        assert len(lines) == 2 or (len(lines) == 3 and re.fullmatch(r"id: \d+", lines[1])), block
        ident = lines[1][4:] if len(lines) == 3 else None
        out.append({"type": lines[0][7:], "id": ident, "data": json.loads(lines[-1][6:])})
    return out


def ndjson_messages(text: str) -> list[dict]:
    assert text.endswith("\n"), text[-200:]
    out = []
    for line in text[:-1].split("\n"):
        if line == "":
            continue  # keep-alive
        message = json.loads(line)
        assert set(message) == {"type", "id", "data"}, line
        out.append(message)
    return out


@pytest.fixture
def world(db, monkeypatch):
    """A running game, a finished one, and their callers. Django's ``close_old_connections`` is
    kept from closing the test transaction's connection when a stream is closed early (the test
    client only keeps it off around the requests and the streams it reads to their end)."""
    monkeypatch.setattr(connection, "close_if_unusable_or_obsolete", lambda: None)
    users = {name: get_user_model().objects.create_user(name) for name in ("oya", "ko", "stranger")}
    clients = {}
    for name in ("oya", "stranger"):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=users[name]).key}")
        clients[name] = client
    clients["anonymous"] = APIClient()
    seats = [users["oya"], users["ko"]]
    game = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=seats, created_by=users["oya"])
    finished = clients["oya"].post("/api/records", {"record": random_record("nine-card", ["oya", "ko"])}, format="json")
    assert finished.status_code == 201, finished.content
    return {
        "clients": {"seat": clients["oya"], "stranger": clients["stranger"], "anonymous": clients["anonymous"]},
        "paths": {
            "game": f"/api/games/{game.pk}/stream",
            "finished": f"/api/games/{finished.json()['id']}/stream",
            "account": "/api/me/stream",
        },
    }


def waiters() -> int:
    return sum(len(group) for group in BUS._waiters.values())


def check_stream(world, request) -> None:
    client = world["clients"][request["caller"]]
    headers = {}
    if request["last_event_id"] is not None:
        headers["HTTP_LAST_EVENT_ID"] = request["last_event_id"]
    if request["accept"] is not None:
        headers["HTTP_ACCEPT"] = request["accept"]
    open_before = waiters()
    # Encoded here: a lone surrogate goes out as its UTF-8-ish bytes (the test client would refuse it).
    query = urlencode(request["params"], encoding="utf-8", errors="surrogatepass")
    response = client.get(f"{world['paths'][request['stream']]}?{query}", **headers)
    case = (request, response.status_code)
    record_case(f"GET {request['stream']} stream", "cut" if request["cut"] is not None else "odd", response.status_code)
    if response.status_code != 200:
        assert 400 <= response.status_code < 500, case
        assert response["Content-Type"] == "application/json", case
        body = response.json()
        assert body["code"] in STABLE_CODES and body["message"], (case, body)
        assert not response.streaming
        assert waiters() == open_before, case
        return
    assert response.streaming, case
    ndjson = request["params"].get("format") == "ndjson" or (
        "format" not in request["params"] and request["accept"] == "application/x-ndjson"
    )
    expected = "application/x-ndjson" if ndjson else "text/event-stream"
    assert response["Content-Type"] == f"{expected}; charset=utf-8", case
    chunks = iter(response.streaming_content)
    if request["cut"] is not None:  # the client hangs up: nothing of the stream is left behind
        for _ in range(request["cut"]):
            if next(chunks, None) is None:
                break
        response.close()
        assert waiters() == open_before, case
        return
    text = b"".join(chunks).decode()
    response.close()
    assert waiters() == open_before, case
    messages = ndjson_messages(text) if ndjson else sse_messages(text)
    assert messages and messages[-1]["type"] == "end", (case, text[-300:])
    assert messages[-1]["data"]["reason"] in ("finished", "timeout"), case
    assert {message["type"] for message in messages} <= MESSAGE_TYPES, case
    if request["stream"] != "account":  # event ids are seqs, in order, after the resume point
        seqs = [int(message["id"]) for message in messages if message["type"] == "event"]
        assert seqs == sorted(set(seqs)), case
        assert all(message["data"]["seq"] == int(message["id"]) for message in messages if message["type"] == "event")
    else:  # ids are server times in ms, never going back
        stamps = [int(message["id"]) for message in messages if message["id"] is not None]
        assert stamps == sorted(stamps), case


@SHORT
def test_streams_take_odd_parameters_and_cuts_in_their_stride(world):
    @FUZZ
    @given(request=requests)
    def run(request):
        check_stream(world, request)

    run()
    # and the world still answers as usual after all that
    response = world["clients"]["seat"].get(world["paths"]["finished"], {"timeout": 0.2})
    assert response.status_code == 200
    assert sse_messages(b"".join(response.streaming_content).decode())[-1]["data"]["reason"] == "finished"


@SHORT
@pytest.mark.parametrize(
    "after",
    ["253402300800000", "1000000000000000", "253402300799999", "0"],
    ids=["year-10000", "max-seq", "last-ms", "zero"],
)
@pytest.mark.parametrize("how", ["query", "header"])
def test_an_account_stream_resumed_from_a_date_past_the_year_9999_is_refused_not_broken(world, after, how):
    """Regression: ``/api/me/stream?after=1000000000000000`` (or that Last-Event-ID) passed the
    check (at most 10**15) and broke the stream half way ("year 33658 is out of range")."""
    client = world["clients"]["seat"]
    if how == "query":
        response = client.get("/api/me/stream", {"after": after, "timeout": 0.1})
    else:
        response = client.get("/api/me/stream", {"timeout": 0.1}, HTTP_LAST_EVENT_ID=after)
    if int(after) > 253402300799999:
        assert response.status_code == 400 and response.json()["code"] == "bad_parameter", response.content
        assert "253402300799999" in response.json()["message"]
    else:
        messages = sse_messages(b"".join(response.streaming_content).decode())
        assert messages[-1]["type"] == "end"


@SHORT
@pytest.mark.parametrize("stream", ["game", "account"])
def test_a_stream_cut_after_its_first_message_leaves_the_bus(world, stream):
    open_before = waiters()
    response = world["clients"]["seat"].get(world["paths"][stream], {"timeout": 0.3})
    chunks = iter(response.streaming_content)
    assert next(chunks) == b"retry: 2000\n\n"
    assert next(chunks).startswith(b"event: ")
    assert waiters() == open_before + 1  # the feed listens while it runs
    response.close()
    assert waiters() == open_before
