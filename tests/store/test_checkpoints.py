"""The signed checkpoint log (issue 15 part 5): Merkle proofs, signatures, the chain, the API, and
the rewrite by a database superuser that the hash chain alone cannot catch."""

from __future__ import annotations

import hashlib
import json
import os

import pgtrigger
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction
from rest_framework.test import APIClient

from games import checkpoints, merkle, services
from games.engines import get_engine
from games.eventlog import event_hash
from games.models import Checkpoint, CheckpointLeaf, Event, Game
from games.record_io import game_verify, record_export
from games.records import replay_record
from kifu.env import Env, derived_checkpoint_key

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # hashing is not under test


@pytest.fixture
def users():
    User = get_user_model()
    return [User.objects.create_user(username=name, password="x-long-password") for name in ("oya", "ko")]


def finished_game(users) -> Game:
    """A nine-card game with a real move in it (seat 0 commits a card), ended by seat 1 resigning."""
    game = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=users, created_by=users[0])
    moves = [(users[0], {"type": "commit_card", "card": game.state["hands"][0][0]}), (users[1], {"type": "resign"})]
    for key, (user, move) in enumerate(moves):
        services.move_submit(game_id=game.pk, user=user, move=move, idempotency_key=str(key))
        services.game_advance(game_id=game.pk)
    game.refresh_from_db()
    assert game.is_finished
    return game


def outsider_check(signed: dict, public_key_hex: str, head_seq: int, head_hash: str) -> bool:
    """What anyone can do with a record's head, the game's checkpoint answer and the public key,
    without Kifu's code beyond the published formats (RFC 9162 leaves, canonical JSON, Ed25519)."""
    body = signed["checkpoint"]["body"].encode()
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key_hex)).verify(
            bytes.fromhex(signed["checkpoint"]["signature"]), body
        )
    except Exception:
        return False
    leaf = merkle.leaf_hash(checkpoints.leaf_data(signed["game"], head_seq, head_hash))
    root = bytes.fromhex(signed["checkpoint"]["merkle_root"])
    proof = [bytes.fromhex(sibling) for sibling in signed["proof"]]
    return merkle.inclusion_verify(leaf, signed["index"], signed["checkpoint"]["size"], proof, root)


# ---- the Merkle tree ----------------------------------------------------------------------------------
def test_every_leaf_of_every_tree_size_proves_and_nothing_else_does():
    for size in range(1, 20):
        leaves = [merkle.leaf_hash(os.urandom(8)) for _ in range(size)]
        root = merkle.root(leaves)
        for index in range(size):
            proof = merkle.inclusion_proof(leaves, index)
            assert merkle.inclusion_verify(leaves[index], index, size, proof, root)
            assert not merkle.inclusion_verify(merkle.leaf_hash(b"other"), index, size, proof, root)
            assert not merkle.inclusion_verify(leaves[index], size, size, proof, root)  # past the end
            if size > 1:
                assert not merkle.inclusion_verify(leaves[index], (index + 1) % size, size, proof, root)


def test_the_tree_is_rfc_9162s():
    a, b, c = (merkle.leaf_hash(data) for data in (b"a", b"b", b"c"))
    assert a == hashlib.sha256(b"\x00a").digest()
    node = lambda left, right: hashlib.sha256(b"\x01" + left + right).digest()  # noqa: E731
    assert merkle.root([a, b, c]) == node(node(a, b), c)  # split at the largest power of two below 3
    assert merkle.inclusion_proof([a, b, c], 2) == [node(a, b)]
    assert merkle.root([]) == hashlib.sha256(b"").digest()


