"""gunicorn keeps an idle keep-alive connection open longer than its clients hold one in their pools
(deploy/gunicorn.conf.py), so a request sent on a reused connection is never reset by a close racing
it. With gunicorn's default of 2 s this test fails: the server has closed the socket by the second
request."""

from __future__ import annotations

import http.client
import time
from urllib.parse import urlsplit

import pytest

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


def test_an_idle_keep_alive_connection_outlives_a_clients_pool_timeout(stack):
    address = urlsplit(stack.base_url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
    try:
        connection.request("GET", "/healthz")
        first = connection.getresponse()
        assert (first.status, first.read()) == (200, b'{"status": "ok"}')
        sock = connection.sock
        time.sleep(6)  # longer than gunicorn's default keep-alive (2 s) and httpx's pool expiry (5 s)
        connection.request("GET", "/healthz")  # on the same socket: http.client reopens only one it closed
        assert connection.sock is sock
        again = connection.getresponse()
        assert (again.status, again.read()) == (200, b'{"status": "ok"}')
    finally:
        connection.close()
