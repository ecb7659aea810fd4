"""The signed checkpoint log: finished games' heads, batched under chained, signed Merkle roots.

The hash chain of a game's events shows that nothing changed *unless someone recomputed it*: a
database superuser can change a move and recompute every later hash, the head, the state and the
outcome, and the chain alone still checks out (issue 15, part 5). The anchor is a key that is not in
the database: every few seconds ``checkpoint_create`` takes the finished games not yet
checkpointed, makes one Merkle leaf of each game's head, and appends a checkpoint that signs
(Ed25519, ``settings.KIFU_CHECKPOINT_KEY``) the root of those leaves together with the hash of the
checkpoint before it. The log is public (``GET /api/checkpoints``), and each game's checkpoint comes
with an inclusion proof (``GET /api/games/{id}/checkpoint``), so anyone holding a record can check
that its head is the one the server signed when the game ended; a later rewrite no longer is.

Formats (what an outsider re-implements; ``canonical_json`` is sorted keys, no spaces, UTF-8):

- leaf: ``canonical_json({"game": id, "head_hash": hex, "head_seq": n})``, hashed as an RFC 9162
  leaf (``sha256(0x00 || leaf)``, games/merkle.py); leaves are in ``index`` order;
- body: ``canonical_json({"created_at", "key_id", "kifu_checkpoint": 1, "merkle_root",
  "previous_hash", "seq", "size"})``; the signature is Ed25519 over the body's bytes, the
  checkpoint's ``hash`` is ``sha256(body)`` and the next checkpoint's ``previous_hash``;
- ``key_id`` is ``sha256`` of the raw 32-byte public key (``GET /api/checkpoints/public-key``).
"""

from __future__ import annotations

import functools
import hashlib
from datetime import UTC, timedelta

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from . import merkle
from .models import Checkpoint, CheckpointLeaf, Game
from .records import canonical_json

FORMAT = 1
GENESIS = "0" * 64
# pg_advisory_xact_lock key: one checkpoint writer at a time (two beat ticks, a manual run).
ADVISORY_LOCK = 0x6B6966750001


# ---- the key ------------------------------------------------------------------------------------
@functools.cache
def _private_key(seed_hex: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed_hex))


def signing_key() -> Ed25519PrivateKey:
    return _private_key(settings.KIFU_CHECKPOINT_KEY)


def public_key_raw() -> bytes:
    return signing_key().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def key_id_of(public_raw: bytes) -> str:
    return hashlib.sha256(public_raw).hexdigest()


def public_key_json() -> dict:
    raw = public_key_raw()
    pem = signing_key().public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode()
    previous = [{"key_id": key_id_of(bytes.fromhex(key)), "public_key": key} for key in _previous_keys()]
    return {
        "algorithm": "Ed25519",
        "key_id": key_id_of(raw),
        "public_key": raw.hex(),
        "public_key_pem": pem,
        "previous_keys": previous,
    }


def _previous_keys() -> list[str]:
    return [key for key in settings.KIFU_CHECKPOINT_PREVIOUS_KEYS if key != public_key_raw().hex()]


def _public_key_for(key_id: str) -> Ed25519PublicKey | None:
    """The key that made signatures under ``key_id``: the server's own, or one it signed with
    before (``settings.KIFU_CHECKPOINT_PREVIOUS_KEYS``); None for any other."""
    if key_id == key_id_of(public_key_raw()):
        return signing_key().public_key()
    for key in _previous_keys():
        if key_id == key_id_of(bytes.fromhex(key)):
            return Ed25519PublicKey.from_public_bytes(bytes.fromhex(key))
    return None


# ---- leaves and bodies --------------------------------------------------------------------------
def leaf_data(game_id, head_seq: int, head_hash: str) -> bytes:
    return canonical_json({"game": str(game_id), "head_hash": head_hash, "head_seq": head_seq}).encode()


def leaf_of(game_id, head_seq: int, head_hash: str) -> bytes:
    return merkle.leaf_hash(leaf_data(game_id, head_seq, head_hash))