# ---- writing and checking the log -------------------------------------------------------------------------
def test_checkpoints_batch_finished_games_chain_and_sign(users):
    first, second = finished_game(users), finished_game(users)
    running = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=users, created_by=users[0])
    before = Checkpoint.objects.count()
    checkpoint = checkpoints.checkpoint_create()
    assert checkpoint.size == 2 and set(checkpoint.leaves.values_list("game_id", flat=True)) == {first.pk, second.pk}
    assert checkpoints.checkpoint_create() is None  # nothing new has finished
    third = finished_game(users)
    following = checkpoints.checkpoint_create(limit=1)
    assert following.seq == checkpoint.seq + 1 and following.previous_hash == checkpoint.hash
    assert list(following.leaves.values_list("game_id", flat=True)) == [third.pk]
    assert Checkpoint.objects.count() == before + 2
    assert not CheckpointLeaf.objects.filter(game=running).exists()
    assert checkpoints.log_verify() == []
    assert all(game_verify(game=game).checkpoint_ok for game in (first, second, third))
    assert game_verify(game=running).checkpoint_ok is None


def test_the_log_is_append_only_in_postgres(users):
    finished_game(users)
    checkpoint = checkpoints.checkpoint_create()
    if connection.vendor != "postgresql":
        pytest.skip("the triggers are PostgreSQL's")
    for statement in (
        f"UPDATE games_checkpoint SET merkle_root = repeat('0', 64) WHERE id = {checkpoint.pk}",
        f"DELETE FROM games_checkpointleaf WHERE checkpoint_id = {checkpoint.pk}",
        "TRUNCATE games_checkpoint CASCADE",
    ):
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement)


def test_a_forged_signature_or_a_broken_chain_is_found(users):
    finished_game(users)
    first = checkpoints.checkpoint_create()
    finished_game(users)
    second = checkpoints.checkpoint_create()
    with pgtrigger.ignore("games.Checkpoint:checkpoint_append_only"):
        Checkpoint.objects.filter(pk=first.pk).update(size=first.size + 1)
    problems = checkpoints.log_verify()
    assert f"checkpoint {first.seq}: the signature is not valid" in problems
    assert any(problem.startswith(f"checkpoint {second.seq}: the chain is broken") for problem in problems)


# ---- the rewrite of issue 15 part 5 ---------------------------------------------------------------------
def superuser_rewrite(game: Game) -> None:
    """Exactly the issue's attack: change a move, recompute every later hash, the head hash, the
    state and the outcome - with the triggers out of the way, as a database superuser can."""
    events = list(game.events.order_by("seq"))
    move = next(event for event in events if event.payload.get("type") == "commit_card")
    hand = events[0].payload["hands"][0]
    forged = next(card for card in hand if card != move.payload["card"])
    with pgtrigger.ignore("games.Event:event_append_only"):
        Event.objects.filter(pk=move.pk).update(payload={**move.payload, "card": forged})
        previous = "0" * 64
        for row in game.events.order_by("seq"):
            previous = event_hash(previous, row.seq, row.as_record())
            Event.objects.filter(pk=row.pk).update(hash=previous)
    replay = replay_record(record_export(game=Game.objects.get(pk=game.pk)).splitlines())
    Game.objects.filter(pk=game.pk).update(
        head_hash=previous,
        state=get_engine(game.engine).dump_state(replay.state),
        outcome=replay.outcome_json(),
    )
    game.refresh_from_db()


