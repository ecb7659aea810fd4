"""Web page routes."""

from django.urls import path

from . import views

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("games/<uuid:pk>", views.game_page, name="game"),
]
