"""Webhook API: register, list and delete an account's webhook URLs, and read their deliveries."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from kifu.http.errors import ApiError, error_responses

from . import selectors, services
from .models import Delivery, DeliveryAttempt, Webhook

ERRORS = error_responses(400, 401, 404)


# What the schema promises is stored as given: an http(s) URL with an ASCII host name, a port from 1
# to 65535, and a path of characters that stay as they are. services.webhook_url_normalise takes more
# (IDNA hosts, characters to percent-encode, a fragment to drop) and stores it in this shape, which the
# fuzz suite checks (tests/robustness/test_fuzz_schema.py); it says what to fix for the rest.
PORT = r"(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})"
WEBHOOK_URL = {
    "type": "string",
    "maxLength": 500,
    "pattern": rf"^[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:{PORT})?"
    r"(/[A-Za-z0-9._~%/!$&'()*+,;=:@?-]*)?$",
}


@extend_schema_field(WEBHOOK_URL)
class WebhookUrlField(serializers.CharField):
    """Checked by the service (``bad_webhook_url``); the schema declares the URLs it takes as sent."""


@extend_schema_field({"type": "string", "enum": list(services.EVENTS)})
class WebhookEventField(serializers.CharField):
    """One of services.EVENTS; an unknown one stays the service's refusal, which lists them."""


@extend_schema_field({"type": "array", "items": {"type": "string", "enum": list(services.EVENTS)}, "minItems": 1})
class WebhookEventsField(serializers.ListField):
    """At least one event: an empty list stays the service's refusal (``bad_webhook_events``)."""


class WebhookCreateSerializer(serializers.Serializer):
    url = WebhookUrlField(max_length=1000, help_text="An http:// or https:// URL that accepts POSTs.")
    events = WebhookEventsField(
        child=WebhookEventField(), required=False, help_text=f"Any of {', '.join(services.EVENTS)}; default all."
    )


class WebhookSerializer(serializers.ModelSerializer):
    events = serializers.ListField(child=serializers.ChoiceField(choices=services.EVENTS), read_only=True)

    class Meta:
        model = Webhook
        fields = ["id", "url", "events", "created_at"]


class WebhookWithSecretSerializer(WebhookSerializer):
    class Meta(WebhookSerializer.Meta):
        fields = [*WebhookSerializer.Meta.fields, "secret"]


class AttemptSerializer(serializers.ModelSerializer):
    class Meta:
        model = DeliveryAttempt
        fields = ["number", "at", "status_code", "error", "duration_ms"]


@extend_schema_field(
    {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "event": {"type": "string", "enum": list(services.EVENTS)},
            "created_at": {"type": "string", "format": "date-time"},
            "data": {"type": "object", "additionalProperties": True, "description": "What the event is about."},
        },
        "description": "The JSON body that was POSTed (hooks.services).",
    }
)
class DeliveryBodyField(serializers.JSONField):
    """The body a delivery POSTs."""


class DeliverySerializer(serializers.ModelSerializer):
    attempt_log = AttemptSerializer(many=True, read_only=True)
    body = DeliveryBodyField(source="payload", read_only=True)

    class Meta:
        model = Delivery
        fields = ["id", "event", "status", "attempts", "next_attempt_at", "created_at", "body", "attempt_log"]


class WebhookListView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: WebhookSerializer(many=True)}, tags=["webhooks"])
    def get(self, request):
        """Your webhooks (their secrets are shown only when created)."""
        return Response(WebhookSerializer(selectors.webhooks_of(user=request.user), many=True).data)

    @extend_schema(
        request=WebhookCreateSerializer, responses={201: WebhookWithSecretSerializer, **ERRORS}, tags=["webhooks"]
    )
    def post(self, request):
        """Register a URL for your games' events; the answer holds the signing secret, shown this once."""
        data = WebhookCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hook = services.webhook_create(user=request.user, **data.validated_data)
        return Response(WebhookWithSecretSerializer(hook).data, status=status.HTTP_201_CREATED)


class WebhookDetailView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: WebhookSerializer, **ERRORS}, tags=["webhooks"])
    def get(self, request, pk):
        """One of your webhooks."""
        return Response(WebhookSerializer(_own(request.user, pk)).data)

    @extend_schema(responses={204: None, **ERRORS}, tags=["webhooks"])
    def delete(self, request, pk):
        """Stop sending to this URL; its delivery log goes with it."""
        services.webhook_delete(user=request.user, webhook_id=pk)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DeliveryListView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: DeliverySerializer(many=True), **ERRORS}, tags=["webhooks"])
    def get(self, request, pk):
        """The webhook's latest deliveries, newest first, each with every attempt (status code, error, time)."""
        hook = _own(request.user, pk)
        return Response(DeliverySerializer(selectors.deliveries_of(webhook=hook), many=True).data)


def _own(user, pk) -> Webhook:
    hook = selectors.webhook_get(user=user, webhook_id=pk)
    if hook is None:
        raise ApiError("not_found", "no such webhook", status.HTTP_404_NOT_FOUND)
    return hook
