"""Seasonal leagues of a mature game, as mature tournaments: the organiser opts in and consented,
only players who consented join the roster (and play a season), the league says it is mature and is
missing from lists (and answers 404, API and pages) for everyone else; each player accepts their
own seat before a fixture's game starts."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from games import services as game_services
from games.models import Game
from games.services import ServiceError
from league.seasons import services
from league.seasons.models import Fixture
from tests.league.test_tournament_mature import MATURE, consent

pytestmark = pytest.mark.django_db


def mature_league(club, organiser, clock, **settings):
    return services.league_create(
        club_id=club.pk, by=organiser, name="Late Night League", engine=MATURE, now=clock.now, **settings
    )


def test_an_organiser_opts_in_and_consents(club_with, clock):
    club, organiser, _ = club_with(0)
    for settings, code in (
        ({}, "mature_opt_in_required"),
        ({"mature": False}, "mature_opt_in_required"),
        ({"mature": True}, "mature_consent_required"),
        ({"mature": "yes"}, "invalid_settings"),
    ):
        with pytest.raises(ServiceError) as refused:
            mature_league(club, organiser, clock, **settings)
        assert refused.value.code == code, settings
    consent(organiser)
    with pytest.raises(ServiceError) as not_mature:
        services.league_create(club_id=club.pk, by=organiser, name="x", engine="nine-card", mature=True)
    assert not_mature.value.code == "invalid_settings"
    league = mature_league(club, organiser, clock, mature=True)
    assert league.mature is True and league.rules()["mature"] is True


def test_only_players_who_consented_play_and_see_it(club_with, clock):
    club, organiser, (ann, bob, cy) = club_with(3)
    consent(organiser, ann, bob)
    league = mature_league(club, organiser, clock, mature=True)
    with pytest.raises(ServiceError) as refused:
        services.league_player_add(league_id=league.pk, by=organiser, user=cy, now=clock.now)
    assert (refused.value.code, refused.value.status) == ("mature_consent_required", 403)
    for player in (ann, bob):
        services.league_player_add(league_id=league.pk, by=organiser, user=player, now=clock.now)
    season = services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    fixture = Fixture.objects.get(season=season)
    game = Game.objects.get(pk=fixture.game_id)
    assert game.status == Game.Status.OPEN  # each player accepts their own seat first
    game_services.game_accept(game_id=game.pk, user=ann)
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN
    game_services.game_accept(game_id=game.pk, user=bob)
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING

    clients = {}
    for name, user in (("ann", ann), ("cy", cy), ("anonymous", None)):
        clients[name] = APIClient()
        if user is not None:
            clients[name].force_authenticate(user)
    assert clients["ann"].get(f"/api/leagues/{league.pk}").json()["mature"] is True
    assert [x["id"] for x in clients["ann"].get(f"/api/clubs/{club.slug}/leagues").json()] == [league.pk]
    for name in ("cy", "anonymous"):
        assert clients[name].get(f"/api/clubs/{club.slug}/leagues").json() == []
        for path in (f"leagues/{league.pk}", f"leagues/{league.pk}/seasons", f"seasons/{season.pk}",
                     f"seasons/{season.pk}/standings", f"seasons/{season.pk}/standings.csv",
                     f"seasons/{season.pk}/fixtures", f"seasons/{season.pk}/calendar.ics",
                     f"fixtures/{fixture.pk}"):  # fmt: skip
            assert clients[name].get(f"/api/{path}").status_code == 404, (name, path)
    pages = {"ann": Client(), "cy": Client(), "anonymous": Client()}
    pages["ann"].force_login(ann)
    pages["cy"].force_login(cy)
    page = pages["ann"].get(f"/leagues/{league.pk}/").content.decode()
    assert 'id="mature"' in page
    assert 'id="mature"' in pages["ann"].get(f"/seasons/{season.pk}/").content.decode()
    assert "Late Night League" in pages["ann"].get(f"/clubs/{club.slug}/").content.decode()
    for name in ("cy", "anonymous"):
        assert pages[name].get(f"/leagues/{league.pk}/").status_code == 404
        assert pages[name].get(f"/seasons/{season.pk}/").status_code == 404
        assert "Late Night League" not in pages[name].get(f"/clubs/{club.slug}/").content.decode()
        assert "Late Night League" not in pages[name].get(f"/players/{ann.username}/").content.decode()
    assert "Late Night League" in pages["ann"].get(f"/players/{ann.username}/").content.decode()


def test_a_player_who_withdrew_consent_stops_the_next_season_until_taken_off(club_with, clock):
    club, organiser, (ann, bob, cy) = club_with(3)
    consent(organiser, ann, bob, cy)
    league = mature_league(club, organiser, clock, mature=True)
    for player in (ann, bob, cy):
        services.league_player_add(league_id=league.pk, by=organiser, user=player, now=clock.now)
    game_services.mature_consent_withdraw(user=cy)
    with pytest.raises(ServiceError) as refused:
        services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    assert refused.value.code == "mature_consent_required" and cy.username in refused.value.message
    services.league_player_remove(league_id=league.pk, by=organiser, user=cy)
    assert services.season_start(league_id=league.pk, by=organiser, now=clock.now).fixtures.count() == 1