def _timestamp(moment) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _body(checkpoint: Checkpoint) -> dict:
    return {
        "kifu_checkpoint": FORMAT,
        "seq": checkpoint.seq,
        "previous_hash": checkpoint.previous_hash,
        "merkle_root": checkpoint.merkle_root,
        "size": checkpoint.size,
        "created_at": _timestamp(checkpoint.created_at),
        "key_id": checkpoint.key_id,
    }


def body_bytes(checkpoint: Checkpoint) -> bytes:
    """The canonical body the signature covers (rebuilt from the row's columns)."""
    return canonical_json(_body(checkpoint)).encode()


def checkpoint_json(checkpoint: Checkpoint) -> dict:
    body = _body(checkpoint)
    return {
        **{key: value for key, value in body.items() if key != "kifu_checkpoint"},
        "signature": checkpoint.signature,
        "hash": checkpoint.hash,
        "body": canonical_json(body),
    }


def _leaf_hashes(checkpoint: Checkpoint) -> list[bytes]:
    rows = CheckpointLeaf.objects.filter(checkpoint=checkpoint).order_by("index")
    return [leaf_of(game_id, seq, head) for game_id, seq, head in rows.values_list("game_id", "head_seq", "head_hash")]


# ---- writing --------------------------------------------------------------------------------------
RECENT_SLACK = timedelta(hours=1)
FULL_SWEEP_KEY = "kifu:checkpoint:full-sweep"
FULL_SWEEP_SECONDS = 3600


def checkpoint_create(*, limit: int | None = None) -> Checkpoint | None:
    """Append one checkpoint over the finished games not in one yet (at most ``limit``, oldest
    end first); None when there are none. Writers are serialised by an advisory lock on
    PostgreSQL (SQLite's IMMEDIATE transactions serialise them anyway); should two still race, the
    unique ``seq`` and one-leaf-per-game constraints make the second roll back, and its games wait
    for the next tick."""
    limit = limit or settings.KIFU_CHECKPOINT_BATCH
    try:
        with transaction.atomic():
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_xact_lock(%s)", [ADVISORY_LOCK])
            last = Checkpoint.objects.order_by("-seq").first()
            unsigned = Game.objects.filter(status=Game.Status.FINISHED, checkpoint_leaf__isnull=True)
            full_look = cache.add(FULL_SWEEP_KEY, 1, FULL_SWEEP_SECONDS) or last is None
            if not full_look:
                # A tick looks only at games that finished since shortly before the last checkpoint
                # (index game_finished_at), so its cost follows what finished lately, not every
                # game ever; once an hour a full look catches anything older that slipped by.
                unsigned = unsigned.filter(finished_at__gte=last.created_at - RECENT_SLACK)
            games = list(unsigned.order_by("finished_at", "id").values_list("id", "head_seq", "head_hash")[:limit])
            if not games:
                return None
            key = signing_key()
            checkpoint = Checkpoint(
                seq=last.seq + 1 if last else 1,
                # chained to the body as signed, not to the stored hash column
                previous_hash=hashlib.sha256(body_bytes(last)).hexdigest() if last else GENESIS,
                merkle_root=merkle.root([leaf_of(*game) for game in games]).hex(),
                size=len(games),
                created_at=timezone.now(),
                key_id=key_id_of(public_key_raw()),
            )
            body = body_bytes(checkpoint)
            checkpoint.signature = key.sign(body).hex()
            checkpoint.hash = hashlib.sha256(body).hexdigest()
            checkpoint.save()
            CheckpointLeaf.objects.bulk_create(
                CheckpointLeaf(checkpoint=checkpoint, index=index, game_id=game_id, head_seq=seq, head_hash=head)
                for index, (game_id, seq, head) in enumerate(games)
            )
            return checkpoint
    except IntegrityError:
        return None


# ---- the signed head: what the players get the moment a game ends ----------------------------------
HEAD_FORMAT = 1


