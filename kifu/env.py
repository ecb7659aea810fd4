"""Settings from environment variables: every bad value is named, all of them at once, at start.

``kifu/settings.py`` reads each variable through an ``Env``; a value that does not parse, or is
out of range, is recorded (the default stands in so the module finishes) and ``Env.check()`` at the
end of the settings stops the process with one line per variable - what it says and what it must
be - instead of a traceback from deep inside Django, Celery or DRF at the first request.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import os
import re
import secrets
import time
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, load_pem_private_key

# DRF reads "N/period" and looks only at the period's first letter (s, m, h, d).
RATE = re.compile(r"^\s*\d+\s*/\s*(s|sec|second|m|min|minute|h|hour|d|day)s?\s*$", re.IGNORECASE)
DATABASE_ENGINES = {
    "django.db.backends.postgresql": "PostgreSQL",
    "django.contrib.gis.db.backends.postgis": "PostGIS",
    "django.db.backends.sqlite3": "SQLite",
}
REDIS_SCHEMES = ("redis", "rediss", "unix")
HEADER_NAME = re.compile(r"^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# Keys anyone can read in this repository: the old built-in default and deploy/kifu.env.example's.
PUBLIC_SECRET_KEYS = (
    "kifu-embedded-insecure-key-set-KIFU_SECRET_KEY-in-production",
    "change-me-to-a-long-random-string",
)


class Env:
    """Typed reads of environment variables that remember what was wrong instead of raising."""

    def __init__(self, environ=None) -> None:
        self.environ = os.environ if environ is None else environ
        self.problems: list[str] = []

    def _bad(self, name: str, value: str, must: str) -> None:
        self.problems.append(f"{name}={value!r}: {must}")

    def directory(self, name: str) -> str:
        """An existing directory's path, or "" when unset (a missing one is named, not a traceback later)."""
        value = self.environ.get(name, "")
        if value and not os.path.isdir(value):
            self._bad(name, value, "must be an existing directory (created before the processes start)")
        return value

    def text(self, name: str, default: str) -> str:
        return self.environ.get(name, default)

    def boolean(self, name: str, default: bool) -> bool:
        value = self.environ.get(name)
        if value is None:
            return default
        if value.strip().lower() in ("1", "true", "yes", "on"):
            return True
        if value.strip().lower() in ("0", "false", "no", "off", ""):
            return False
        self._bad(name, value, "must be true or false (1/0, yes/no, on/off)")
        return default

    def names(self, name: str, default: str) -> list[str]:
        return [item.strip() for item in self.environ.get(name, default).split(",") if item.strip()]

    def networks(self, name: str, default: str) -> list:
        """Comma-separated IP networks (``10.0.0.0/8``) or addresses (``192.0.2.7``, one host)."""
        found = []
        for item in self.names(name, default):
            try:
                found.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                self._bad(name, item, "must be IP networks or addresses, comma-separated, e.g. 10.0.0.0/8,::1")
        return found

    def number(self, name: str, default: float, *, minimum: float | None = None, maximum: float | None = None):
        """A finite float in [minimum, maximum]."""
        value = self.environ.get(name)
        if value is None:
            return default
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        return self._ranged(name, value, number, default, minimum, maximum, "a number")

    def integer(self, name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
        value = self.environ.get(name)
        if value is None:
            return default
        try:
            number = int(value.strip())
        except ValueError:
            self._bad(name, value, "must be a whole number" + _range_text(minimum, maximum))
            return default
        return self._ranged(name, value, number, default, minimum, maximum, "a whole number")

    def _ranged(self, name, value, number, default, minimum, maximum, kind):
        if (
            not math.isfinite(number)
            or (minimum is not None and number < minimum)
            or (maximum is not None and number > maximum)
        ):
            self._bad(name, value, f"must be {kind}" + _range_text(minimum, maximum))
            return default
        return number

    def rate(self, name: str, default: str) -> str:
        """A DRF throttle rate: ``N/second|minute|hour|day``."""
        value = self.environ.get(name, default)
        if not RATE.match(value):
            self._bad(name, value, "must be a rate like 600/minute (N/second, N/minute, N/hour or N/day)")
            return default
        return value.strip().replace(" ", "")

    def choice(self, name: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.environ.get(name, default)
        if value.upper() not in choices:
            self._bad(name, value, f"must be one of {', '.join(choice for choice in choices if choice)}")
            return default
        return value.upper()

    def https_header(self, name: str) -> tuple[str, str] | None:
        """``SECURE_PROXY_SSL_HEADER`` from a header name (``X-Forwarded-Proto``) that a proxy of ours
        sets to ``https`` on an https request; None when unset (the request's own scheme counts)."""
        value = self.environ.get(name, "").strip()
        if not value:
            return None
        if not HEADER_NAME.match(value):
            self._bad(name, value, "must be an HTTP header name such as X-Forwarded-Proto, or empty")
            return None
        return "HTTP_" + value.upper().replace("-", "_"), "https"

    def database(self, name: str, **options) -> dict | None:
        """``DATABASE_URL`` parsed by dj-database-url; only PostgreSQL (or SQLite) is supported."""
        value = self.environ.get(name, "")
        try:
            config = dj_database_url.parse(value, **options)
        except Exception:  # dj-database-url raises several kinds (ValueError, UnknownSchemeError) for a bad URL
            self._bad(name, value, "must be a database URL such as postgres://user@host:5432/kifu")
            return None
        if config.get("ENGINE") not in DATABASE_ENGINES:
            self._bad(name, value, "must be a postgres:// URL (or sqlite:// for a local file)")
            return None
        if config["ENGINE"] != "django.db.backends.sqlite3" and not config.get("NAME"):
            self._bad(name, value, "must name the database, as in postgres://user@host:5432/kifu")
            return None
        return config

    def redis_url(self, name: str) -> str:
        value = self.environ.get(name, "")
        if value and urlsplit(value).scheme not in REDIS_SCHEMES:
            self._bad(name, value, "must be a redis:// (or rediss://, unix://) URL, e.g. redis://127.0.0.1:6379/0")
            return ""
        return value

    def secret_key(self, name: str, *, required: bool, keep_in: Path) -> str:
        """Django's SECRET_KEY: from ``name``; where it is ``required`` (the real stack), an unset,
        empty or published key is a problem; otherwise a per-install key is generated once into
        ``keep_in`` (mode 0600) and read from there on."""
        value = self.environ.get(name, "")
        if value.strip() and value not in PUBLIC_SECRET_KEYS:
            return value
        if required:
            shown = (
                "is not set"
                if name not in self.environ
                else f"={value!r} is {'empty' if not value.strip() else 'public'}"
            )
            self.problems.append(
                f"{name} {shown}: with DATABASE_URL set and KIFU_DEBUG off it must be a long random secret, "
                "e.g. the output of: python -c 'import secrets; print(secrets.token_urlsafe(50))'"
            )
            return PUBLIC_SECRET_KEYS[0]
        return _kept_secret(keep_in)

    def checkpoint_key(self, name: str, file_name: str, *, secret_key: str) -> str:
        """The Ed25519 key that signs the checkpoint log (games/checkpoints.py), as the 64 hex
        digits of its 32-byte seed. From ``name`` (the value) or ``file_name`` (a path to it): hex
        digits (``python -c 'import secrets; print(secrets.token_hex(32))'``) or a PEM private key
        (``openssl genpkey -algorithm ed25519``). Neither set: derived from ``secret_key``, so every
        process that shares KIFU_SECRET_KEY (or embedded Kifu's var/secret_key) signs with the same
        key; never from the database, which is what the signatures are there to check."""
        value, source = self.environ.get(name, ""), name
        path = self.environ.get(file_name, "")
        if value.strip() and path.strip():
            self.problems.append(f"{name} and {file_name} are both set: set one of them")
            return ""
        if path.strip():
            source = file_name
            try:
                value = Path(path).read_text()
            except (OSError, UnicodeDecodeError) as error:
                self.problems.append(
                    f"{file_name}={path!r}: cannot read it ({getattr(error, 'strerror', None) or error})"
                )
                return ""
        if not value.strip():
            return derived_checkpoint_key(secret_key)
        seed = _ed25519_seed(value.strip())
        if seed is None:
            shown = "the key in that file" if source == file_name else "it"
            self.problems.append(
                f"{source}: {shown} must be an Ed25519 private key: 64 hex digits (python -c 'import secrets; "
                "print(secrets.token_hex(32))') or a PEM key (openssl genpkey -algorithm ed25519)"
            )
            return ""
        return seed

    def public_keys(self, name: str) -> list[str]:
        """Ed25519 public keys, comma-separated, each the 64 hex digits of the raw 32-byte key."""
        keys = self.names(name, "")
        bad = [key for key in keys if not re.fullmatch(r"[0-9a-fA-F]{64}", key)]
        if bad:
            self._bad(name, ",".join(bad), "must be Ed25519 public keys, each 64 hex digits, separated by commas")
            return []
        return [key.lower() for key in keys]

    def check(self) -> None:
        """Stop with one line per bad variable (no traceback) if anything was wrong."""
        if self.problems:
            lines = "\n".join(f"  {problem}" for problem in self.problems)
            raise SystemExit(f"Kifu cannot start: fix these environment variables:\n{lines}")


def _range_text(minimum, maximum) -> str:
    if minimum is not None and maximum is not None:
        return f" from {minimum:g} to {maximum:g}"
    if minimum is not None:
        return f" of at least {minimum:g}"
    if maximum is not None:
        return f" of at most {maximum:g}"
    return ""


def derived_checkpoint_key(secret_key: str) -> str:
    """The checkpoint signing key's seed (hex) when none is set: HMAC-SHA256 of a fixed label under
    the secret key, so processes sharing KIFU_SECRET_KEY agree without another secret to hand out."""
    return hmac.new(secret_key.encode(), b"kifu checkpoint signing key v1", hashlib.sha256).hexdigest()


def _ed25519_seed(text: str) -> str | None:
    """The 32-byte seed (hex) of a key given as 64 hex digits or as a PEM Ed25519 private key."""
    if re.fullmatch(r"[0-9a-fA-F]{64}", text):
        return text.lower()
    try:
        key = load_pem_private_key(text.encode(), password=None)
    except (ValueError, TypeError):
        return None
    if not isinstance(key, Ed25519PrivateKey):
        return None
    return key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()).hex()


def _kept_secret(path: Path) -> str:
    """The key in ``path``, generated there first if missing. Two processes starting at once agree:
    only one creates the file (O_EXCL), the other waits a moment for its content."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        for _ in range(100):
            key = path.read_text().strip()
            if key:
                return key
            time.sleep(0.01)
        raise SystemExit(f"Kifu cannot start: {path} is empty; delete it (a new key is made) or set KIFU_SECRET_KEY")
    key = secrets.token_urlsafe(50)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(key + "\n")
    return key