def test_a_consistent_rewrite_after_the_checkpoint_fails_verification(users, capsys):
    game = finished_game(users)
    checkpoints.checkpoint_create()
    kept = checkpoints.game_checkpoint(game_id=game.pk)  # what a player keeps with the record
    public_key = checkpoints.public_key_json()["public_key"]
    assert game_verify(game=game).ok and game_verify(game=game).checkpoint_ok
    old_head = game.head_hash

    superuser_rewrite(game)

    report = game_verify(game=game)
    assert game.head_hash != old_head
    # Everything the old verify looked at checks out: the rewrite is consistent ...
    assert report.chain_ok and report.replay_ok and report.projection_ok and report.chance_ok and report.seed_ok
    # ... and the signed checkpoint does not.
    assert report.checkpoint_ok is False and not report.ok
    assert report.problems == [
        f"the head (event {game.head_seq}, {game.head_hash[:16]}) is not the head checkpoint "
        f"{kept['checkpoint']['seq']} signed (event {game.head_seq}, {old_head[:16]}): "
        "the game changed after it was checkpointed"
    ]
    with pytest.raises(SystemExit) as exit_:
        call_command("kifu", "verify", str(game.pk))
    assert exit_.value.code == 1 and "the game changed after it was checkpointed" in capsys.readouterr().out
    body = APIClient().get(f"/api/games/{game.pk}/verification").json()
    assert body["ok"] is False and body["checkpoint_ok"] is False
    # An outsider with only the record and what the server published finds it too.
    assert outsider_check(kept, public_key, game.head_seq, old_head)
    assert not outsider_check(kept, public_key, game.head_seq, game.head_hash)


def test_the_signed_head_players_keep_catches_the_rewrite_before_any_checkpoint(users, tmp_path, capsys):
    game = finished_game(users)
    signed = APIClient().get(f"/api/games/{game.pk}/signed-head").json()  # no checkpoint yet: at once
    assert signed == checkpoints.head_signed(game) and signed["key_id"] == checkpoints.public_key_json()["key_id"]
    kept = tmp_path / "head.json"
    kept.write_text(json.dumps(signed))
    call_command("kifu", "verify", str(game.pk), "--signed-head", str(kept))
    assert "where the server signed its head" in capsys.readouterr().out
    # An outsider checks it with the public key and the published body format alone.
    body = json.dumps(
        {
            "game": signed["game"],
            "head_hash": signed["head_hash"],
            "head_seq": signed["head_seq"],
            "kifu_signed_head": 1,
        },
        sort_keys=True,
        separators=(",", ":"),
    ).encode()
    public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(checkpoints.public_key_json()["public_key"]))
    public.verify(bytes.fromhex(signed["signature"]), body)

    superuser_rewrite(game)  # before the checkpoint log has the game
    assert game_verify(game=game).ok and game_verify(game=game).checkpoint_ok is None  # the chain alone: fooled
    problems = checkpoints.head_signed_problems(signed, game=game)
    assert len(problems) == 1 and "the log changed after the game ended" in problems[0]
    with pytest.raises(SystemExit) as exit_:
        call_command("kifu", "verify", str(game.pk), "--signed-head", str(kept))
    assert exit_.value.code == 1 and "the log changed after the game ended" in capsys.readouterr().out


def test_a_signed_head_that_is_forged_or_of_another_game_is_refused(users, tmp_path):
    game, other = finished_game(users), finished_game(users)
    signed = checkpoints.head_signed(game)
    flipped = signed["signature"][:-1] + ("0" if signed["signature"][-1] != "0" else "1")
    cases = {
        "not an object": ["x"],
        "missing field": {k: v for k, v in signed.items() if k != "signature"},
        "wrong format": {**signed, "kifu_signed_head": 2},
        "other game": checkpoints.head_signed(other),
        "unknown key": {**signed, "key_id": "ab" * 32},
        "forged": {**signed, "signature": flipped},
        "moved head": {**signed, "head_seq": signed["head_seq"] - 1},
        "not hex": {**signed, "signature": "zz"},
    }
    for name, bad in cases.items():
        assert checkpoints.head_signed_problems(bad, game=game), name
    assert checkpoints.head_signed_problems(signed, game=game) == []
    running = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=users, created_by=users[0])
    assert checkpoints.head_signed(running) is None
    answer = APIClient().get(f"/api/games/{running.pk}/signed-head")
    assert answer.status_code == 409 and answer.json()["code"] == "game_not_finished"
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(CommandError, match="cannot read the signed head"):
        call_command("kifu", "verify", str(game.pk), "--signed-head", str(tmp_path / "bad.json"))
    with pytest.raises(CommandError, match="checks one game"):
        call_command("kifu", "verify", "--all", "--signed-head", str(tmp_path / "bad.json"))


