"""Bad environment settings stop the process at start, naming each variable - no deep traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kifu.env import Env

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "name, value, must",
    [
        ("KIFU_THROTTLE_USER", "abc", "must be a rate like 600/minute"),
        ("KIFU_THROTTLE_ANON", "10/fortnight", "must be a rate"),
        ("KIFU_STREAM_MAX_SECONDS", "-1", "must be a number from 1 to 86400"),
        ("KIFU_STREAM_MAX_SECONDS", "abc", "must be a number"),
        ("KIFU_STREAM_KEEPALIVE_SECONDS", "inf", "must be a number"),
        ("KIFU_SUBMISSION_REQUEUE_SECONDS", "nan", "must be a number"),
        ("KIFU_WEBHOOK_MAX_ATTEMPTS", "1.5", "must be a whole number from 1 to 100"),
        ("KIFU_WEBHOOK_MAX_ATTEMPTS", "0", "must be a whole number from 1 to 100"),
        ("KIFU_DEBUG", "maybe", "must be true or false"),
        ("DATABASE_URL", "nonsense", "must be a database URL"),
        ("DATABASE_URL", "mysql://db/kifu", "must be a postgres:// URL"),
        ("DATABASE_URL", "postgres://", "must name the database"),
        ("REDIS_URL", "nonsense", "must be a redis://"),
        ("KIFU_LOG_LEVEL", "LOUD", "must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL"),
        ("PROMETHEUS_MULTIPROC_DIR", "/no/such/dir", "must be an existing directory"),
    ],
)
def test_each_bad_value_is_named_with_what_it_must_be(name, value, must):
    # Read the way kifu/settings.py reads them; the settings module is exercised end to end below.
    env = Env({name: value})
    env.rate("KIFU_THROTTLE_USER", "6000/minute")
    env.rate("KIFU_THROTTLE_ANON", "600/minute")
    env.number("KIFU_STREAM_MAX_SECONDS", 3600.0, minimum=1, maximum=86400)
    env.number("KIFU_STREAM_KEEPALIVE_SECONDS", 15.0, minimum=0.1, maximum=3600)
    env.number("KIFU_SUBMISSION_REQUEUE_SECONDS", 10.0, minimum=0.1, maximum=86400)
    env.integer("KIFU_WEBHOOK_MAX_ATTEMPTS", 10, minimum=1, maximum=100)
    env.boolean("KIFU_DEBUG", False)
    if name == "DATABASE_URL":
        assert env.database(name) is None
    env.redis_url("REDIS_URL")
    env.choice("KIFU_LOG_LEVEL", "", ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL", ""))
    env.directory("PROMETHEUS_MULTIPROC_DIR")
    assert len(env.problems) == 1 and env.problems[0].startswith(f"{name}={value!r}: {must}"), env.problems
    with pytest.raises(SystemExit, match=f"Kifu cannot start.*\n  {name}="):
        env.check()


def test_good_values_pass_and_defaults_stand():
    env = Env(
        {
            "KIFU_THROTTLE_USER": " 100 / hour ",
            "KIFU_DEBUG": "Yes",
            "KIFU_STREAM_MAX_SECONDS": "60",
            "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/kifu",
            "REDIS_URL": "redis://127.0.0.1:6379/0",
        }
    )
    assert env.rate("KIFU_THROTTLE_USER", "1/s") == "100/hour"
    assert env.boolean("KIFU_DEBUG", False) is True
    assert env.number("KIFU_STREAM_MAX_SECONDS", 3600.0, minimum=1) == 60.0
    assert env.integer("KIFU_WEBHOOK_MAX_ATTEMPTS", 10, minimum=1) == 10  # unset: the default
    assert env.database("DATABASE_URL", conn_max_age=60)["NAME"] == "kifu"
    assert env.redis_url("REDIS_URL") == "redis://127.0.0.1:6379/0"
    assert env.problems == []
    env.check()


def run_check(**variables) -> subprocess.CompletedProcess:
    environ = {key: value for key, value in os.environ.items() if not key.startswith(("KIFU_", "DATABASE_", "REDIS_"))}
    environ.update(variables, KIFU_VAR_DIR=os.environ.get("TMPDIR", "/tmp") + "/kifu-env-check")
    return subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120
    )


def test_manage_py_stops_with_every_bad_variable_and_no_traceback():
    result = run_check(KIFU_THROTTLE_USER="abc", DATABASE_URL="nonsense", KIFU_STREAM_MAX_SECONDS="-1")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("Kifu cannot start: fix these environment variables:")
    for name in ("KIFU_THROTTLE_USER='abc'", "DATABASE_URL='nonsense'", "KIFU_STREAM_MAX_SECONDS='-1'"):
        assert name in result.stderr


def test_manage_py_starts_with_good_values():
    result = run_check(KIFU_THROTTLE_USER="100/hour", KIFU_LOG_LEVEL="debug", KIFU_DEBUG="off")
    assert result.returncode == 0, result.stderr
