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

import base64
import importlib
import json
import os
import pkgutil
import random
import shutil
import subprocess
import sys
import tempfile
import time
import typing
import uuid
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path

import pytest
import requests
import schemathesis

from games.engines import REGISTRY
from games.records import replay_record

from ..openapi_check import schema_digest

# The games need the stack (tests/conftest.py marks them ``stack``; django_db makes pytest-django create
# the test database its processes use); the import test needs neither.

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


@pytest.fixture(scope="session")
def generated(api_schema_file):
    """The client openapi-python-client generates from the schema file ``manage.py spectacular``
    writes, imported as ``kifu_generated``. Generated once per schema: kept in the temporary
    directory under the schema's hash (and the generator's version), so a run whose schema did not
    change imports the last one."""
    generator = metadata.version("openapi-python-client")
    where = Path(tempfile.gettempdir()) / "kifu-generated-client" / f"{schema_digest(api_schema_file)}-{generator}"
    if not (where / PACKAGE / "__init__.py").exists():
        where.parent.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(prefix="building-", dir=where.parent))
        shutil.copy(api_schema_file, building / "schema.json")
        (building / "config.yaml").write_text(f"package_name_override: {PACKAGE}\npost_hooks: []\n")
        command = [
            str(Path(sys.executable).parent / "openapi-python-client"),
            "generate",
            "--path",
            str(building / "schema.json"),
            "--config",
            str(building / "config.yaml"),
            "--meta",
            "none",
            "--output-path",
            str(building / PACKAGE),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        # A warning means a part of the schema the generator could not use (and left out).
        assert "Warning" not in done.stdout + done.stderr, done.stdout + done.stderr
        try:
            building.rename(where)  # whole or not at all: a run stopped half-way leaves no half client
        except OSError:
            shutil.rmtree(building)  # another run got there first with the same schema
        for old in where.parent.iterdir():  # clients of schemas untouched for a day (not another run's)
            if old != where and time.time() - old.stat().st_mtime > 86400:
                shutil.rmtree(old, ignore_errors=True)
    os.utime(where)  # in use: not a client to clear away
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


def test_every_generated_operation_imports(generated, api_schema_file):
    operations = {
        operation["operationId"]
        for item in json.loads(api_schema_file.read_text())["paths"].values()
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


@pytest.mark.django_db
def test_the_server_serves_the_schema_the_client_was_generated_from(stack, api_schema_file):
    response = requests.get(f"{stack.base_url}/api/schema", params={"format": "json"}, timeout=30)
    assert response.status_code == 200, response.text[:300]
    assert response.json() == json.loads(api_schema_file.read_text())


@pytest.mark.django_db
def test_the_generated_client_plays_every_game(generated, stack, schema_check):
    # Every game at once: each is one request at a time, and most of a move's time is its verdict.
    with ThreadPoolExecutor(len(REGISTRY)) as pool:
        slugs = sorted(REGISTRY)
        results = dict(
            zip(slugs, pool.map(lambda slug: play_generated(slug, stack.base_url, schema_check), slugs), strict=True)
        )
    assert [rejection for _, rejected in results.values() for rejection in rejected] == []
    assert all(moves > 0 for moves, _ in results.values())
    assert schema_check.checked >= sum(moves for moves, _ in results.values())  # each move's answer, at least


README = Path(__file__).resolve().parents[2] / "README.md"
README_MARK = "<!-- tests/e2e/test_generated_clients.py runs this block -->"


def readme_example() -> str:
    """The Python block that follows the mark in the README, exactly as a reader copies it."""
    text = README.read_text()
    assert text.count(README_MARK) == 1, "the README marks one example for this test"
    block = text.split(README_MARK, 1)[1].lstrip()
    assert block.startswith("```python\n"), "the mark is followed by a ```python block"
    return block.removeprefix("```python\n").split("\n```", 1)[0] + "\n"


# Put on the example's path as sitecustomize: every answer its requests get (streams aside, they are
# read as they come) is written down, and the test checks each against the schema afterwards.
RECORDER = """
import base64, json, os, threading
import requests

_send, _lock = requests.Session.send, threading.Lock()


def send(self, request, **kwargs):
    response = _send(self, request, **kwargs)
    if not kwargs.get("stream"):
        line = json.dumps({
            "method": request.method, "url": request.url, "status": response.status_code,
            "headers": dict(response.headers), "body": base64.b64encode(response.content).decode(),
        })
        with _lock, open(os.environ["KIFU_ANSWERS"], "a") as answers:
            answers.write(line + "\\n")
    return response


requests.Session.send = send
"""


def recorded_answers(path: Path) -> list[schemathesis.Response]:
    """The answers RECORDER wrote down, as schemathesis responses (what its checks read)."""
    answers = []
    for line in path.read_text().splitlines():
        seen = json.loads(line)
        answers.append(
            schemathesis.Response(
                status_code=seen["status"],
                headers={name.lower(): [value] for name, value in seen["headers"].items()},
                content=base64.b64decode(seen["body"]),
                request=requests.Request(seen["method"], seen["url"]).prepare(),
                elapsed=0.0,
                verify=True,
            )
        )
    return answers


@pytest.mark.django_db
def test_kifu_client_plays_every_game_with_the_readme_example(stack, tmp_path, schema_check):
    """The README's own example, run as a script outside the repository (``kifu_client`` on the
    path) for every game: each finishes with no move rejected, and every answer it got is one the
    schema documents. Games run side by side in batches of at most STREAMS seats: each seat holds a
    stream, i.e. a server thread (the test stack has 16)."""
    script = tmp_path / "play.py"
    script.write_text(readme_example())
    (tmp_path / "recorder").mkdir()
    (tmp_path / "recorder" / "sitecustomize.py").write_text(RECORDER)
    root = f"{README.parent}{os.pathsep}{tmp_path / 'recorder'}"

    def run(slug: str) -> subprocess.Popen:
        env = {
            **os.environ,
            "PYTHONPATH": root,
            "KIFU_URL": stack.base_url,
            "KIFU_ENGINE": slug,
            "KIFU_PLAYERS": str(seat_count(slug)),
            "KIFU_CONFIG": json.dumps(CONFIG.get(slug, {})),
            "KIFU_ANSWERS": str(tmp_path / f"{slug}.answers"),
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
    for slug in REGISTRY:
        answers = recorded_answers(tmp_path / f"{slug}.answers")
        assert len(answers) > 10, slug
        for answer in answers:
            schema_check(answer)
