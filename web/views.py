"""Server-rendered pages: the list of games and a game's public page (spectator view and log)."""

from django.http import Http404
from django.shortcuts import render

from games import selectors
from games.engines import all_engines


def home(request):
    games = selectors.game_list()[:50]
    return render(request, "web/home.html", {"games": games, "engines": all_engines()})


def game_page(request, pk):
    game = selectors.game_get(game_id=pk)
    if game is None:
        raise Http404("no such game")
    seat = selectors.seat_of(game=game, user=request.user)
    context = {
        "game": game,
        "seat": seat,
        "view": selectors.game_view(game=game, seat=seat),
        "events": selectors.events_for(game=game, seat=seat),
    }
    return render(request, "web/game.html", context)
