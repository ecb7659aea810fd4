"""Web page routes: games, replay, play, and the account pages."""

from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("games/new", views.game_new, name="game-new"),
    path("games/<uuid:pk>", views.game_page, name="game"),
    path("games/<uuid:pk>/join", views.game_join, name="join"),
    path("games/<uuid:pk>/replay", views.replay_page, name="replay"),
    path("games/<uuid:pk>/replay.json", views.replay_json, name="replay-json"),
    path("games/<uuid:pk>/play", views.play_page, name="play"),
    path("games/<uuid:pk>/log.json", views.play_log, name="play-log"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="/"), name="logout"),
    path("accounts/signup/", views.signup, name="signup"),
]