def head_body(game_id, head_seq: int, head_hash: str) -> bytes:
    """The bytes a signed head's signature covers: ``canonical_json({"game", "head_hash",
    "head_seq", "kifu_signed_head": 1})``. The ``kifu_signed_head`` field keeps a head signature
    from ever being taken for a checkpoint body's (those have ``kifu_checkpoint``) or the reverse."""
    body = {"game": str(game_id), "head_hash": head_hash, "head_seq": head_seq, "kifu_signed_head": HEAD_FORMAT}
    return canonical_json(body).encode()


def head_signed(game: Game) -> dict | None:
    """The finished game's head signed by the server's key, at once (no wait for the next checkpoint):
    sent with the game's end to its players (the game stream's ``end``, the account stream's
    ``game_ended``) and at ``GET /api/games/{id}/signed-head``. Kept with the record, it proves
    which head the server declared final, even before the checkpoint log includes the game and
    against a later rewrite of the stored log. None while the game has not ended."""
    if game.status != Game.Status.FINISHED:
        return None
    signature = signing_key().sign(head_body(game.pk, game.head_seq, game.head_hash)).hex()
    return {
        "game": str(game.pk),
        "head_seq": game.head_seq,
        "head_hash": game.head_hash,
        "kifu_signed_head": HEAD_FORMAT,
        "key_id": key_id_of(public_key_raw()),
        "signature": signature,
    }


def head_signed_problems(signed: object, *, game: Game) -> list[str]:
    """What is wrong with a signed head a player kept, checked against the game as stored: its shape,
    the key (this server's, or one in KIFU_CHECKPOINT_PREVIOUS_KEYS), the signature, and that it is
    this game's head now. An empty list: the stored game ends exactly where the server signed it."""
    fields = {"game": str, "head_seq": int, "head_hash": str, "key_id": str, "signature": str}
    if not isinstance(signed, dict) or any(not isinstance(signed.get(name), kind) for name, kind in fields.items()):
        return ["the signed head must be a JSON object with game, head_seq, head_hash, key_id and signature"]
    if signed.get("kifu_signed_head") != HEAD_FORMAT:
        return [f"the signed head's kifu_signed_head must be {HEAD_FORMAT}"]
    if signed["game"] != str(game.pk):
        return [f"the signed head is of game {signed['game']}, not of {game.pk}"]
    key = _public_key_for(signed["key_id"])
    if key is None:
        return [f"signed with key {signed['key_id'][:16]}, which is neither this server's key nor a previous one"]
    try:
        key.verify(bytes.fromhex(signed["signature"]), head_body(game.pk, signed["head_seq"], signed["head_hash"]))
    except (InvalidSignature, ValueError):
        return ["the signed head's signature is not valid"]
    if (signed["head_seq"], signed["head_hash"]) != (game.head_seq, game.head_hash):
        return [
            f"the stored game ends at event {game.head_seq} ({game.head_hash[:16]}), not where the server signed "
            f"it (event {signed['head_seq']}, {signed['head_hash'][:16]}): the log changed after the game ended"
        ]
    return []


# ---- reading --------------------------------------------------------------------------------------
def game_checkpoint(*, game_id) -> dict | None:
    """The game's signed checkpoint with the leaf and its inclusion proof; None if not yet in one."""
    leaf = CheckpointLeaf.objects.select_related("checkpoint").filter(game_id=game_id).first()
    if leaf is None:
        return None
    hashes = _leaf_hashes(leaf.checkpoint)
    return {
        "game": str(game_id),
        "leaf": {"game": str(game_id), "head_seq": leaf.head_seq, "head_hash": leaf.head_hash},
        "leaf_hash": hashes[leaf.index].hex(),
        "index": leaf.index,
        "proof": [sibling.hex() for sibling in merkle.inclusion_proof(hashes, leaf.index)],
        "checkpoint": checkpoint_json(leaf.checkpoint),
    }