def test_rewriting_the_leaf_too_breaks_the_signed_root(users):
    game = finished_game(users)
    checkpoint = checkpoints.checkpoint_create()
    superuser_rewrite(game)
    with pgtrigger.ignore("games.CheckpointLeaf:checkpoint_leaf_append_only"):
        CheckpointLeaf.objects.filter(game=game).update(head_hash=game.head_hash)
    report = game_verify(game=game)
    assert not report.ok and report.checkpoint_ok is False
    assert f"checkpoint {checkpoint.seq}: its stored games do not give the Merkle root it signed" in report.problems


# ---- over HTTP ------------------------------------------------------------------------------------------
def test_the_api_serves_the_log_the_key_and_each_games_proof(users):
    game = finished_game(users)
    client = APIClient()  # anonymous: the log is public
    answer = client.get(f"/api/games/{game.pk}/checkpoint")
    assert answer.status_code == 404 and answer.json()["code"] == "not_checkpointed"
    detail = client.get(f"/api/games/{game.pk}").json()
    assert detail["urls"]["checkpoint"].endswith(f"/api/games/{game.pk}/checkpoint")

    checkpoint = checkpoints.checkpoint_create()
    signed = client.get(f"/api/games/{game.pk}/checkpoint").json()
    key = client.get("/api/checkpoints/public-key").json()
    assert key["algorithm"] == "Ed25519" and key["key_id"] == signed["checkpoint"]["key_id"]
    assert signed["leaf"] == {"game": str(game.pk), "head_seq": game.head_seq, "head_hash": game.head_hash}
    assert outsider_check(signed, key["public_key"], game.head_seq, game.head_hash)

    page = client.get("/api/checkpoints?limit=1000").json()
    entry = next(row for row in page["results"] if row["seq"] == checkpoint.seq)
    assert entry["hash"] == hashlib.sha256(entry["body"].encode()).hexdigest()
    leaves = [bytes.fromhex(leaf) for leaf in entry["leaves"]]
    assert merkle.root(leaves).hex() == entry["merkle_root"] and signed["leaf_hash"] in entry["leaves"]
    assert client.get("/api/checkpoints?limit=0").status_code == 400


def test_a_running_game_has_no_checkpoint_link(users):
    game = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=users, created_by=users[0])
    assert "checkpoint" not in APIClient().get(f"/api/games/{game.pk}").json()["urls"]
    answer = APIClient().get(f"/api/games/{game.pk}/checkpoint")
    assert answer.status_code == 404 and answer.json()["code"] == "not_checkpointed"


# ---- the key ----------------------------------------------------------------------------------------------
def test_the_key_comes_from_the_environment_or_a_file_and_a_bad_one_stops_the_start(tmp_path):
    seed = "ab" * 32
    assert Env({"KIFU_CHECKPOINT_KEY": seed}).checkpoint_key("KIFU_CHECKPOINT_KEY", "F", secret_key="s") == seed
    (tmp_path / "key").write_text(seed.upper() + "\n")
    env = Env({"F": str(tmp_path / "key")})
    assert env.checkpoint_key("KIFU_CHECKPOINT_KEY", "F", secret_key="s") == seed and not env.problems
    unset = Env({})
    assert unset.checkpoint_key("KIFU_CHECKPOINT_KEY", "F", secret_key="s") == derived_checkpoint_key("s")
    assert Env({"P": f" {seed.upper()} ,"}).public_keys("P") == [seed]
    bad_public = Env({"P": f"{seed},xyz"})
    assert bad_public.public_keys("P") == [] and len(bad_public.problems) == 1
    for environ in ({"KIFU_CHECKPOINT_KEY": "not-a-key"}, {"F": str(tmp_path / "missing")}):
        bad = Env(environ)
        bad.checkpoint_key("KIFU_CHECKPOINT_KEY", "F", secret_key="s")
        assert len(bad.problems) == 1 and "\n" not in bad.problems[0]
        with pytest.raises(SystemExit):
            bad.check()


