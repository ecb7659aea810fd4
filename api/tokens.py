"""Personal tokens through the API (issue 19 item 3): list, make (the key is in this one answer)
and revoke the account's scoped tokens. Only the account's full token or a web session may: a
personal token cannot make a wider one (``required_scope = account``, api/scopes.py)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status
from rest_framework.response import Response
from rest_framework.views import APIView

from games import accounts
from kifu.http.errors import ApiError, error_responses

from . import scopes
from . import serializers as s

ERRORS = error_responses(400, 401, 403)


class PersonalTokenListView(APIView):
    permission_classes = [permissions.IsAuthenticated]
    required_scope = scopes.ACCOUNT

    @extend_schema(responses={200: s.PersonalTokenSerializer(many=True), **ERRORS}, tags=["accounts"])
    def get(self, request):
        """Your personal tokens: name, scopes, the key's first characters, made and last used."""
        tokens = accounts.personal_token_list(user=request.user)
        return Response(s.PersonalTokenSerializer(tokens, many=True).data)

    @extend_schema(
        request=s.PersonalTokenSerializer,
        responses={201: s.PersonalTokenCreatedSerializer, **error_responses(400, 401, 403, 409)},
        tags=["accounts"],
    )
    def post(self, request):
        """Make a personal token with scopes (``read``, ``play``, ``organise``); its ``key`` is in
        this answer only: it is stored as a hash and cannot be shown again."""
        data = s.PersonalTokenSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            token, key = accounts.personal_token_create(user=request.user, **data.validated_data)
        except accounts.TooManyTokens as refused:
            raise ApiError(refused.code, str(refused), status.HTTP_409_CONFLICT) from None
        body = {**s.PersonalTokenSerializer(token).data, "key": key}
        return Response(body, status=status.HTTP_201_CREATED)


class PersonalTokenDetailView(APIView):
    permission_classes = [permissions.IsAuthenticated]
    required_scope = scopes.ACCOUNT

    @extend_schema(responses={204: None, **error_responses(401, 403, 404)}, tags=["accounts"])
    def delete(self, request, token_id: int):
        """Revoke one of your personal tokens: refused from the next request on."""
        if not accounts.personal_token_revoke(user=request.user, token_id=token_id):
            raise ApiError("not_found", f"you have no personal token {token_id}", status.HTTP_404_NOT_FOUND)
        return Response(status=status.HTTP_204_NO_CONTENT)
