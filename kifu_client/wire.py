"""Parsers for the two stream encodings: server-sent events and NDJSON, from raw byte chunks."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from .types import StreamMessage


def lines(chunks: Iterable[bytes]) -> Iterator[str]:
    """Split a byte stream into lines as they arrive (LF or CRLF; a chunk may end mid-line)."""
    pending = b""
    for chunk in chunks:
        if not chunk:
            continue
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for line in complete:
            yield line.removesuffix(b"\r").decode("utf-8")
    if pending:
        yield pending.removesuffix(b"\r").decode("utf-8")


def parse_sse(chunks: Iterable[bytes]) -> Iterator[StreamMessage | None]:
    """Server-sent events (the WHATWG event-stream format); yields None for a comment (keep-alive).

    Only what Kifu sends is interpreted: ``event``, ``id``, ``data`` (JSON) and comments;
    ``retry`` is ignored (the client decides when to reconnect).
    """
    kind, ident, data = "message", None, []
    for line in lines(chunks):
        if line == "":
            if data:
                yield StreamMessage(kind, json.loads("\n".join(data)), ident)
            kind, ident, data = "message", None, []
            continue
        if line.startswith(":"):
            yield None
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            kind = value
        elif name == "id":
            ident = value
        elif name == "data":
            data.append(value)


def parse_ndjson(chunks: Iterable[bytes]) -> Iterator[StreamMessage | None]:
    """One JSON object a line ``{"type", "id", "data"}``; an empty line is a keep-alive (None)."""
    for line in lines(chunks):
        if not line.strip():
            yield None
            continue
        obj = json.loads(line)
        yield StreamMessage(obj["type"], obj.get("data") or {}, obj.get("id"))
