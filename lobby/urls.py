"""Lobby API routes, mounted under /api/."""

from django.urls import path

from . import api

app_name = "lobby"

urlpatterns = [
    path("lobby/seeks", api.SeekListView.as_view(), name="seeks"),
    path("lobby/seeks/<uuid:pk>", api.SeekDetailView.as_view(), name="seek"),
    path("lobby/seeks/<uuid:pk>/join", api.SeekJoinView.as_view(), name="seek-join"),
    path("lobby/seeks/<uuid:pk>/leave", api.SeekLeaveView.as_view(), name="seek-leave"),
    path("lobby/quick", api.QuickPairingView.as_view(), name="quick"),
    path("me/seek", api.OwnSeekView.as_view(), name="own-seek"),
    path("games/<uuid:pk>/rematch", api.RematchView.as_view(), name="rematch"),
    path("players/<str:username>/ratings", api.SiteRatingListView.as_view(), name="site-ratings"),
]
