"""Fan-out only where someone listens (issue 14): a game whose players have no webhook costs no query.

``hooks.selectors.listening_seats`` caches each game's answer under a listeners version that
every webhook write renews; these tests hold the cost and the invalidation (a new, changed or
deleted webhook is seen at once, also when it commits while an answer is being read).
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services as game_services
from hooks import selectors, services
from hooks.models import Delivery, Webhook

pytestmark = pytest.mark.django_db


def make_user(name: str):
    return get_user_model().objects.create_user(username=name, password="a-long-pass-1")


def nine_card(*seats, created_by=None):
    return game_services.game_create(
        consent=True,
        engine_slug="nine-card",
        config={"commit_seconds": 120},
        seats=list(seats),
        created_by=created_by or seats[0],
    )


def queries_of_deliver(game) -> tuple[int, int]:
    """(deliveries made, queries run) of one change signal of ``game``."""
    with CaptureQueriesContext(connection) as queries:
        made = services.game_changes_deliver(game_id=game.pk)
    return made, len(queries)


def test_a_game_nobody_listens_to_costs_no_query():
    assert selectors.listeners_cached(), "these tests run on the real stack's Redis cache"
    oya, ko = make_user("oya"), make_user("ko")
    services.webhook_create(user=make_user("elsewhere"), url="http://127.0.0.1:9/")  # someone else listens
    game = nine_card(oya, ko)
    assert queries_of_deliver(game) == (0, 1), "the first signal reads the seats once"
    assert queries_of_deliver(game) == (0, 0)
    assert queries_of_deliver(game) == (0, 0)


def test_a_webhook_created_is_seen_at_once(django_capture_on_commit_callbacks):
    oya, ko = make_user("oya"), make_user("ko")
    game = nine_card(oya, ko)
    assert queries_of_deliver(game) == (0, 1)
    assert queries_of_deliver(game) == (0, 0)
    with django_capture_on_commit_callbacks(execute=True):
        hook = services.webhook_create(user=ko, url="http://127.0.0.1:9/")
    made, _ = queries_of_deliver(game)
    assert made == 2 and sorted(d.event for d in Delivery.objects.filter(webhook=hook)) == [
        "window_opened",
        "your_turn",
    ]


def test_a_webhook_created_in_the_same_transaction_is_seen_before_the_commit():
    """The version is renewed at once too, so the writer's own transaction sees its webhook."""
    oya, ko = make_user("oya"), make_user("ko")
    game = nine_card(oya, ko)
    assert queries_of_deliver(game) == (0, 1)
    services.webhook_create(user=oya, url="http://127.0.0.1:9/", events=["your_turn"])  # never commits here
    assert queries_of_deliver(game)[0] == 1


def test_a_webhook_deleted_or_changed_is_seen_at_once(django_capture_on_commit_callbacks):
    oya, ko = make_user("oya"), make_user("ko")
    hook = services.webhook_create(user=ko, url="http://127.0.0.1:9/", events=["game_ended"])
    game = nine_card(oya, ko)
    assert selectors.listening_seats(game_id=game.pk) == [(ko.pk, 1)]
    with CaptureQueriesContext(connection) as queries:
        assert selectors.listening_seats(game_id=game.pk) == [(ko.pk, 1)]
    assert len(queries) == 0, "a listened game's answer is cached too"
    with django_capture_on_commit_callbacks(execute=True):
        Webhook.objects.filter(pk=hook.pk).first().save()  # e.g. an admin edit
    with CaptureQueriesContext(connection) as queries:
        assert selectors.listening_seats(game_id=game.pk) == [(ko.pk, 1)]
    assert len(queries) == 1, "a saved webhook makes the cached answers stale"
    with django_capture_on_commit_callbacks(execute=True):
        services.webhook_delete(user=ko, webhook_id=hook.pk)
    assert queries_of_deliver(game) == (0, 1)
    assert queries_of_deliver(game) == (0, 0)


def test_an_account_deleted_with_its_webhooks_is_seen_at_once(django_capture_on_commit_callbacks):
    oya, ko = make_user("oya"), make_user("ko")
    services.webhook_create(user=ko, url="http://127.0.0.1:9/")
    game = nine_card(oya, ko)
    assert selectors.listening_seats(game_id=game.pk) == [(ko.pk, 1)]
    with django_capture_on_commit_callbacks(execute=True):
        ko.delete()  # the webhooks go with it (a cascade, not through the services)
    assert selectors.listening_seats(game_id=game.pk) == []


