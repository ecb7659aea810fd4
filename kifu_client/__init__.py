"""A small typed Python client for the Kifu API: accounts, games, moves, events and live streams.

from kifu_client import KifuClient, KifuError

me = KifuClient.login("http://127.0.0.1:8000", "aki", "kifu-demo-password")
game = me.create_game("nine-card", [me.username, None])  # an open seat; someone joins it
for head in me.turns(game["id"]):  # the newest heads where this seat may act, from the stream
    me.submit_move(game["id"], head["legal_moves"][0], idempotency_key=f"t{head['head_seq']}", wait=5)

A complete script that plays a game: the "The Python client" section of Kifu's README.
"""

from pathlib import Path

from .client import KifuClient
from .errors import KifuError
from .types import (
    Account,
    EngineInfo,
    Event,
    Game,
    GameState,
    Head,
    Move,
    Outcome,
    Pairing,
    Seat,
    Seek,
    SiteRating,
    StreamMessage,
    Submission,
    Verification,
    Window,
)

# The API version this client speaks; one file, read by the server's schema and by the packaging.
__version__ = (Path(__file__).parent / "API_VERSION").read_text().strip()

__all__ = [
    "Account",
    "EngineInfo",
    "Event",
    "Game",
    "GameState",
    "Head",
    "KifuClient",
    "KifuError",
    "Move",
    "Outcome",
    "Pairing",
    "Seat",
    "Seek",
    "SiteRating",
    "StreamMessage",
    "Submission",
    "Verification",
    "Window",
]
