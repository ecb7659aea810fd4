"""Live-play API routes (streams), mounted under /api/."""

from django.urls import path

from . import streams

urlpatterns = [
    path("games/<uuid:pk>/stream", streams.GameStreamView.as_view(), name="game-stream"),
    path("me/stream", streams.AccountStreamView.as_view(), name="account-stream"),
]