# ---- checking ---------------------------------------------------------------------------------------
def checkpoint_problems(checkpoint: Checkpoint, hashes: list[bytes] | None = None) -> list[str]:
    """What is wrong with one checkpoint: its hash, its signature and, given its leaves' hashes,
    its size and Merkle root."""
    name, body = f"checkpoint {checkpoint.seq}", body_bytes(checkpoint)
    problems = []
    if hashlib.sha256(body).hexdigest() != checkpoint.hash:
        problems.append(f"{name}: its hash does not match its body")
    key = _public_key_for(checkpoint.key_id)
    if key is None:
        problems.append(
            f"{name}: signed with key {checkpoint.key_id[:16]}, which is neither this server's key nor in "
            "KIFU_CHECKPOINT_PREVIOUS_KEYS"
        )
    else:
        try:
            key.verify(bytes.fromhex(checkpoint.signature), body)
        except (InvalidSignature, ValueError):
            problems.append(f"{name}: the signature is not valid")
    if hashes is not None:
        if len(hashes) != checkpoint.size:
            problems.append(f"{name}: {len(hashes)} games are stored under it, but it signed {checkpoint.size}")
        elif merkle.root(hashes).hex() != checkpoint.merkle_root:
            problems.append(f"{name}: its stored games do not give the Merkle root it signed")
    return problems


def _link_problem(previous: Checkpoint | None, checkpoint: Checkpoint) -> str | None:
    expected = hashlib.sha256(body_bytes(previous)).hexdigest() if previous else GENESIS
    if checkpoint.previous_hash != expected:
        found, wanted = checkpoint.previous_hash[:16], expected[:16]
        return f"checkpoint {checkpoint.seq}: the chain is broken (it follows {found}, not {wanted})"
    return None


def chain_problems(checkpoint: Checkpoint) -> list[str]:
    """The links to the checkpoints either side of this one."""
    around = {row.seq: row for row in Checkpoint.objects.filter(seq__in=[checkpoint.seq - 1, checkpoint.seq + 1])}
    previous, following = around.get(checkpoint.seq - 1), around.get(checkpoint.seq + 1)
    if checkpoint.seq > 1 and previous is None:
        return [f"checkpoint {checkpoint.seq - 1} is missing"]
    problems = [problem for problem in [_link_problem(previous, checkpoint)] if problem]
    if following is not None and (problem := _link_problem(checkpoint, following)):
        problems.append(problem)
    return problems


def game_checkpoint_check(*, game: Game) -> tuple[bool | None, list[str]]:
    """Check the game's head against its signed checkpoint: signature, chain, inclusion proof and
    that the leaf is the game's head now. ``(None, [])`` while the game is in no checkpoint yet."""
    leaf = CheckpointLeaf.objects.select_related("checkpoint").filter(game_id=game.pk).first()
    if leaf is None:
        return None, []
    checkpoint = leaf.checkpoint
    hashes = _leaf_hashes(checkpoint)
    problems = checkpoint_problems(checkpoint, hashes) + chain_problems(checkpoint)
    proof = merkle.inclusion_proof(hashes, leaf.index) if leaf.index < len(hashes) else []
    mine = leaf_of(game.pk, game.head_seq, game.head_hash)
    if not merkle.inclusion_verify(mine, leaf.index, checkpoint.size, proof, bytes.fromhex(checkpoint.merkle_root)):
        problems.append(
            f"the head (event {game.head_seq}, {game.head_hash[:16]}) is not the head checkpoint {checkpoint.seq} "
            f"signed (event {leaf.head_seq}, {leaf.head_hash[:16]}): the game changed after it was checkpointed"
        )
    return not problems, problems


def log_verify() -> list[str]:
    """Every checkpoint of the log in order: sequence, chain, signature, size and root."""
    problems, previous, expected_seq = [], None, 1
    for checkpoint in Checkpoint.objects.order_by("seq").iterator(chunk_size=200):
        if checkpoint.seq != expected_seq:
            problems.append(f"checkpoint {expected_seq} is missing (the next one is {checkpoint.seq})")
        elif problem := _link_problem(previous, checkpoint):
            problems.append(problem)
        problems += checkpoint_problems(checkpoint, _leaf_hashes(checkpoint))
        previous, expected_seq = checkpoint, checkpoint.seq + 1
    return problems
