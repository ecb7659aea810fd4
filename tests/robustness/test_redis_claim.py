"""A test run wipes only a Redis database it made its own (issue 19 item 8: ``bin/test`` on a machine
whose Redis is shared). Runs against a redis-server of the test's own, never the shared one."""

from __future__ import annotations

import shutil

import pytest
import redis

from tests import redis_claim

from .own_services import OwnRedis, require


@pytest.fixture
def own_redis(tmp_path):
    require("a redis-server binary", shutil.which("redis-server") is not None)
    server = OwnRedis(tmp_path)
    server.start()
    yield server
    server.stop()


def test_someone_elses_database_is_never_wiped(own_redis):
    url = own_redis.url.rsplit("/", 1)[0] + "/3"
    theirs = redis.Redis.from_url(url)
    theirs.set("their:session", "keep me")

    assert redis_claim.claim(url) is False  # not empty: not claimed, and no marker written
    assert not theirs.exists(redis_claim.CLAIM_KEY)
    refusal = r"database 3 .* 1 keys .*KIFU_TEST_REDIS_URL.*redis-cli -n 3 flushdb"
    with pytest.raises(redis_claim.NotOurs, match=refusal):
        redis_claim.wipe(url)
    assert theirs.get("their:session") == b"keep me"


def test_an_empty_database_is_claimed_and_wiped_again_by_later_runs(own_redis):
    url = own_redis.url
    client = redis.Redis.from_url(url)
    assert redis_claim.claim(url) is True
    client.set("kifu:verdict:x", "stale")  # what this run (or an earlier one) left behind
    redis_claim.wipe(url)
    assert client.keys("*") == [redis_claim.CLAIM_KEY.encode()]  # wiped, and still ours
    client.set("_kombu.binding.kifu", "a queue of the last run")
    assert redis_claim.claim(url) is True  # the next run: not empty, but marked as a test run's
    redis_claim.wipe(url)
    assert not client.exists("_kombu.binding.kifu")


def test_a_run_that_claimed_its_database_still_wipes_it_after_a_test_flushed_the_marker(own_redis, monkeypatch):
    """A test's own ``cache.clear()`` is a FLUSHDB that takes the marker too (CI: the throttling
    tests ran before the stack fixture, which then refused the run's own database)."""
    monkeypatch.setattr(redis_claim, "_CLAIMED", set())
    url = own_redis.url
    client = redis.Redis.from_url(url)
    assert redis_claim.claim(url) is True
    client.flushdb()  # cache.clear()
    client.set(":1:kifu:hooks:listeners:x", "[]")
    redis_claim.wipe(url)
    assert client.keys("*") == [redis_claim.CLAIM_KEY.encode()]


def test_keys_that_arrive_without_the_marker_stop_the_wipe(own_redis, monkeypatch):
    """The claim and the wipe are separate looks: keys that arrive in between without the marker
    (another user started on the database) stop the wipe of a database this process did not claim."""
    monkeypatch.setattr(redis_claim, "_CLAIMED", set())
    url = own_redis.url
    client = redis.Redis.from_url(url)
    client.set("other:user", "1")
    with pytest.raises(redis_claim.NotOurs):
        redis_claim.wipe(url)
    assert client.get("other:user") == b"1"