def test_after_a_key_change_old_checkpoints_verify_only_with_the_old_key_listed(users, settings):
    game = finished_game(users)
    checkpoints.checkpoint_create()
    old_public = checkpoints.public_key_json()["public_key"]
    settings.KIFU_CHECKPOINT_KEY = "cd" * 32
    report = game_verify(game=game)
    assert not report.ok and "KIFU_CHECKPOINT_PREVIOUS_KEYS" in report.problems[0]
    settings.KIFU_CHECKPOINT_PREVIOUS_KEYS = [old_public]
    assert game_verify(game=game).ok
    assert checkpoints.public_key_json()["previous_keys"][0]["public_key"] == old_public
    following = finished_game(users)
    checkpoints.checkpoint_create()  # the new key signs on, chained to the old key's checkpoint
    assert game_verify(game=following).ok and checkpoints.log_verify() == []


def test_beat_and_the_embedded_timer_both_run_the_checkpoint_task(users, settings):
    from games import scheduler

    assert settings.CELERY_BEAT_SCHEDULE["games-checkpoint"]["task"] == "games.tasks.checkpoint_task"
    game = finished_game(users)
    settings.KIFU_EMBEDDED_PERIODIC = [entry for entry in settings.KIFU_EMBEDDED_PERIODIC if "checkpoint" in entry[0]]
    scheduler.run_periodic({}, 1e9)  # what the embedded timer thread does each tick
    assert CheckpointLeaf.objects.filter(game=game).exists()


@pytest.mark.stack
def test_on_the_real_stack_beat_signs_a_finished_game_within_seconds(stack, players):
    from kifu.devstack import wait_until

    oya, ko = players(2)
    game_id = oya.create_game("nine-card", [oya.name, None])["id"]
    assert ko.post(f"/api/games/{game_id}/join").status_code == 200
    assert ko.move(game_id, {"type": "resign"}).json()["status"] == "accepted"
    game = oya.get(f"/api/games/{game_id}").json()
    assert game["status"] == "finished" and game["urls"]["checkpoint"]

    def signed():
        answer = oya.http.get(game["urls"]["checkpoint"], timeout=30)
        return answer.json() if answer.status_code == 200 else None

    kept = wait_until(signed, 20, "the game's checkpoint")  # beat runs the checkpoint task every 5 s
    key = oya.get("/api/checkpoints/public-key").json()
    assert outsider_check(kept, key["public_key"], game["head_seq"], game["head_hash"])
    assert ko.get(f"/api/games/{game_id}/verification").json()["checkpoint_ok"] is True


def test_a_tick_looks_only_at_recent_games_and_the_hourly_full_look_catches_older_ones(users):
    """Growth: a tick's cost follows what finished lately (index game_finished_at), not every game."""
    from datetime import timedelta

    from django.core.cache import cache
    from django.db.models import Q
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    first = finished_game(users)
    cache.delete(checkpoints.FULL_SWEEP_KEY)
    assert checkpoints.checkpoint_create() is not None  # the first look of the hour is a full one
    old = finished_game(users)
    Game.objects.filter(pk=old.pk).update(finished_at=timezone.now() - timedelta(days=2))  # slipped by
    with CaptureQueriesContext(connection) as queries:
        assert checkpoints.checkpoint_create() is None  # a tick sees only recent games
    assert any('"finished_at" >=' in q["sql"] for q in queries)
    cache.delete(checkpoints.FULL_SWEEP_KEY)  # an hour later
    signed = checkpoints.checkpoint_create()
    assert signed is not None and CheckpointLeaf.objects.filter(checkpoint=signed, game=old).exists()
    assert not Game.objects.filter(Q(pk=first.pk) | Q(pk=old.pk), checkpoint_leaf__isnull=True).exists()
