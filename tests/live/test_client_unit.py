"""kifu_client without a server: the stream parsers, error mapping and the 429 retry."""

from __future__ import annotations

import io
import json

import pytest
import requests
from requests.adapters import BaseAdapter

from kifu_client import KifuClient, KifuError, StreamMessage
from kifu_client.wire import parse_ndjson, parse_sse

SSE = (
    b"retry: 2000\n\n"
    b'event: event\nid: 1\ndata: {"seq":1,"kind":"chance","data":{"type":"deal"}}\n\n'
    b": keep-alive\n\n"
    b'event: head\r\ndata: {"head_seq":1,\r\ndata: "status":"running"}\r\n\r\n'
    b'event: end\ndata: {"reason":"finished"}\n\n'
)


@pytest.mark.parametrize("size", [1, 2, 7, 64, len(SSE)])
def test_sse_parses_the_same_however_the_bytes_are_cut(size):
    chunks = [SSE[i : i + size] for i in range(0, len(SSE), size)]
    messages = list(parse_sse(chunks))
    assert messages == [
        StreamMessage("event", {"seq": 1, "kind": "chance", "data": {"type": "deal"}}, "1"),
        None,
        StreamMessage("head", {"head_seq": 1, "status": "running"}, None),
        StreamMessage("end", {"reason": "finished"}, None),
    ]


def test_ndjson_lines_and_keep_alives():
    raw = b'{"type":"event","id":"3","data":{"seq":3}}\n\n{"type":"end","id":null,"data":{"reason":"timeout"}}\n'
    assert list(parse_ndjson([raw[:10], raw[10:]])) == [
        StreamMessage("event", {"seq": 3}, "3"),
        None,
        StreamMessage("end", {"reason": "timeout"}, None),
    ]


class Canned(BaseAdapter):
    """Answers requests from a list of (status, body, headers), recording what was asked."""

    def __init__(self, answers):
        super().__init__()
        self.answers, self.asked = list(answers), []

    def send(self, request, **kwargs):
        self.asked.append((request.method, request.url))
        status, body, headers = self.answers.pop(0)
        response = requests.Response()
        response.status_code, response.request, response.url = status, request, request.url
        response._content = json.dumps(body).encode()
        response.headers.update({"Content-Type": "application/json", **headers})
        return response

    def close(self):
        pass


def client_with(answers) -> tuple[KifuClient, Canned]:
    adapter = Canned(answers)
    session = requests.Session()
    session.mount("http://kifu.test", adapter)
    return KifuClient("http://kifu.test", "t0ken", session=session), adapter


def test_errors_become_kifu_errors_with_code_message_and_status():
    client, _ = client_with([(404, {"code": "not_found", "message": "no such game"}, {})])
    with pytest.raises(KifuError) as error:
        client.game("nope")
    assert (error.value.code, error.value.message, error.value.status) == ("not_found", "no such game", 404)
    rejected = {"code": "card_not_in_hand", "message": "no such card", "submission": {"status": "rejected"}}
    client, _ = client_with([(422, rejected, {})])
    with pytest.raises(KifuError) as error:
        client.submit_move("g", {"type": "commit_card", "card": "AS"}, idempotency_key="k")
    assert error.value.status == 422 and error.value.submission == {"status": "rejected"}


def test_play_only_swaps_the_full_token_for_a_new_play_token():
    made = {"id": 1, "name": "robo", "scopes": ["play", "read"], "key": "kifu_pt_k3y"}
    client, adapter = client_with([(201, made, {})])
    assert client.play_only("robo") is client and client.token == "kifu_pt_k3y"
    assert adapter.asked == [("POST", "http://kifu.test/api/me/tokens")]


def test_my_turns_asks_the_account_s_turns_with_its_wait():
    answer = {"turns": [{"game": "g", "engine": "nine-card", "seat": 0, "head_seq": 3, "moves": [{"type": "x"}]}]}
    client, adapter = client_with([(200, {**answer, "waiting": []}, {})])
    assert client.my_turns(wait=2.5)["turns"][0]["moves"] == [{"type": "x"}]
    assert adapter.asked == [("GET", "http://kifu.test/api/me/turns?wait=2.5")]


def test_a_throttled_request_is_retried_after_retry_after(monkeypatch):
    slept = []
    monkeypatch.setattr("kifu_client.client.time.sleep", slept.append)
    throttled = (429, {"code": "throttled", "message": "Request was throttled."}, {"Retry-After": "2"})
    client, adapter = client_with([throttled, (200, {"username": "aki", "token": "t0ken"}, {})])
    assert client.me()["username"] == "aki" and slept == [2.0] and len(adapter.asked) == 2
    client, _ = client_with([throttled] * 2)
    client.throttle_retries = 1
    with pytest.raises(KifuError) as error:
        client.me()
    assert (error.value.code, error.value.status, error.value.retry_after) == ("throttled", 429, 2.0)


class Flaky(BaseAdapter):
    """Drops the first ``drops`` connections, then serves ``body`` (an SSE stream)."""

    def __init__(self, drops: int, body: bytes):
        super().__init__()
        self.drops, self.body, self.asked = drops, body, 0

    def send(self, request, **kwargs):
        self.asked += 1
        if self.asked <= self.drops:
            raise requests.ConnectionError("Connection reset by peer")
        response = requests.Response()
        response.status_code, response.request, response.url = 200, request, request.url
        response.raw = io.BytesIO(self.body)
        response.headers["Content-Type"] = "text/event-stream"
        return response

    def close(self):
        pass


def test_a_game_stream_that_cannot_be_opened_is_tried_again(monkeypatch):
    monkeypatch.setattr("kifu_client.client.time.sleep", lambda seconds: None)
    body = b'event: event\nid: 1\ndata: {"seq":1}\n\nevent: end\ndata: {"reason":"finished"}\n\n'
    adapter = Flaky(2, body)
    session = requests.Session()
    session.mount("http://kifu.test", adapter)
    client = KifuClient("http://kifu.test", "t0ken", session=session)
    assert [m.type for m in client.stream_game("g")] == ["event", "end"] and adapter.asked == 3

    session.mount("http://kifu.test", Flaky(99, body))
    with pytest.raises(KifuError) as error:
        list(client.stream_game("g"))
    assert error.value.code == "connection_error"
    session.mount("http://kifu.test", Flaky(1, body))
    with pytest.raises(KifuError):
        list(client.stream_game("g", reconnect=False))
