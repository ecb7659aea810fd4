"""Webhook routes, mounted under /api/ by kifu/urls.py."""

from django.urls import path

from . import api

app_name = "hooks"

urlpatterns = [
    path("webhooks", api.WebhookListView.as_view(), name="webhook-list"),
    path("webhooks/<uuid:pk>", api.WebhookDetailView.as_view(), name="webhook-detail"),
    path("webhooks/<uuid:pk>/deliveries", api.DeliveryListView.as_view(), name="webhook-deliveries"),
]
