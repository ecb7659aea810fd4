"""Kifu settings, driven by environment variables (12-factor).

With nothing set, Kifu runs embedded: SQLite in ``var/``, Celery tasks run eagerly in-process and
an in-process scheduler thread closes reaction windows and move clocks on time. ``DATABASE_URL``
(PostgreSQL via psycopg 3) and ``REDIS_URL`` (Celery broker, live streams) switch on the real stack.
"""

import os
from pathlib import Path

from kifu.env import LOG_LEVELS, Env
from kifu.logcontext import JSON_FORMATTER

BASE_DIR = Path(__file__).resolve().parent.parent

# Every variable is read through `env`; a bad value is named (with all the others) by env.check()
# at the end of this module, which stops the process without a traceback (kifu/env.py).
env = Env()
env_bool, env_list = env.boolean, env.names

DEBUG = env_bool("KIFU_DEBUG", False)
ALLOWED_HOSTS = env_list("KIFU_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("KIFU_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "pgtrigger",
    "games",
    "league",
    "league.seasons",  # seasonal leagues: a nested app with its own migrations
    "api",
    "web",
    "hooks",
    "lobby",
    "reminders",
]

MIDDLEWARE = [
    # /healthz, /readyz and /metrics, before host validation and the https redirect (kifu/health.py):
    # one comparison of the path for every other request
    "kifu.health.ProbeMiddleware",
    "games.receipts.ReceiptMiddleware",  # first: a move request is stamped before anything else runs
    "kifu.logcontext.LogContextMiddleware",  # game_id and submission_id on the request's log lines
    "django.middleware.security.SecurityMiddleware",
    "kifu.security.SecurityHeadersMiddleware",  # Content-Security-Policy and Permissions-Policy
    "kifu.http.guards.RefuseBadUrlText",  # a NUL in a URL is a 400 before any lookup (kifu/http/guards.py)
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",  # web pages: the browser's language or the chosen one
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# ---- metrics (kifu/metrics.py): GET /metrics in the Prometheus text format -------------------
# django-prometheus times every request (its middlewares wrap all the others; ~50-100 us of CPU per
# request, bench/metrics_overhead.py); KIFU_METRICS=false leaves all of it out. Counting queries
# (its database backend) costs ~10-25 us per query, as much as a short query itself, so it is
# opt-in: KIFU_METRICS_QUERIES=true (PostgreSQL's own statistics are the cheaper view). /metrics
# answers an address in KIFU_METRICS_ALLOWED_ADDRESSES (networks; REMOTE_ADDR, never
# X-Forwarded-For) or a request with Authorization: Bearer <KIFU_METRICS_TOKEN>.
KIFU_METRICS = env_bool("KIFU_METRICS", True)
# Several processes on a host share their metrics through files here (prometheus_client's multiprocess
# mode, read by kifu/metrics.py itself); checked now, because prometheus_client fails at import without it.
PROMETHEUS_MULTIPROC_DIR = env.directory("PROMETHEUS_MULTIPROC_DIR")
KIFU_METRICS_QUERIES = KIFU_METRICS and env_bool("KIFU_METRICS_QUERIES", False)
KIFU_METRICS_TOKEN = env.text("KIFU_METRICS_TOKEN", "")
KIFU_METRICS_ALLOWED_ADDRESSES = env.networks("KIFU_METRICS_ALLOWED_ADDRESSES", "127.0.0.0/8,::1/128")
if KIFU_METRICS:
    INSTALLED_APPS.append("django_prometheus")
    # Right after the move receipt stamp (games.receipts), which stays as early as it can be.
    after_receipt = MIDDLEWARE.index("games.receipts.ReceiptMiddleware") + 1
    MIDDLEWARE[after_receipt:after_receipt] = [
        "django_prometheus.middleware.PrometheusBeforeMiddleware",
        "kifu.metrics.ResponseMetricsMiddleware",
    ]
    MIDDLEWARE.append("django_prometheus.middleware.PrometheusAfterMiddleware")

ROOT_URLCONF = "kifu.urls"
WSGI_APPLICATION = "kifu.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # Django's admin templates that Kifu overrides (admin/base_site.html adds web/admin.css).
        "DIRS": [BASE_DIR / "web" / "admin_templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# ---- storage -------------------------------------------------------------------------------
VAR_DIR = Path(os.environ.get("KIFU_VAR_DIR", BASE_DIR / "var"))
DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": env.database("DATABASE_URL", conn_max_age=60, conn_health_checks=True)}
    # A host cut off mid-transaction (bin/multihost found it) leaves its session idle in transaction,
    # holding its game's row lock until PostgreSQL notices the client is gone - hours with the
    # kernel's keepalive defaults - and every move of that game on the other hosts queues behind it.
    # Keepalives (every session asks for them) find a dead client in about 3x this many seconds;
    # KIFU_DB_IDLE_TRANSACTION_SECONDS (0: off) also ends a transaction its live client left idle.
    KIFU_DB_KEEPALIVE_SECONDS = env.integer("KIFU_DB_KEEPALIVE_SECONDS", 10, minimum=0, maximum=3600)
    KIFU_DB_IDLE_TRANSACTION_SECONDS = env.integer("KIFU_DB_IDLE_TRANSACTION_SECONDS", 0, minimum=0, maximum=86400)
    if DATABASES["default"] and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        session = []
        if KIFU_DB_KEEPALIVE_SECONDS:
            every = max(KIFU_DB_KEEPALIVE_SECONDS // 2, 1)
            session += [f"tcp_keepalives_idle={KIFU_DB_KEEPALIVE_SECONDS}", f"tcp_keepalives_interval={every}"]
            session += ["tcp_keepalives_count=3"]
        if KIFU_DB_IDLE_TRANSACTION_SECONDS:
            session.append(f"idle_in_transaction_session_timeout={KIFU_DB_IDLE_TRANSACTION_SECONDS * 1000}")
        if session:
            options = DATABASES["default"].setdefault("OPTIONS", {})
            options["options"] = " ".join([options.get("options", ""), *(f"-c {item}" for item in session)]).strip()
    if (
        KIFU_METRICS_QUERIES
        and DATABASES["default"]
        and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    ):
        DATABASES["default"]["ENGINE"] = "kifu.db.postgresql_metrics"  # django-prometheus's, counting queries
    elif DATABASES["default"] and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # Django's, with a health check that costs no round trip when the socket is quiet (kifu/db/health.py)
        DATABASES["default"]["ENGINE"] = "kifu.db.postgresql"
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "kifu.sqlite3",
            # IMMEDIATE transactions take the write lock up front, so concurrent requests of the
            # threaded dev server queue for it instead of failing with "database is locked".
            "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 30},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# The real stack (DATABASE_URL set, KIFU_DEBUG off) refuses to start without its own KIFU_SECRET_KEY;
# embedded (or debugging) Kifu keeps a key generated for this install in var/secret_key.
SECRET_KEY = env.secret_key(
    "KIFU_SECRET_KEY", required=bool(DATABASE_URL) and not DEBUG, keep_in=VAR_DIR / "secret_key"
)
# The Ed25519 key that signs the checkpoint log (games/checkpoints.py, issue 15 part 5): from
# KIFU_CHECKPOINT_KEY or the file named by KIFU_CHECKPOINT_KEY_FILE, else derived from SECRET_KEY
# (so embedded Kifu signs with a per-install key). Never stored in the database.
KIFU_CHECKPOINT_KEY = env.checkpoint_key("KIFU_CHECKPOINT_KEY", "KIFU_CHECKPOINT_KEY_FILE", secret_key=SECRET_KEY)
# Public keys (hex, comma-separated) that signed checkpoints before the current key: verification
# still accepts their checkpoints after a key change (GET /api/checkpoints/public-key lists them).
KIFU_CHECKPOINT_PREVIOUS_KEYS = env.public_keys("KIFU_CHECKPOINT_PREVIOUS_KEYS")
# At most this many finished games go into one checkpoint; the rest wait for the next one.
KIFU_CHECKPOINT_BATCH = env.integer("KIFU_CHECKPOINT_BATCH", 1000, minimum=1, maximum=100_000)

# ---- queue, timers and streams ---------------------------------------------------------
REDIS_URL = env.redis_url("REDIS_URL")
EMBEDDED = not REDIS_URL
CELERY_BROKER_URL = REDIS_URL or "memory://localhost/"
CELERY_TASK_ALWAYS_EAGER = EMBEDDED
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True  # a task is acknowledged after it ran, so a killed worker's task reruns
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("KIFU_QUEUE", "kifu")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Riding out a Redis restart (issue 15): the worker and beat reconnect after losing the broker, and
# never give up (None: retry forever; the default of 100 tries ends the worker after a long outage,
# and 0 would mean no retry at all). Keepalive, timeouts and a periodic health check find a dead
# connection instead of waiting on it. (broker_heartbeat is AMQP-only; there is no result backend.)
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_CONNECTION_TIMEOUT = 5
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 3600,
    "socket_keepalive": True,
    "socket_connect_timeout": 5,
    "retry_on_timeout": True,
    "health_check_interval": 10,
}
# A request that queues a task while Redis is down gives up after about 1.5 s and answers
# 503 service_unavailable (kifu/http/errors.py); what it stored is queued again by the sweeper.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 1}
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE = {
    "close-overdue-windows": {"task": "games.tasks.deadlines_sweep", "schedule": 1.0},
    "requeue-pending-submissions": {"task": "games.tasks.submissions_sweep", "schedule": 5.0},
}
# League (issue 7): forfeits at challenge deadlines and inactivity drops (days-long deadlines, so a
# minute's sweep is plenty).
CELERY_BEAT_SCHEDULE["league-ladder-deadlines"] = {"task": "league.tasks.ladders_sweep", "schedule": 60.0}
# Embedded mode has no beat: its timer thread runs these (dotted path, every N seconds) instead.
KIFU_EMBEDDED_PERIODIC = [("league.tasks.ladders_sweep", 60.0)]
# Tournaments (issue 8): forfeits at round deadlines. The task lives in league/tournaments/tasks.py
# under its old registered name (pinned there), which beat sends; the timer thread imports the path.
CELERY_BEAT_SCHEDULE["league-tournament-deadlines"] = {"task": "league.tasks.tournaments_sweep", "schedule": 5.0}
KIFU_EMBEDDED_PERIODIC.append(("league.tournaments.tasks.tournaments_sweep", 5.0))
# Seasonal leagues (league/seasons): fixtures not finished by their play-by date are forfeited.
CELERY_BEAT_SCHEDULE["league-season-deadlines"] = {"task": "league.seasons.tasks.seasons_sweep", "schedule": 60.0}
KIFU_EMBEDDED_PERIODIC.append(("league.seasons.tasks.seasons_sweep", 60.0))
# Lobby (lobby/): open seeks past their expiry close; a seek lives minutes, so a few seconds' sweep.
CELERY_BEAT_SCHEDULE["lobby-seeks-expire"] = {"task": "lobby.tasks.seeks_sweep", "schedule": 5.0}
KIFU_EMBEDDED_PERIODIC.append(("lobby.tasks.seeks_sweep", 5.0))
# Reported results (issue 17): a pending report counts as confirmed when its time runs out (hours;
# a minute's sweep is plenty).
CELERY_BEAT_SCHEDULE["league-report-confirmations"] = {"task": "league.reports.tasks.reports_sweep", "schedule": 60.0}
KIFU_EMBEDDED_PERIODIC.append(("league.reports.tasks.reports_sweep", 60.0))
# Webhooks (hooks/): deliveries whose task was lost are queued again; embedded, the timer thread
# sends them (eager Celery cannot wait out a backoff).
CELERY_BEAT_SCHEDULE["hooks-deliveries"] = {"task": "hooks.tasks.deliveries_sweep", "schedule": 30.0}
KIFU_EMBEDDED_PERIODIC.append(("hooks.tasks.deliveries_sweep", 1.0))
# Deadline reminders (reminders/): a minute's sweep; each reminder is sent at most once per deadline.
CELERY_BEAT_SCHEDULE["reminders-deadlines"] = {"task": "reminders.tasks.reminders_sweep", "schedule": 60.0}
KIFU_EMBEDDED_PERIODIC.append(("reminders.tasks.reminders_sweep", 60.0))
# Checkpoint log (issue 15 part 5): finished games' heads are signed in batches every few seconds.
CELERY_BEAT_SCHEDULE["games-checkpoint"] = {"task": "games.tasks.checkpoint_task", "schedule": 5.0}
KIFU_EMBEDDED_PERIODIC.append(("games.tasks.checkpoint_task", 5.0))
KIFU_WEBHOOK_TIMEOUT_SECONDS = env.number("KIFU_WEBHOOK_TIMEOUT_SECONDS", 5.0, minimum=0.1, maximum=300)
# The first retry waits this long; each later one doubles it (capped at an hour).
KIFU_WEBHOOK_BACKOFF_SECONDS = env.number("KIFU_WEBHOOK_BACKOFF_SECONDS", 2.0, minimum=0.001, maximum=3600)
KIFU_WEBHOOK_MAX_ATTEMPTS = env.integer("KIFU_WEBHOOK_MAX_ATTEMPTS", 10, minimum=1, maximum=100)
# Submissions still pending after this many seconds are queued again by the sweeper.
KIFU_SUBMISSION_REQUEUE_SECONDS = env.number("KIFU_SUBMISSION_REQUEUE_SECONDS", 10.0, minimum=0.1, maximum=86400)
# The embedded scheduler thread's tick; it closes windows whose deadline has passed.
KIFU_EMBEDDED_TICK_SECONDS = 0.1
KIFU_MAX_WAIT_SECONDS = 30
# Each web process remembers a token's account this long (api/authentication.py): a token deleted,
# or an account changed, in another process is honoured at most this much longer. 0: read every time.
KIFU_TOKEN_CACHE_SECONDS = env.number("KIFU_TOKEN_CACHE_SECONDS", 2.0, minimum=0, maximum=60)
# Receipt time of a move (games/receipts.py): a trusted proxy's request-start header (e.g.
# X-Request-Start, set by deploy/nginx.conf), honoured only when named here; and the grace that a
# window's close waits after its deadline (a proxy's stamp may be this much older than the moment
# the web process saw the request; 0 without a proxy header).
KIFU_RECEIPT_HEADER = env.text("KIFU_RECEIPT_HEADER", "")
KIFU_RECEIPT_GRACE_SECONDS = env.number(
    "KIFU_RECEIPT_GRACE_SECONDS", 0.5 if KIFU_RECEIPT_HEADER else 0.0, minimum=0, maximum=10
)

# The printable round's PDF (web/print_pdf.py) sets every word in one TrueType font that has the
# Japanese glyphs: this file, else the first of Debian's IPA Gothic (fonts-ipafont-gothic) found.
KIFU_PDF_FONT = env.text("KIFU_PDF_FONT", "")

# ---- live streams (games/streams.py, api/streams.py) ------------------------------------------
# Each open stream holds one web thread (gunicorn gthread), so streams are bounded in time; a
# client resumes from its last id. Keep-alive comments keep proxies from closing idle streams.
KIFU_STREAM_MAX_SECONDS = env.number("KIFU_STREAM_MAX_SECONDS", 3600.0, minimum=1, maximum=86400)
KIFU_STREAM_KEEPALIVE_SECONDS = env.number("KIFU_STREAM_KEEPALIVE_SECONDS", 15.0, minimum=0.1, maximum=3600)
# Embedded mode has no Redis to announce changes: streams poll the database this often.
KIFU_STREAM_POLL_SECONDS = env.number("KIFU_STREAM_POLL_SECONDS", 0.2, minimum=0.01, maximum=60)

# ---- API ---------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.RawTokenAuthentication",  # DRF's token auth, one raw statement
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "kifu.http.openapi.AutoSchema",  # AllowAny operations need no credentials
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "kifu.http.guards.Pagination",  # LimitOffsetPagination, limit at most 1000
    # kifu/http/guards.py: NUL, lone surrogates, infinities and deep nesting in a JSON body are a 400.
    # JSON only: every operation has one body schema (a form cannot carry a nested move or config),
    # and a form or multipart body is a 415. The web pages' forms are Django views, not DRF.
    "DEFAULT_PARSER_CLASSES": ["kifu.http.guards.JSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "kifu.http.errors.exception_handler",
    # kifu/http/throttles.py: one atomic Redis INCR per request (DRF's history list undercounts when racing)
    "DEFAULT_THROTTLE_CLASSES": ["kifu.http.throttles.AnonThrottle", "kifu.http.throttles.UserThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env.rate("KIFU_THROTTLE_ANON", "600/minute"),
        "user": env.rate("KIFU_THROTTLE_USER", "6000/minute"),
        "login": env.rate("KIFU_THROTTLE_LOGIN", "10/minute"),  # per address: POST /api/token, the web log-in
        # per address, and per e-mail address asked for: the web password reset (web/password_reset.py)
        "password_reset": env.rate("KIFU_THROTTLE_PASSWORD_RESET", "5/hour"),
    },
    # Proxies of ours in front of the app (deploy/nginx.conf: 1). 0: the client's address is
    # REMOTE_ADDR and X-Forwarded-For is ignored - a client could write anything there.
    "NUM_PROXIES": env.integer("KIFU_TRUSTED_PROXIES", 0, minimum=0, maximum=10),
}
# Per account: after this many failed log-ins the username is refused (429 login_locked) for
# KIFU_LOGIN_BACKOFF_SECONDS, doubling with each further failure (at most an hour).
KIFU_LOGIN_FAILURES = env.integer("KIFU_LOGIN_FAILURES", 5, minimum=1, maximum=1000)
KIFU_LOGIN_BACKOFF_SECONDS = env.number("KIFU_LOGIN_BACKOFF_SECONDS", 30.0, minimum=1, maximum=3600)
SPECTACULAR_SETTINGS = {
    "TITLE": "Kifu API",
    "DESCRIPTION": "Event-sourced games, ladders, leagues and tournaments. Every error is "
    '`{"code": <stable string>, "message": <what to fix>}`.',
    # The API version is also the Python client's (kifu_client/API_VERSION, one file for both).
    "VERSION": (BASE_DIR / "kifu_client" / "API_VERSION").read_text().strip(),
    "SERVE_INCLUDE_SCHEMA": False,
    # Request bodies get their own components (GameCreateRequest): a read-only field such as
    # MatureConsent.confirmed_at is then required in the answer and absent from the request.
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Tournaments and seasonal leagues offer different tiebreak lists: name each enum after its owner.
    "ENUM_NAME_OVERRIDES": {
        "TournamentTiebreakEnum": "league.scoring.standings.TIEBREAKS",
        "SeasonTiebreakEnum": "league.seasons.scoring.TIEBREAKS",
        "TableEntryStatusEnum": "games.models.TableEntry.Status",  # the table recorder's verdicts (api/table.py)
        "TournamentEntryStatusEnum": "league.tournaments.api.ENTRY_STATUSES",
        "SeasonMovementEnum": "league.seasons.serializers.MOVEMENTS",
        "SeasonZoneEnum": "league.seasons.serializers.ZONES",
        "TrueEnum": [(True, True)],  # mature consent's adult and consent (api.serializers.AffirmationField)
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.openapi.add_move_schemas",  # typed moves from the engines' action tables (after the enums)
        "kifu.http.errors.document_error_responses",  # every operation: 400/401/403/404/409/429 as Error
    ],
}

if REDIS_URL:
    # Timeouts: with Redis down or hung a request fails fast (503 service_unavailable, kifu/http/errors.py).
    CACHES = {
        "default": {
            "BACKEND": "kifu.cache.RedisCache",  # Django's, with its Redis clients kept (kifu/cache.py)
            "LOCATION": REDIS_URL,
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 5},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# ---- the rest ------------------------------------------------------------------------------
# For test runs only (bin/test sets it, and the stack the tests start inherits it): Django's own advice
# for fast tests - PBKDF2 costs ~0.2 s of CPU per account made or password checked, MD5 nothing. Never
# set it on a real service: `manage.py check --deploy` warns while it is on (kifu.W001).
KIFU_TEST_FAST_PASSWORD_HASHER = env_bool("KIFU_TEST_FAST_PASSWORD_HASHER", False)
if KIFU_TEST_FAST_PASSWORD_HASHER:
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("KIFU_STATIC_ROOT", VAR_DIR / "static"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on every request without it
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# ---- HTTPS and security headers (issue 23; deploy/nginx.conf terminates TLS) -----------------------
# The proxy's header that says a request came in over https (nginx.conf sets X-Forwarded-Proto),
# honoured only when named here: without a proxy a client could send it. Set, Django also redirects
# plain http to https (nginx does the same first), so the real stack can be served over https only.
SECURE_PROXY_SSL_HEADER = env.https_header("KIFU_PROXY_SSL_HEADER")
SECURE_SSL_REDIRECT = env_bool("KIFU_SSL_REDIRECT", SECURE_PROXY_SSL_HEADER is not None)
# Cookies only over https, except in embedded mode (a laptop on http://127.0.0.1). The real stack
# on plain http (no TLS in front) must say KIFU_SECURE_COOKIES=false, or no log-in would hold.
KIFU_SECURE_COOKIES = env_bool("KIFU_SECURE_COOKIES", not EMBEDDED)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = LANGUAGE_COOKIE_SECURE = KIFU_SECURE_COOKIES
# The language choice outlives the browser session (the cookie would otherwise end with it).
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
# HSTS is sent only on https responses (SecurityMiddleware), so it costs nothing on http; a year, all
# subdomains, and preload-eligible by default on the real stack - set KIFU_HSTS_SECONDS=0 to turn it off.
SECURE_HSTS_SECONDS = env.integer("KIFU_HSTS_SECONDS", 0 if EMBEDDED else 31_536_000, minimum=0, maximum=63_072_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("KIFU_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("KIFU_HSTS_PRELOAD", True)
# Content-Security-Policy (kifu/security.py; Django 5.2 has none built in - the name and shape are
# Django 6.0's, so moving to its middleware is a settings change). Every script and style is a file
# of ours: no inline script, no inline style, nothing from another origin.
SECURE_CSP = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],  # data: only for the empty favicon (base.html)
    "font-src": ["'self'"],
    "connect-src": ["'self'"],  # the pages' fetches and streams
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
# Browser features no page uses, switched off for every page and anything it could embed.
KIFU_PERMISSIONS_POLICY = (
    "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()"
)

# ---- web pages: languages, log-in and scripts (web/) ---------------------------------------------
# English and Japanese; LocaleMiddleware picks the language from the set_language cookie, else the
# browser's Accept-Language. Translations live in web/locale (the .mo files are committed).
LANGUAGES = [("en", "English"), ("ja", "日本語")]
LOCALE_PATHS = [BASE_DIR / "web" / "locale"]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"
# ---- e-mail: password reset (web/password_reset.py) -----------------------------------------
# Without KIFU_EMAIL_HOST mail is printed on the console (the embedded mode, a laptop); with it, it is
# sent by SMTP: STARTTLS on 587 by default, KIFU_EMAIL_SSL for implicit TLS (465).
EMAIL_HOST = env.text("KIFU_EMAIL_HOST", "")
EMAIL_PORT = env.integer("KIFU_EMAIL_PORT", 587, minimum=1, maximum=65535)
EMAIL_HOST_USER = env.text("KIFU_EMAIL_USER", "")
EMAIL_HOST_PASSWORD = env.text("KIFU_EMAIL_PASSWORD", "")
EMAIL_USE_SSL = env_bool("KIFU_EMAIL_SSL", False)
EMAIL_USE_TLS = not EMAIL_USE_SSL and env_bool("KIFU_EMAIL_STARTTLS", True)
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = env.text("KIFU_EMAIL_FROM", "Kifu <kifu@localhost>")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.console.EmailBackend"
)
# The site's address as players reach it, for links in mail sent outside a request (reminders).
KIFU_SITE_URL = env.text("KIFU_SITE_URL", "http://127.0.0.1:8000").rstrip("/")
# A move deadline is reminded only if its window is at least this long: a blitz clock's is not.
KIFU_REMINDER_MIN_WINDOW_SECONDS = env.integer("KIFU_REMINDER_MIN_WINDOW_SECONDS", 3600, minimum=60, maximum=30 * 86400)
PASSWORD_RESET_TIMEOUT = env.integer("KIFU_PASSWORD_RESET_SECONDS", 3 * 3600, minimum=300, maximum=7 * 86400)
# Where collectstatic has run (bin/serve, the Docker image, the systemd unit: KIFU_STATIC_COLLECTED=1)
# the scripts and styles are served from STATIC_ROOT only, with the gzip copies
# CompressedStaticFilesStorage wrote beside them (Content-Encoding: gzip to a browser that accepts
# it). Without it (the test stack, a fresh checkout) they are served straight from the apps'
# static/ folders, as they are now, uncompressed: whitenoise's finders take the place of the
# collected copies, so the two modes cannot mix.
KIFU_STATIC_COLLECTED = env_bool("KIFU_STATIC_COLLECTED", False)
WHITENOISE_USE_FINDERS = not KIFU_STATIC_COLLECTED

LOG_LEVEL = env.choice("KIFU_LOG_LEVEL", "", (*LOG_LEVELS, ""))  # unset: WARNING for the root, INFO for kifu
# KIFU_LOG_FORMAT=json: one JSON object per line (python-json-logger) for a log shipper, with the
# game_id and submission_id of the move path (kifu/logcontext.py); the Celery worker and gunicorn
# use the same (kifu/celery.py, deploy/gunicorn.conf.py). text (default): the readable lines.
KIFU_LOG_FORMAT = env.choice("KIFU_LOG_FORMAT", "text", ("TEXT", "JSON")).lower()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "kifu.logcontext.ContextFilter"}},
    "formatters": {"json": JSON_FORMATTER},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["context"],
            **({"formatter": "json"} if KIFU_LOG_FORMAT == "json" else {}),
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL or "WARNING"},
    "loggers": {"kifu": {"level": LOG_LEVEL or "INFO"}, "celery": {"level": LOG_LEVEL or "INFO"}},
}
env.check()  # keep last: stops here, naming every bad variable, before anything runs on them
