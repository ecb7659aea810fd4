"""A small typed Python client for the Kifu API: accounts, games, moves, events and live streams.

from kifu_client import KifuClient, KifuError

me = KifuClient.login("http://127.0.0.1:8000", "aki", "kifu-demo-password")
game = me.create_game("nine-card", [me.username, "ben"])
for message in me.stream_game(game["id"]):
    if message.type == "head" and message.data.get("legal_moves"):
        me.submit_move(game["id"], message.data["legal_moves"][0], wait=5)
"""

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
    Seat,
    StreamMessage,
    Submission,
    Verification,
    Window,
)

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
    "Seat",
    "StreamMessage",
    "Submission",
    "Verification",
    "Window",
]
