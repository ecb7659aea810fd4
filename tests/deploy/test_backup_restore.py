"""The backup procedure of deploy/README.md, done: pg_dump of a database holding a finished game,
pg_restore into an empty one, and the restored event log verifies (chain, replay, projection, seed)
and is still append-only (the triggers came back with it)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]
PLAY = """
import os, uuid, django
os.environ["DJANGO_SETTINGS_MODULE"] = "kifu.settings"
django.setup()
from django.contrib.auth import get_user_model
from games import services
users = get_user_model().objects
oya = users.create_user("bk-" + uuid.uuid4().hex[:8], password="a-long-pass-1")
ko = users.create_user("bk-" + uuid.uuid4().hex[:8], password="a-long-pass-1")
game = services.game_create(engine_slug="nine-card", config={}, seats=[oya, ko], created_by=oya)
services.game_accept(game_id=game.id, user=ko)
services.move_submit(game_id=game.id, user=oya, move={"type": "resign"}, idempotency_key="bk")
game.refresh_from_db()
assert game.status == "finished", game.status
print(game.id)
"""


def database_url(settings_dict, name: str) -> str:
    host, port = settings_dict["HOST"] or "127.0.0.1", settings_dict["PORT"] or 5432
    return f"postgres://{settings_dict['USER']}@{host}:{port}/{name}"


@pytest.mark.stack  # commits for real (through a process of its own), so it runs after the in-process tests
def test_a_dump_restores_to_a_log_that_verifies(db, django_db_blocker, tmp_path):
    from django.db import connection

    if connection.vendor != "postgresql" or not shutil.which("pg_dump"):
        pytest.skip("needs PostgreSQL and its client tools (pg_dump, pg_restore)")
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute("SELECT current_database()")  # the test database pytest-django made
        (source,) = cursor.fetchone()
    assert source.startswith("test_"), source
    source_url = database_url(connection.settings_dict, source)
    # Embedded Celery on the test database: the move is decided in the same process, and committed.
    env = {**os.environ, "DATABASE_URL": source_url, "REDIS_URL": "", "KIFU_EMBEDDED_SCHEDULER": "0"}
    played = subprocess.run([sys.executable, "-c", PLAY], env=env, cwd=ROOT, capture_output=True, text=True)
    assert played.returncode == 0, played.stderr
    game_id = played.stdout.split()[-1]

    dump = tmp_path / "kifu.dump"
    subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", source_url], check=True)
    target = f"kifu_restore_{uuid.uuid4().hex[:8]}"
    admin_url = database_url(connection.settings_dict, "postgres")
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{target}"')
    target_url = database_url(connection.settings_dict, target)
    try:
        subprocess.run(["pg_restore", "--no-owner", "--exit-on-error", f"--dbname={target_url}", str(dump)], check=True)
        verified = subprocess.run(
            [sys.executable, "manage.py", "kifu", "verify", game_id],
            env={**env, "DATABASE_URL": target_url},
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert verified.returncode == 0, verified.stdout + verified.stderr
        chain = "SELECT count(*), max(seq), string_agg(hash, ',' ORDER BY seq) FROM games_event WHERE game_id = %s"
        with psycopg.connect(source_url) as before, psycopg.connect(target_url) as after:
            original = before.execute(chain, [game_id]).fetchone()
            assert original[0] >= 2
            assert after.execute(chain, [game_id]).fetchone() == original
            with pytest.raises(psycopg.Error, match="Cannot update or delete"):
                after.execute("UPDATE games_event SET payload = '{}' WHERE game_id = %s", [game_id])
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{target}" WITH (FORCE)')
