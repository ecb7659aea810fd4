"""The signed checkpoint log over HTTP: the whole log, the public key, one game's checkpoint and proof."""

from __future__ import annotations

from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema
from rest_framework import generics, permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from games import checkpoints
from games.models import Checkpoint, CheckpointLeaf
from kifu.http.errors import ApiError, ErrorSerializer, error_responses

from .views import load_game, refuse_delayed_spectator

ERRORS = error_responses(400, 404, 409)


class CheckpointSerializer(serializers.Serializer):
    """One signed checkpoint; ``body`` is exactly the bytes (UTF-8) the signature covers."""

    seq = serializers.IntegerField()
    previous_hash = serializers.CharField(help_text="sha256 of the previous checkpoint's body (zeros for the first)")
    merkle_root = serializers.CharField(help_text="RFC 9162 Merkle tree hash over the leaves, hex")
    size = serializers.IntegerField(help_text="how many leaves (finished games)")
    created_at = serializers.CharField()
    key_id = serializers.CharField(help_text="sha256 of the raw Ed25519 public key that signed it")
    signature = serializers.CharField(help_text="Ed25519 signature of body, hex")
    hash = serializers.CharField(help_text="sha256 of body, hex: the next checkpoint's previous_hash")
    body = serializers.CharField(help_text="the canonical JSON the signature covers")

    def to_representation(self, checkpoint):
        return checkpoints.checkpoint_json(checkpoint)


class CheckpointLogSerializer(CheckpointSerializer):
    """A checkpoint with its leaves' hashes in order: enough to recompute its Merkle root."""

    leaves = serializers.ListField(child=serializers.CharField(), help_text="RFC 9162 leaf hashes, hex, in order")

    def to_representation(self, checkpoint):
        leaves = [
            checkpoints.leaf_of(leaf.game_id, leaf.head_seq, leaf.head_hash).hex() for leaf in checkpoint.leaves.all()
        ]
        return {**super().to_representation(checkpoint), "leaves": leaves}


class PreviousKeySerializer(serializers.Serializer):
    key_id = serializers.CharField()
    public_key = serializers.CharField()


class PublicKeySerializer(serializers.Serializer):
    algorithm = serializers.CharField()
    key_id = serializers.CharField(help_text="sha256 of the raw public key, hex")
    public_key = serializers.CharField(help_text="the raw 32-byte Ed25519 public key, hex")
    public_key_pem = serializers.CharField()
    previous_keys = PreviousKeySerializer(many=True, help_text="keys that signed older checkpoints")


class LeafSerializer(serializers.Serializer):
    game = serializers.UUIDField()
    head_seq = serializers.IntegerField()
    head_hash = serializers.CharField()


class GameCheckpointSerializer(serializers.Serializer):
    game = serializers.UUIDField()
    leaf = LeafSerializer(help_text="the game's head as signed; its canonical JSON is the Merkle leaf")
    leaf_hash = serializers.CharField()
    index = serializers.IntegerField(help_text="the leaf's position in the checkpoint")
    proof = serializers.ListField(child=serializers.CharField(), help_text="RFC 9162 inclusion proof, hex")
    checkpoint = CheckpointSerializer()


class SignedHeadSerializer(serializers.Serializer):
    """The finished game's head, signed the moment it ended (``games.checkpoints.head_signed``)."""

    game = serializers.UUIDField()
    head_seq = serializers.IntegerField()
    head_hash = serializers.CharField(help_text="the last event's hash, hex")
    kifu_signed_head = serializers.IntegerField(help_text="the format: 1")
    key_id = serializers.CharField(help_text="sha256 of the raw public key that signed it (see checkpoints/public-key)")
    signature = serializers.CharField(
        help_text='Ed25519, hex, over canonical_json({"game", "head_hash", "head_seq", "kifu_signed_head"})'
    )


class CheckpointListView(generics.ListAPIView):
    """The whole checkpoint log, oldest first, for anyone to download and check."""

    permission_classes = [permissions.AllowAny]
    serializer_class = CheckpointLogSerializer
    queryset = Checkpoint.objects.order_by("seq").prefetch_related(
        Prefetch(
            "leaves",
            queryset=CheckpointLeaf.objects.order_by("index").only(
                "checkpoint", "index", "game", "head_seq", "head_hash"
            ),
        )
    )

    @extend_schema(responses={200: CheckpointLogSerializer(many=True), 400: ErrorSerializer}, tags=["checkpoints"])
    def get(self, request, *args, **kwargs):
        """Every checkpoint with its signature and leaf hashes: check each signature with the public
        key, that each ``previous_hash`` is the ``hash`` before it, and each root over its leaves."""
        return super().get(request, *args, **kwargs)


class CheckpointPublicKeyView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses={200: PublicKeySerializer}, tags=["checkpoints"])
    def get(self, request):
        """The Ed25519 public key that signs the checkpoint log, and those that signed it before."""
        return Response(checkpoints.public_key_json())


class GameCheckpointView(APIView):
    @extend_schema(responses={200: GameCheckpointSerializer, **ERRORS}, tags=["checkpoints"])
    def get(self, request, pk):
        """The finished game's signed checkpoint and the inclusion proof of its head: keep it with the
        record. 404 ``not_checkpointed`` until the game has ended and the next checkpoint (every few
        seconds) has signed it."""
        game = load_game(pk, request.user)
        refuse_delayed_spectator(game, request)  # the signed head is the newest event's hash
        signed = checkpoints.game_checkpoint(game_id=game.pk)
        if signed is None:
            state = "has not ended" if not game.is_finished else "has ended but is not in a checkpoint yet"
            raise ApiError(
                "not_checkpointed", f"the game {state}; try again in a few seconds", status.HTTP_404_NOT_FOUND
            )
        return Response(signed)


class GameSignedHeadView(APIView):
    @extend_schema(responses={200: SignedHeadSerializer, **ERRORS}, tags=["checkpoints"])
    def get(self, request, pk):
        """The finished game's head signed by the server: the same object its players received with
        the game's end (the game stream's ``end``, the account stream's ``game_ended``). Keep it with
        the record; ``manage.py kifu verify GAME --signed-head FILE`` checks the stored game against it.
        409 ``game_not_finished`` until the game has ended."""
        game = load_game(pk, request.user)
        refuse_delayed_spectator(game, request)
        signed = checkpoints.head_signed(game)
        if signed is None:
            raise ApiError("game_not_finished", "the game has not ended; its head is signed when it does", 409)
        return Response(signed)
