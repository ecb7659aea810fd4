"""HTTPS hardening and the security headers (issue 23): CSP, Permissions-Policy, HSTS, secure cookies,
and ``manage.py check --deploy`` clean with the production settings of deploy/kifu.env.example."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client, override_settings

from kifu.env import Env
from kifu.security import policy_text

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def production_env(tmp_path, **changes) -> dict:
    """deploy/kifu.env.example as the systemd units read it, with a key of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIFU_", "DATABASE_URL", "REDIS_URL"))}
    for line in (ROOT / "deploy" / "kifu.env.example").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            env[name] = value
    env.update(
        KIFU_SECRET_KEY=secrets.token_urlsafe(50),
        KIFU_CHECKPOINT_KEY_FILE="",
        KIFU_CHECKPOINT_KEY=secrets.token_hex(32),
        KIFU_STATIC_ROOT=str(tmp_path / "static"),
        KIFU_VAR_DIR=str(tmp_path / "var"),
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"),  # systemd-tmpfiles makes /run/kifu-metrics
    )
    (tmp_path / "metrics").mkdir(exist_ok=True)
    env.update(changes)
    return {k: v for k, v in env.items() if v is not None}


def check_deploy(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_the_production_settings(tmp_path):
    result = check_deploy(production_env(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
    # Without the proxy's https header Django cannot redirect http to https: the check says so.
    result = check_deploy(production_env(tmp_path, KIFU_PROXY_SSL_HEADER=None))
    assert result.returncode != 0 and "security.W008" in result.stderr + result.stdout
    # The tests' cheap password hashing (bin/test) is never quietly on in production.
    result = check_deploy(production_env(tmp_path, KIFU_TEST_FAST_PASSWORD_HASHER="1"))
    assert result.returncode != 0 and "kifu.W001" in result.stderr + result.stdout


def test_the_proxy_header_setting_is_checked():
    assert Env({"X": "X-Forwarded-Proto"}).https_header("X") == ("HTTP_X_FORWARDED_PROTO", "https")
    assert Env({}).https_header("X") is None
    env = Env({"X": "X-Forwarded-Proto: https"})
    assert env.https_header("X") is None and "X=" in env.problems[0]


def test_every_page_has_the_policy_headers(client):
    for path in ("/", "/clubs/", "/accounts/login/", "/api/engines", "/no-such-page"):
        response = client.get(path)
        assert response["Content-Security-Policy"] == policy_text(settings.SECURE_CSP), path
        assert "camera=()" in response["Permissions-Policy"], path
        assert response["X-Content-Type-Options"] == "nosniff" and response["X-Frame-Options"] == "DENY", path
    policy = client.get("/")["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "'unsafe-inline'" not in policy and "frame-ancestors 'none'" in policy


def test_the_api_docs_allow_inline_styles_only():
    response = Client().get("/api/docs")
    policy = response["Content-Security-Policy"]
    assert "style-src 'self' 'unsafe-inline'" in policy and "script-src 'self';" in policy
    assert "<script>" not in response.content.decode(), "Swagger UI's setup script is a file (split view)"


def test_the_language_menu_has_no_inline_handler(client):
    page = client.get("/").content.decode()
    assert "onchange" not in page and "web/site.js" in page


@override_settings(
    SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
    SECURE_SSL_REDIRECT=True,
    SECURE_HSTS_SECONDS=31_536_000,
    SESSION_COOKIE_SECURE=True,
    CSRF_COOKIE_SECURE=True,
    LANGUAGE_COOKIE_SECURE=True,
)
def test_behind_the_tls_proxy_https_is_strict():
    client = Client()
    plain = client.get("/clubs/")
    assert plain.status_code == 301 and plain["Location"] == "https://testserver/clubs/"
    secure = client.get("/", headers={"X-Forwarded-Proto": "https"})
    assert secure.status_code == 200
    assert secure["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    get_user_model().objects.create_user(username="aki", password="a-long-pass-1")
    login = client.get("/accounts/login/", headers={"X-Forwarded-Proto": "https"})
    assert login.cookies["csrftoken"]["secure"] is True
    answer = client.post(
        "/accounts/login/",
        {"username": "aki", "password": "a-long-pass-1", "csrfmiddlewaretoken": login.cookies["csrftoken"].value},
        headers={"X-Forwarded-Proto": "https", "Referer": "https://testserver/accounts/login/"},
    )
    assert answer.status_code == 302, answer.content
    assert answer.cookies["sessionid"]["secure"] is True and answer.cookies["sessionid"]["httponly"] is True
    language = client.post("/i18n/setlang/", {"language": "ja", "next": "/"}, headers={"X-Forwarded-Proto": "https"})
    cookie = language.cookies["django_language"]
    assert cookie["secure"] is True and int(cookie["max-age"]) >= 300 * 24 * 3600, "kept after the browser closes"


def test_head_is_answered_like_get(client):
    """A monitor's or a link checker's HEAD / is a 200 like GET, not a 405 (issue 23, item 7)."""
    for path in ("/", "/clubs/", "/accounts/login/"):
        assert client.head(path).status_code == 200, path
    assert client.post("/clubs/").status_code == 405
