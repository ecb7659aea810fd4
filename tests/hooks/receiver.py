"""A local webhook receiver for the tests: an http.server on 127.0.0.1 in a thread that checks signatures."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    """One POST as it arrived, with whether its signature matched the secret and the answer given."""

    headers: dict
    body: bytes
    signed: bool
    answered: int

    @property
    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class Receiver:
    """Answers each POST with the next status of ``answers`` (then 200) and records it."""

    answers: list[int] = field(default_factory=list)
    secret: str = ""
    received: list[Received] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self.arrived = threading.Condition(self._lock)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                expected = "sha256=" + hmac.new(receiver.secret.encode(), body, hashlib.sha256).hexdigest()
                signed = hmac.compare_digest(expected, self.headers.get("X-Kifu-Signature", ""))
                with receiver.arrived:
                    answer = receiver.answers.pop(0) if receiver.answers else 200
                    receiver.received.append(Received(dict(self.headers), body, signed, answer))
                    receiver.arrived.notify_all()
                self.send_response(answer)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def wait_for(self, check, timeout: float = 60) -> list[Received]:
        """Block until ``check(received)`` is true; returns the requests so far."""
        with self.arrived:
            if not self.arrived.wait_for(lambda: check(self.received), timeout):
                raise AssertionError(f"the receiver did not get what was expected; it got {self.received}")
            return list(self.received)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
