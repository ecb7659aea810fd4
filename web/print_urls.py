"""Routes of the printable rounds and of check-in by QR at the venue (web/print_views.py), included
in web/urls.py under the ``web`` namespace."""

from django.urls import path

from . import print_views

TOURNAMENT, SEASON = {"source": "tournament"}, {"source": "season"}

urlpatterns = [
    path(
        "tournaments/<int:pk>/rounds/<int:number>/print",
        print_views.round_print,
        TOURNAMENT,
        name="tournament-round-print",
    ),
    path(
        "tournaments/<int:pk>/rounds/<int:number>/print.pdf",
        print_views.round_pdf,
        TOURNAMENT,
        name="tournament-round-pdf",
    ),
    path("seasons/<int:pk>/rounds/<int:number>/print", print_views.round_print, SEASON, name="season-round-print"),
    path("seasons/<int:pk>/rounds/<int:number>/print.pdf", print_views.round_pdf, SEASON, name="season-round-pdf"),
    path(
        "tournaments/<int:pk>/check-in/poster",
        print_views.tournament_check_in_poster,
        name="tournament-check-in-poster",
    ),
    path("tournaments/<int:pk>/check-in/here", print_views.tournament_check_in_here, name="tournament-check-in-here"),
]
