"""Clients play every game on the real stack with random legal moves and no move rejected.

- A client generated from the live OpenAPI schema with openapi-python-client (the version pinned in
  requirements-dev.txt): every operation module imports, moves are the typed per-game classes
  (``NineCardCommitCard``), the record downloads as a file, and every answer it gets is checked
  against the schema (schemathesis's response checks).
- ``kifu_client`` running the README's own example (the block is read from README.md and run as a
  script): one thread per seat follows the game stream and acts at each current head
  (``KifuClient.turns``).

Windows stay open long enough that an answering seat never races a timer, so any rejection is a
client acting on a position that has passed (or a schema that does not say what the server does).
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import random
import subprocess
import sys
import threading
import time
import typing
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
import schemathesis

from games.engines import REGISTRY
from games.records import replay_record

pytestmark = [pytest.mark.stack, pytest.mark.django_db]

PACKAGE = "kifu_generated"
PASSWORD = "a-long-pass-1"
# Long games kept short; windows long enough to answer (every eligible seat does, which closes them).
CONFIG = {
    "satori": {"katsu_window_seconds": 5},
    "turn-thief": {"reaction_window_seconds": 5, "max_discards": 12},
    "necropolis": {"turn_limit": 20},
    "1234": {"match_games": 1},
    "mekuri-hinmin": {"auto_tie_after_events": 150},
}
GAME_SECONDS = 120
STREAMS = 8


def seat_count(slug: str) -> int:
    engine = REGISTRY[slug]
    return engine.min_seats if engine.min_seats > 2 else min(3, engine.max_seats)


@pytest.fixture(scope="module")
def live_schema(stack) -> dict:
    response = requests.get(f"{stack.base_url}/api/schema", params={"format": "json"}, timeout=30)
    assert response.status_code == 200, response.text[:300]
    return response.json()


@pytest.fixture(scope="module")
def checked(live_schema):
    """``check(response)``: the answer (httpx or requests) is one the schema documents, body and all."""
    schema = schemathesis.openapi.from_dict(live_schema)
    counts = {"checked": 0}
    # One check at a time: the path lookup compiles werkzeug routing rules with ast.parse, which
    # CPython 3.11.7 does not make safe across threads ("AST constructor recursion depth mismatch",
    # python/cpython#106905, fixed in 3.11.8), and the games are played from several threads.
    one_at_a_time = threading.Lock()

    def check(response) -> None:
        request = response.request
        path = request.url.path if hasattr(request.url, "path") else requests.utils.urlparse(request.url).path
        if path.endswith("/stream"):
            return  # event streams: checked by tests/live
        with one_at_a_time:
            operation = schema.find_operation_by_path(request.method, path)
            assert operation is not None, f"{request.method} {path} is not in the schema"
            operation.validate_response(response)
            counts["checked"] += 1

    check.counts = counts
    return check


@pytest.fixture(scope="module")
def generated(live_schema, tmp_path_factory):
    """The client openapi-python-client generates from the live schema, imported as ``kifu_generated``."""
    where = tmp_path_factory.mktemp("generated")
    (where / "schema.json").write_text(json.dumps(live_schema))
    (where / "config.yaml").write_text(f"package_name_override: {PACKAGE}\npost_hooks: []\n")
    command = [
        str(Path(sys.executable).parent / "openapi-python-client"),
        "generate",
        "--path",
        str(where / "schema.json"),
        "--config",
        str(where / "config.yaml"),
        "--meta",
        "none",
        "--output-path",
        str(where / PACKAGE),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    # A warning means a part of the schema the generator could not use (and left out).
    assert "Warning" not in done.stdout + done.stderr, done.stdout + done.stderr
    sys.path.insert(0, str(where))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(where))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def operation_modules(package) -> list:
    api = importlib.import_module(f"{package.__name__}.api")
    modules = []
    for tag in pkgutil.iter_modules(api.__path__):
        group = importlib.import_module(f"{api.__name__}.{tag.name}")
        modules.extend(
            importlib.import_module(f"{group.__name__}.{m.name}") for m in pkgutil.iter_modules(group.__path__)
        )
    return modules


def test_every_generated_operation_imports(generated, live_schema):
    operations = {
        operation["operationId"]
        for item in live_schema["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }
    modules = operation_modules(generated)
    assert {module.__name__.rsplit(".", 1)[1] for module in modules} == operations
    assert all(hasattr(module, "sync_detailed") for module in modules)

    # Anonymous operations take a plain client; creating a game needs an authenticated one.
    def client_types(operation: str) -> set:
        annotation = importlib.import_module(f"{PACKAGE}.api.{operation}").sync_detailed.__annotations__["client"]
        return set(typing.get_args(annotation)) or {annotation}

    both = {generated.client.AuthenticatedClient, generated.client.Client}
    assert client_types("accounts.accounts_create") == client_types("accounts.token_create") == both
    assert client_types("games.games_create") == {generated.client.AuthenticatedClient}


class GeneratedPlayer:
    def __init__(self, base_url: str, check) -> None:
        self.api = lambda name: importlib.import_module(f"{PACKAGE}.api.{name}")
        self.models = importlib.import_module(f"{PACKAGE}.models")
        client = importlib.import_module(PACKAGE).client
        hooks = {"event_hooks": {"response": [lambda response: (response.read(), check(response))]}}
        self.name = f"g{uuid.uuid4().hex[:10]}"
        anonymous = client.Client(base_url=base_url, raise_on_unexpected_status=True, httpx_args=hooks)
        body = self.models.AccountCreateRequest(username=self.name, password=PASSWORD)
        account = self.api("accounts.accounts_create").sync(client=anonymous, body=body)
        assert isinstance(account, self.models.Account), account
        self.client = client.AuthenticatedClient(
            base_url=base_url, token=account.token, prefix="Token", raise_on_unexpected_status=True, httpx_args=hooks
        )


def play_generated(slug: str, base_url: str, check) -> tuple[int, list]:
    """One whole game of ``slug`` with the generated client; the number of moves and the rejections."""
    models = importlib.import_module(f"{PACKAGE}.models")
    engine = REGISTRY[slug]
    prefix = type(engine).__name__
    seats = [GeneratedPlayer(base_url, check) for _ in range(seat_count(slug))]
    api = seats[0].api
    if engine.mature:
        consent = models.MatureConsentRequest(adult=True, consent=True)
        for player in seats:
            api("accounts.me_mature_consent_create").sync(client=player.client, body=consent)
    body = models.GameCreateRequest.from_dict(
        {"engine": slug, "seats": [p.name for p in seats], "config": CONFIG.get(slug, {})}
    )
    game = api("games.games_create").sync(client=seats[0].client, body=body)
    assert isinstance(game, models.Game), game
    for player in seats[1:]:  # the seats seats[0] named them for are invitations (issue 15 part 6)
        api("games.games_accept_create").sync(id=game.id, client=player.client)
    chooser = random.Random(slug)
    moves, rejected = 0, []
    deadline = time.monotonic() + GAME_SECONDS
    while time.monotonic() < deadline:
        game = api("games.games_retrieve").sync(id=game.id, client=seats[0].client)
        if game.status == models.GameStatusEnum.FINISHED:
            break
        offers = []
        for seat in game.actors:
            legal = api("play.games_legal_moves_retrieve").sync(id=game.id, client=seats[seat].client)
            assert type(legal).__name__ == f"{prefix}LegalMoves", legal  # typed by the game
            if legal.moves:
                offers.append((seat, legal.moves))
        if not offers:
            time.sleep(0.05)  # a window only the server's timer closes
            continue
        seat, choices = chooser.choice(offers)
        move = chooser.choice(choices)
        assert type(move).__name__.startswith(prefix), move
        answer = api("play.games_moves_create").sync_detailed(
            id=game.id, client=seats[seat].client, body=models.MoveRequest(move=move), wait=10
        )
        moves += 1
        if answer.status_code == 422:
            rejected.append((slug, move.to_dict(), answer.parsed))
            continue
        assert answer.status_code == 200, (answer.status_code, answer.content[:300])
        assert answer.parsed.move.to_dict() == move.to_dict()  # the echo parses to the same move
    final = api("games.games_retrieve").sync(id=game.id, client=seats[0].client)
    assert final.status == models.GameStatusEnum.FINISHED, f"{slug} did not finish in time"
    record = api("records.games_record_retrieve").sync(id=game.id, client=seats[-1].client)
    lines = record.payload.read().decode().splitlines()
    assert replay_record(lines).outcome_json() == final.outcome.to_dict()
    events = api("play.games_events_retrieve").sync_detailed(id=game.id, client=seats[0].client, limit=1000)
    for raw, parsed in zip(json.loads(events.content), events.parsed, strict=True):
        assert parsed.data.to_dict() == raw["data"], raw  # typed events lose nothing
    assert api("records.games_verification_retrieve").sync(id=game.id, client=seats[0].client).ok
    return moves, rejected


def test_the_generated_client_plays_every_game(generated, stack, checked):
    # Every game at once: each is one request at a time, and most of a move's time is its verdict.
    with ThreadPoolExecutor(len(REGISTRY)) as pool:
        slugs = sorted(REGISTRY)
        results = dict(
            zip(slugs, pool.map(lambda slug: play_generated(slug, stack.base_url, checked), slugs), strict=True)
        )
    assert [rejection for _, rejected in results.values() for rejection in rejected] == []
    assert all(moves > 0 for moves, _ in results.values()) and checked.counts["checked"] > 0


README = Path(__file__).resolve().parents[2] / "README.md"
README_MARK = "<!-- tests/e2e/test_generated_clients.py runs this block -->"


def readme_example() -> str:
    """The Python block that follows the mark in the README, exactly as a reader copies it."""
    text = README.read_text()
    assert text.count(README_MARK) == 1, "the README marks one example for this test"
    block = text.split(README_MARK, 1)[1].lstrip()
    assert block.startswith("```python\n"), "the mark is followed by a ```python block"
    return block.removeprefix("```python\n").split("\n```", 1)[0] + "\n"


def test_kifu_client_plays_every_game_with_the_readme_example(stack, tmp_path):
    """The README's own example, run as a script outside the repository (``kifu_client`` on the
    path) for every game: each finishes with no move rejected. Games run side by side in batches of
    at most STREAMS seats: each seat holds a stream, i.e. a server thread (the test stack has 16)."""
    script = tmp_path / "play.py"
    script.write_text(readme_example())
    root = str(README.parent)

    def run(slug: str) -> subprocess.Popen:
        env = {
            **os.environ,
            "PYTHONPATH": root,
            "KIFU_URL": stack.base_url,
            "KIFU_ENGINE": slug,
            "KIFU_PLAYERS": str(seat_count(slug)),
            "KIFU_CONFIG": json.dumps(CONFIG.get(slug, {})),
        }
        return subprocess.Popen(
            [sys.executable, str(script)],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    batches, batch = [], []
    for slug in sorted(REGISTRY):
        if batch and sum(seat_count(s) for s in batch) + seat_count(slug) > STREAMS:
            batches.append(batch)
            batch = []
        batch.append(slug)
    batches.append(batch)
    results = {}
    for batch in batches:
        running = {slug: run(slug) for slug in batch}
        for slug, process in running.items():
            try:
                out, err = process.communicate(timeout=GAME_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                out, err = process.communicate()
                pytest.fail(f"{slug}: the README example did not finish in {GAME_SECONDS} s\n{err[-3000:]}")
            assert process.returncode == 0, f"{slug}: {err[-3000:]}"
            results[slug] = json.loads(out.strip().splitlines()[-1])
    assert {slug: r["status"] for slug, r in results.items()} == dict.fromkeys(REGISTRY, "finished")
    assert {slug: r["rejected"] for slug, r in results.items()} == dict.fromkeys(REGISTRY, [])