def test_a_webhook_committed_while_an_answer_is_read_is_not_lost(monkeypatch):
    """The reader files its answer under the version it read *before* the database: a writer that
    commits (and renews the version) after that read makes the answer stale, not the webhook lost."""
    oya, ko = make_user("oya"), make_user("ko")
    game = nine_card(oya, ko)
    read = selectors._listening_seats_read

    def read_then_a_webhook_commits(game_ids):
        answer = read(game_ids)  # nobody listens, as of this read
        Webhook.objects.create(user=ko, url="http://127.0.0.1:9/", events=["your_turn"], secret="s")
        services._listeners_version_set()  # what the writer's commit does
        return answer

    monkeypatch.setattr(selectors, "_listening_seats_read", read_then_a_webhook_commits)
    assert selectors.listening_seats(game_id=game.pk) == []
    monkeypatch.setattr(selectors, "_listening_seats_read", read)
    assert selectors.listening_seats(game_id=game.pk) == [(ko.pk, 1)]


def test_a_game_with_an_open_seat_is_not_cached_until_it_fills():
    """Until every seat is taken a join may seat a listener, so the answer is read each time."""
    oya, ko = make_user("oya"), make_user("ko")
    services.webhook_create(user=ko, url="http://127.0.0.1:9/", events=["game_started"])
    game = nine_card(oya, None)
    assert queries_of_deliver(game) == (0, 1)
    assert queries_of_deliver(game) == (0, 1)
    game_services.game_join(game_id=game.pk, user=ko)
    assert services.game_changes_deliver(game_id=game.pk) == 1
    with CaptureQueriesContext(connection) as queries:
        assert selectors.listening_seats(game_id=game.pk) == [(ko.pk, 1)]
    assert len(queries) == 0, "every seat is taken now: the answer is cached"


def test_the_version_lost_from_the_cache_is_set_again(django_capture_on_commit_callbacks):
    oya, ko = make_user("oya"), make_user("ko")
    game = nine_card(oya, ko)
    assert queries_of_deliver(game) == (0, 1)
    cache.delete(selectors.LISTENERS_VERSION_KEY)  # evicted, or Redis flushed
    assert queries_of_deliver(game) == (0, 1)
    assert queries_of_deliver(game) == (0, 0)
    with django_capture_on_commit_callbacks(execute=True):
        services.webhook_create(user=ko, url="http://127.0.0.1:9/", events=["your_turn"])
    assert queries_of_deliver(game)[0] == 1


def test_without_the_cache_the_database_answers(monkeypatch):
    oya, ko = make_user("oya"), make_user("ko")
    services.webhook_create(user=ko, url="http://127.0.0.1:9/", events=["your_turn"])
    game = nine_card(oya, ko)

    def down(*args, **kwargs):
        raise ConnectionError("redis is down")

    monkeypatch.setattr(cache, "get_many", down)
    assert selectors.listening_seats(game_id=game.pk) == [(ko.pk, 1)]
    assert services.game_changes_deliver(game_id=game.pk) == 1


def test_many_games_are_checked_in_one_query():
    oya, ko, mi, kai = (make_user(name) for name in ("oya", "ko", "mi", "kai"))
    services.webhook_create(user=mi, url="http://127.0.0.1:9/")
    games = [nine_card(oya, ko), nine_card(ko, oya), nine_card(oya, mi), nine_card(kai, oya)]
    ids = [game.pk for game in games]
    with CaptureQueriesContext(connection) as queries:
        answers = selectors.listening_seats_many(ids)
    assert len(queries) == 1
    assert answers == {ids[0]: [], ids[1]: [], ids[2]: [(mi.pk, 1)], ids[3]: []}
    with CaptureQueriesContext(connection) as queries:
        assert selectors.listening_seats_many(reversed(ids)) == answers
    assert len(queries) == 0, "each game's answer is cached as the single reads' are"
    assert selectors.listening_seats(game_id=ids[2]) == [(mi.pk, 1)]


@pytest.mark.parametrize("listener", [False, True])
def test_starting_many_games_costs_the_same_after_commit_for_2_or_8(listener, django_capture_on_commit_callbacks):
    """A season's start (``games_create_many``) announces its games after commit with one check
    of who listens, not one per game; the games a webhook listens to are delivered."""
    players = [make_user(f"p{index}") for index in range(16)]
    if listener:
        services.webhook_create(user=players[0], url="http://127.0.0.1:9/", events=["game_started"])

    def start(count: int) -> int:
        seatings = [players[2 * index : 2 * index + 2] for index in range(count)]
        with CaptureQueriesContext(connection) as queries:
            with django_capture_on_commit_callbacks(execute=True):
                game_services.games_create_many(
                    engine_slug="nine-card", config={}, seatings=seatings, created_by=players[0]
                )
        return len(queries)

    assert start(2) == start(8)
    assert Delivery.objects.filter(event="game_started").count() == (2 if listener else 0)
