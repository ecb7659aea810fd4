"""Build the image (../Dockerfile) and run deploy/compose.yaml for real, with podman (bin/imagecheck).

What it does, printing each step and how long it took:

1. podman's configuration for this run only (CONTAINERS_CONF, CONTAINERS_STORAGE_CONF in the state
   directory, nothing written to /etc): overlay storage, runc, cgroupfs (no systemd needed), file
   events, and ulimits no higher than this process's (a container may not raise them here).
2. Base images. Where Docker Hub answers, pass ``--python-image python:3.11-slim-bookworm`` (and
   ``--postgres-image``, ``--redis-image``); else (the default) a Python base made with mmdebstrap
   from Debian bookworm's packages (``podman import``), and PostgreSQL 15 and Redis 7 images built
   on it from deploy/local-images/ (the official images' interface, Debian's packages).
3. The Kifu image, built with ``podman build --build-arg PYTHON_IMAGE=...``; then: it runs as uid
   10001 (kifu), and the static files are in it (collected at build time, not writable at run time).
4. compose.yaml, byte for byte, in a project directory of its own with a kifu.env made from
   kifu.env.example (fresh secrets, plain http on 127.0.0.1, free ports) and a checkpoint key,
   run with podman-compose (deploy/requirements-imagecheck.txt, in a venv in the state directory).
   podman 4.3 cannot wait for ``service_healthy`` (podman-compose says so and skips it) and runs no
   health checks by itself without systemd, and fails to start a container whose ``--requires``
   chain is two deep; so this script runs ``podman healthcheck run`` on every container every few
   seconds (what systemd's timers would), and starts one service at a time (``up -d --no-deps``)
   once the conditions of its ``depends_on`` in the file hold (what compose itself does).
5. On the running stack: migrate ran once, exited 0, and every app container started after it
   finished; /readyz 200 through the web and the streams containers; a Nine Card game played to the
   end through the API, every move decided by a worker (its log names the game); the streams pool
   streams the game; /metrics with the token; beat's and the worker's health checks pass; every
   container healthy.
6. ``down`` and ``up`` again: the game and its events are still there (the named volume), and
   ``kifu verify --all`` passes inside the web container. Then ``down -v`` (unless ``--keep``).

Needs root and podman (Debian: ``apt-get install podman runc mmdebstrap``). About 11 minutes the
first time on 2 cores (the base and the pip install), 5 minutes after that (layers are cached in the state
directory).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
PROJECT = "kifuimagecheck"
LOCAL_BASE = "localhost/kifu-base:python3.11-bookworm"
LOCAL_POSTGRES = "localhost/kifu-postgres:15-bookworm"
LOCAL_REDIS = "localhost/kifu-redis:7-bookworm"
IMAGE = "localhost/kifu:imagecheck"
HOST_CA = Path("/etc/ssl/certs/ca-certificates.crt")
APP_SERVICES = ("web", "streams", "worker", "beat")

checked: list[tuple[str, float]] = []
environ = dict(os.environ)


class CheckFailed(Exception):
    pass


def say(text: str) -> None:
    print(text, flush=True)


def step(what: str):
    """A context manager that times one step and records it as checked."""

    class Step:
        def __enter__(self):
            self.started = time.monotonic()
            say(f"-- {what}")
            return self

        def __exit__(self, kind, error, trace):
            took = time.monotonic() - self.started
            if kind is None:
                checked.append((what, took))
                say(f"ok {what} ({took:.0f} s)")
            return False

    return Step()


def run(*argv: str, check: bool = True, quiet: bool = False, timeout: float | None = None, **options):
    try:
        done = subprocess.run(argv, env=environ, capture_output=True, text=True, timeout=timeout, **options)
    except subprocess.TimeoutExpired as expired:
        said = (expired.stdout or b"")[-3000:] + (expired.stderr or b"")[-3000:]
        raise CheckFailed(f"{' '.join(argv)}: no end after {timeout:.0f} s:\n{said.decode(errors='replace')}") from None
    if check and done.returncode != 0:
        raise CheckFailed(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    if not quiet and done.returncode != 0:
        say(f"   ({' '.join(argv[:4])}... exited {done.returncode})")
    return done


def podman(*argv: str, **options):
    return run("podman", *argv, **options)


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise CheckFailed(what)


# ---- 1. podman, configured for this run only ---------------------------------------------------
def configure(state: Path) -> None:
    import resource

    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    nproc = min(resource.getrlimit(resource.RLIMIT_NPROC)[1], 32768)
    (state / "containers.conf").write_text(
        "[containers]\n"
        f'default_ulimits = ["nofile={nofile}:{nofile}", "nproc={nproc}:{nproc}"]\n'
        "[engine]\n"
        'runtime = "runc"\n'  # crun 1.8 refuses a cgroup v1 host whose v2 hierarchy has a controller
        'cgroup_manager = "cgroupfs"\n'  # no systemd here
        'events_logger = "file"\n'
        "[network]\n"
        f'network_config_dir = "{state}/networks"\n'  # compose's network too: nothing in /etc/containers
    )
    (state / "storage.conf").write_text(
        f'[storage]\ndriver = "overlay"\ngraphroot = "{state}/storage"\nrunroot = "{state}/run"\n'
    )
    environ["CONTAINERS_CONF"] = str(state / "containers.conf")
    environ["CONTAINERS_STORAGE_CONF"] = str(state / "storage.conf")
    info = json.loads(podman("info", "--format", "json").stdout)
    say(
        f"   podman {info['version']['Version']}, storage {info['store']['graphDriverName']}, runtime "
        f"{info['host']['ociRuntime']['name']}, cgroups {info['host']['cgroupVersion']} "
        f"({info['host']['cgroupManager']}), network {info['host'].get('networkBackend', '?')}"
    )


def tools(state: Path) -> Path:
    venv = state / "tools"
    if not (venv / "bin" / "python").exists():
        run(getattr(sys, "_base_executable", sys.executable), "-m", "venv", str(venv))
    run(str(venv / "bin" / "pip"), "install", "-q", "-r", str(DEPLOY / "requirements-imagecheck.txt"))
    return venv / "bin" / "podman-compose"


def image_exists(name: str) -> bool:
    return podman("image", "exists", name, check=False, quiet=True).returncode == 0


# ---- 2. base images ------------------------------------------------------------------------------
def local_base(state: Path, rebuild: bool) -> None:
    if image_exists(LOCAL_BASE) and not rebuild:
        say(f"   {LOCAL_BASE} already here (--rebuild-base makes it again)")
        return
    tarball = state / "python-base.tar"
    mirror = "http://deb.debian.org/debian"
    run(
        "mmdebstrap",
        "--variant=minbase",
        "--include=python3,python3-venv,python3-pip,python-is-python3,ca-certificates",
        "bookworm",
        str(tarball),
        f"deb {mirror} bookworm main",
        f"deb {mirror} bookworm-updates main",
        "deb http://deb.debian.org/debian-security bookworm-security main",
        timeout=1800,
    )
    podman("import", "--change", "ENV LANG=C.UTF-8", "--change", 'CMD ["python3"]', str(tarball), LOCAL_BASE)
    tarball.unlink()


def build_local_service_images() -> None:
    folder = DEPLOY / "local-images"
    for name, containerfile in ((LOCAL_POSTGRES, "postgres.Containerfile"), (LOCAL_REDIS, "redis.Containerfile")):
        podman(
            "build", "--build-arg", f"BASE_IMAGE={LOCAL_BASE}", "-t", name, "-f", str(folder / containerfile),
            str(folder), timeout=1800,
        )  # fmt: skip


# ---- 3. the image --------------------------------------------------------------------------------
def build_image(python_image: str) -> None:
    # docker format: the OCI format has no HEALTHCHECK (podman drops it with a warning)
    argv = ["build", "--format", "docker", "--build-arg", f"PYTHON_IMAGE={python_image}", "-t", IMAGE]
    argv += ["-f", str(ROOT / "Dockerfile")]
    if HOST_CA.exists():  # this host's trust store for the build's pip and apt (e.g. behind a TLS proxy)
        argv += ["--volume", f"{HOST_CA}:{HOST_CA}:ro"]
    podman(*argv, str(ROOT), timeout=3600)


def check_image() -> None:
    user = podman("image", "inspect", IMAGE, "--format", "{{.Config.User}}").stdout.strip()
    uid = podman("run", "--rm", IMAGE, "id", "-u").stdout.strip()
    expect(user == "kifu" and uid == "10001", f"the image runs as {user!r} uid {uid!r}, not kifu 10001")
    listing = podman(
        "run", "--rm", IMAGE, "sh", "-c",
        "find /opt/kifu/static -type f | wc -l; find /opt/kifu/static -name '*.gz' | wc -l; "
        "touch /opt/kifu/static/x 2>/dev/null && echo writable || echo read-only",
    ).stdout.split()  # fmt: skip
    files, gzipped, writable = int(listing[0]), int(listing[1]), listing[2]
    expect(files > 50 and gzipped > 0, f"static files in the image: {files} ({gzipped} gzipped)")
    expect(writable == "read-only", "the kifu user can write the static files: collected at run time?")
    say(f"   user kifu (uid {uid}); {files} static files ({gzipped} gzip copies) in /opt/kifu/static, read-only")


# ---- 4. the compose project ----------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def project(state: Path, images: dict[str, str], workers: int) -> dict[str, str]:
    folder = state / "project"
    folder.mkdir(exist_ok=True)
    shutil.copyfile(DEPLOY / "compose.yaml", folder / "compose.yaml")
    values = {
        "POSTGRES_PASSWORD": secrets.token_hex(24),
        "KIFU_SECRET_KEY": secrets.token_urlsafe(50),
        "KIFU_METRICS_TOKEN": secrets.token_hex(16),
        "KIFU_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "KIFU_CSRF_TRUSTED_ORIGINS": "http://127.0.0.1",
        # plain http straight to the containers: no TLS proxy in front of them here
        "KIFU_PROXY_SSL_HEADER": "",
        "KIFU_SECURE_COOKIES": "false",
        "KIFU_TRUSTED_PROXIES": "0",
        "KIFU_RECEIPT_HEADER": "",
        "KIFU_IMAGE": IMAGE,
        "KIFU_POSTGRES_IMAGE": images["postgres"],
        "KIFU_REDIS_IMAGE": images["redis"],
        "KIFU_WEB_PORT": str(free_port()),
        "KIFU_STREAMS_PORT": str(free_port()),
        "KIFU_WORKERS": str(workers),
    }
    text = (DEPLOY / "kifu.env.example").read_text()
    for name, value in values.items():
        text, found = re.subn(rf"^#?{name}=.*$", f"{name}={value}", text, flags=re.M)
        if not found:
            text += f"{name}={value}\n"
    (folder / "kifu.env").write_text(text)
    (folder / "kifu.env").chmod(0o600)
    key = folder / "checkpoint.key"
    if key.exists():
        key.chmod(0o600)
    key.write_text(secrets.token_hex(32) + "\n")
    os.chown(key, 10001, 10001)  # the image's kifu user, as compose.yaml's comment tells operators
    key.chmod(0o400)
    return values


class Compose:
    def __init__(self, binary: Path, folder: Path):
        self.base = [str(binary), "-p", PROJECT, "--env-file", str(folder / "kifu.env")]
        self.base += ["-f", str(folder / "compose.yaml")]
        self.folder = folder

    def __call__(self, *argv: str, timeout: float = 900, check: bool = True):
        return run(*self.base, *argv, cwd=self.folder, timeout=timeout, check=check)


def containers() -> list[dict]:
    listing = podman("ps", "-a", "--filter", f"label=io.podman.compose.project={PROJECT}", "--format", "json")
    return json.loads(listing.stdout or "[]")


def inspect(name: str) -> dict:
    return json.loads(podman("inspect", name).stdout)[0]


def service_of(container: dict) -> str:
    return container["Labels"].get("com.docker.compose.service", "")


class HealthTicker(threading.Thread):
    """What systemd's timers do for podman elsewhere: each running container's health check, every
    few seconds (podman records the result; `podman inspect` shows it)."""

    def __init__(self, every: float = 5.0):
        super().__init__(daemon=True)
        self.every, self.stopping = every, threading.Event()

    def run(self):
        while not self.stopping.is_set():
            for container in containers():
                if container["State"] == "running" and service_of(container) != "migrate":
                    podman("healthcheck", "run", container["Names"][0], check=False, quiet=True, timeout=60)
            self.stopping.wait(self.every)


def health(name: str) -> str:
    state = inspect(name)["State"]
    return (state.get("Health") or state.get("Healthcheck") or {}).get("Status", "none")


def wait_healthy(services: tuple[str, ...], timeout: float, quiet: bool = False) -> None:
    deadline = time.monotonic() + timeout
    while True:
        states = {c["Names"][0]: health(c["Names"][0]) for c in containers() if service_of(c) in services}
        if states and len(states) >= len(services) and all(v == "healthy" for v in states.values()):
            if not quiet:
                say("   " + ", ".join(f"{name} {value}" for name, value in sorted(states.items())))
            return
        if time.monotonic() > deadline:
            raise CheckFailed(f"not healthy after {timeout:.0f} s: {states}")
        time.sleep(2)


def wait_exited_zero(service: str, timeout: float) -> None:
    """A job's dependants start when it exited 0 (a failed try is run again by its restart policy)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        states = [inspect(c["Names"][0])["State"] for c in containers() if service_of(c) == service]
        if states and all(s["Status"] == "exited" and s["ExitCode"] == 0 for s in states):
            return
        time.sleep(2)
    raise CheckFailed(f"{service} did not exit 0 within {timeout:.0f} s")


def start_order(services: dict) -> list[str]:
    order: list[str] = []

    def visit(name: str, path: tuple[str, ...] = ()) -> None:
        expect(name not in path, f"depends_on cycle: {path}")
        for dependency in services[name].get("depends_on", {}):
            visit(dependency, (*path, name))
        if name not in order:
            order.append(name)

    for name in services:
        visit(name)
    return order


def up(compose: Compose) -> None:
    """Each service once what its depends_on asks for holds, in the file's order: podman 4.3 cannot
    wait for service_healthy (podman-compose skips it, saying so), and fails to start a container
    whose --requires chain is two deep ("generating dependency graph ... not found in input list"),
    so podman-compose starts one service at a time (--no-deps) and this script keeps the conditions."""
    import yaml

    services = yaml.safe_load((compose.folder / "compose.yaml").read_text())["services"]
    for service in start_order(services):
        for dependency, rule in services[service].get("depends_on", {}).items():
            condition = rule["condition"] if isinstance(rule, dict) else "service_started"
            if condition == "service_healthy":
                wait_healthy((dependency,), 180, quiet=True)
            elif condition == "service_completed_successfully":
                wait_exited_zero(dependency, 600)
        compose("up", "-d", "--no-deps", service, timeout=300)
        rules = services[service].get("depends_on", {}).items()
        after = [f"{name} {rule['condition'].removeprefix('service_')}" for name, rule in rules]
        say(f"   {service} up" + (f" once {', '.join(after)}" if after else ""))
    made = sorted(service_of(c) for c in containers())
    expect(set(made) >= {"postgres", "redis", "migrate", *APP_SERVICES}, f"containers after up: {made}")


# ---- 5. the running stack ------------------------------------------------------------------------
def wait_ready(url: str, timeout: float) -> dict:
    deadline, last = time.monotonic() + timeout, "no answer"
    while time.monotonic() < deadline:
        try:
            answer = requests.get(url + "/readyz", timeout=5)
            if answer.status_code == 200:
                return answer.json()
            last = f"{answer.status_code} {answer.text[:200]}"
        except requests.RequestException as error:
            last = str(error)
        time.sleep(2)
    raise CheckFailed(f"{url}/readyz: {last}")


def check_migrate_ran_once() -> None:
    by_service: dict[str, list[dict]] = {}
    for container in containers():
        by_service.setdefault(service_of(container), []).append(inspect(container["Names"][0]))
    (migrate,) = by_service["migrate"]
    state = migrate["State"]
    expect(state["Status"] == "exited" and state["ExitCode"] == 0, f"migrate: {state['Status']} {state['ExitCode']}")
    expect(migrate.get("RestartCount", 0) == 0, f"migrate restarted {migrate.get('RestartCount')} times")
    finished = state["FinishedAt"]
    for service in APP_SERVICES:
        for container in by_service[service]:
            expect(container["State"]["StartedAt"] >= finished, f"{container['Name']} started before migrate finished")
    logs = podman("logs", migrate["Name"]).stdout + podman("logs", migrate["Name"]).stderr
    applied = logs.count(" OK")
    say(
        f"   migrate exited 0 once ({applied} migrations applied this time); web, streams, "
        f"{len(by_service['worker'])} workers and beat started after it finished"
    )


def play_a_game(web: str, streams: str) -> tuple[str, int]:
    sessions = []
    for _ in range(2):
        session = requests.Session()
        body = {"username": f"ic{uuid.uuid4().hex[:10]}", "password": "a-long-pass-1"}
        answer = session.post(web + "/api/accounts", json=body, timeout=60)
        expect(answer.status_code == 201, f"POST /api/accounts: {answer.status_code} {answer.text[:300]}")
        session.headers["Authorization"] = f"Token {answer.json()['token']}"
        session.username = body["username"]
        sessions.append(session)
    seats = [session.username for session in sessions]
    answer = sessions[0].post(web + "/api/games", json={"engine": "nine-card", "seats": seats}, timeout=30)
    expect(answer.status_code == 201, f"POST /api/games: {answer.status_code} {answer.text[:300]}")
    game = answer.json()["id"]
    if answer.json()["status"] == "open":
        accepted = sessions[1].post(f"{web}/api/games/{game}/accept", timeout=30)
        expect(accepted.status_code == 200, f"accept: {accepted.status_code} {accepted.text[:300]}")
    moves = 0
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        status = sessions[0].get(f"{web}/api/games/{game}", timeout=30).json()["status"]
        if status == "finished":
            break
        acted = False
        for session in sessions:
            legal = session.get(f"{web}/api/games/{game}/legal-moves", timeout=30).json().get("moves", [])
            if not legal:
                continue
            body = {"move": legal[0], "idempotency_key": uuid.uuid4().hex}
            verdict = session.post(f"{web}/api/games/{game}/moves", params={"wait": 10}, json=body, timeout=60)
            expect(verdict.status_code in (200, 202, 422), f"move: {verdict.status_code} {verdict.text[:300]}")
            if verdict.status_code == 200 and verdict.json().get("status") == "accepted":
                moves += 1
            acted = True
        if not acted:
            time.sleep(0.2)
    expect(status == "finished", f"game {game} not finished after 300 s ({moves} moves)")
    # the streams pool: the finished game's stream, from the start, as NDJSON
    with sessions[0].get(
        f"{streams}/api/games/{game}/stream", params={"format": "ndjson"}, stream=True, timeout=30
    ) as answer:
        expect(answer.status_code == 200, f"streams pool: {answer.status_code} {answer.text[:300]}")
        first = next(line for line in answer.iter_lines() if line)
    say(f"   streams pool :{streams.rsplit(':', 1)[1]} streamed it: {first[:100].decode(errors='replace')}...")
    return game, moves


def events_of(web: str, game: str, token_session: requests.Session | None = None) -> int:
    answer = requests.get(f"{web}/api/games/{game}/record", timeout=30)
    expect(answer.status_code == 200, f"record of {game}: {answer.status_code} {answer.text[:300]}")
    return len([line for line in answer.text.splitlines() if line.strip()])


def check_workers_decided(game: str) -> None:
    deciding = []
    for container in containers():
        if service_of(container) == "worker":
            name = container["Names"][0]
            logs = podman("logs", name).stdout + podman("logs", name).stderr
            if game in logs:
                deciding.append(name)
    expect(deciding, f"no worker's log names game {game}")
    say(f"   the game's moves were decided by {', '.join(deciding)} (their JSON logs carry its game_id)")


def check_health_everywhere() -> None:
    states = {}
    for container in containers():
        name, service = container["Names"][0], service_of(container)
        if service == "migrate":
            continue
        done = podman("healthcheck", "run", name, check=False, quiet=True, timeout=60)
        states[name] = "healthy" if done.returncode == 0 else f"unhealthy ({done.stdout.strip()[:200]})"
    expect(all(v == "healthy" for v in states.values()), f"health checks: {states}")
    say("   " + ", ".join(f"{n}" for n in sorted(states)) + ": health check passed")
    (beat,) = [c["Names"][0] for c in containers() if service_of(c) == "beat"]
    logs = podman("logs", beat).stdout + podman("logs", beat).stderr
    expect("beat: Starting" in logs, "beat's log does not say it started")


def check_processes_not_root() -> None:
    for container in containers():
        if service_of(container) in APP_SERVICES:
            uid = podman("exec", container["Names"][0], "id", "-u").stdout.strip()
            expect(uid == "10001", f"{container['Names'][0]} runs as uid {uid}")


def check_metrics(web: str, token: str) -> None:
    refused = requests.get(web + "/metrics", timeout=30)
    answer = requests.get(web + "/metrics", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    expect(refused.status_code == 403, f"/metrics without the token: {refused.status_code}")
    expect(answer.status_code == 200 and "kifu_celery_queue_length" in answer.text, f"/metrics: {answer.status_code}")
    lines = [line for line in answer.text.splitlines() if line.startswith("kifu_") and "queue_length" in line]
    say(f"   /metrics: 403 without the token, 200 with it ({lines[0] if lines else ''})")


def check_static(web: str) -> None:
    (name,) = [c["Names"][0] for c in containers() if service_of(c) == "web"]
    path = podman("exec", name, "sh", "-c", "cd /opt/kifu/static && find . -name '*.css' | head -1").stdout.strip()
    expect(bool(path), "no stylesheet in /opt/kifu/static")
    answer = requests.get(f"{web}/static/{path[2:]}", headers={"Accept-Encoding": "gzip"}, timeout=30)
    expect(answer.status_code == 200, f"/static/{path[2:]}: {answer.status_code}")
    say(f"   /static/{path[2:]}: 200 ({answer.headers.get('Content-Encoding', 'identity')}) from the image's files")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--state", default="/var/tmp/kifu-imagecheck", help="podman storage, tools, project")
    parser.add_argument("--python-image", help="base image (default: one made here from Debian's packages)")
    parser.add_argument("--postgres-image", help="default: built here from Debian's postgresql-15")
    parser.add_argument("--redis-image", help="default: built here from Debian's redis-server")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rebuild-base", action="store_true")
    parser.add_argument("--keep", action="store_true", help="leave the stack running and its volumes")
    args = parser.parse_args()
    if os.geteuid() != 0 or not shutil.which("podman"):
        say("imagecheck needs root and podman (apt-get install podman runc mmdebstrap)")
        return 2
    started = time.monotonic()
    state = Path(args.state)
    state.mkdir(parents=True, exist_ok=True)
    ticker = HealthTicker()
    compose = None
    try:
        with step("podman configured for this run (state in " + str(state) + ")"):
            configure(state)
            compose_binary = tools(state)
            say("   " + run(str(compose_binary), "--version").stdout.strip().replace("\n", "; "))
        images = {"postgres": args.postgres_image or LOCAL_POSTGRES, "redis": args.redis_image or LOCAL_REDIS}
        if not args.python_image or not (args.postgres_image and args.redis_image):
            with step("base images from Debian bookworm's packages"):
                local_base(state, args.rebuild_base)
                build_local_service_images()
        with step("image built (Dockerfile, PYTHON_IMAGE=" + (args.python_image or LOCAL_BASE) + ")"):
            build_image(args.python_image or LOCAL_BASE)
        with step("image runs as kifu, static files collected at build time"):
            check_image()
        values = project(state, images, args.workers)
        compose = Compose(compose_binary, state / "project")
        web = f"http://127.0.0.1:{values['KIFU_WEB_PORT']}"
        streams = f"http://127.0.0.1:{values['KIFU_STREAMS_PORT']}"
        compose("down", "-v", check=False)  # what an interrupted earlier run left
        ticker.start()
        with step(f"compose up: postgres and redis healthy, migrate, web, streams, {args.workers} workers, beat"):
            up(compose)
            wait_ready(web, 180)
        with step("migrate ran once and the app waited for it"):
            check_migrate_ran_once()
        with step("/readyz 200 through the web and the streams containers"):
            for url in (web, streams):
                say(f"   {url}/readyz: {json.dumps(wait_ready(url, 60))[:160]}")
        with step("a Nine Card game played through the API; the streams pool streams it"):
            game, moves = play_a_game(web, streams)
            events = events_of(web, game)
            say(f"   game {game}: {moves} moves accepted, finished, {events} events in its record")
        with step("workers decided the moves"):
            check_workers_decided(game)
        with step("every container's health check passes (beat, workers too); processes run as uid 10001"):
            check_health_everywhere()
            check_processes_not_root()
        with step("/metrics and /static served by the web container"):
            check_metrics(web, values["KIFU_METRICS_TOKEN"])
            check_static(web)
        with step("down, up again: the game is still there (named volume pgdata), kifu verify --all passes"):
            compose("down")
            expect(not containers(), "containers left after down")
            up(compose)
            wait_ready(web, 180)
            again = events_of(web, game)
            expect(again == events, f"{events} events before down, {again} after")
            (name,) = [c["Names"][0] for c in containers() if service_of(c) == "web"]
            verified = podman("exec", name, "python", "manage.py", "kifu", "verify", "--all", timeout=300)
            said = verified.stdout.strip().splitlines()
            expect(any("games verified" in line for line in said), f"kifu verify said: {said}")
            say(f"   {again} events of game {game} after down/up; kifu verify --all: {'; '.join(said[-2:])}")
            (migrate,) = [c["Names"][0] for c in containers() if service_of(c) == "migrate"]
            logs = podman("logs", migrate).stdout
            expect("No migrations to apply" in logs, f"migrate the second time: {logs[-500:]}")
            say("   migrate ran again and had nothing to apply")
    except CheckFailed as failure:
        say(f"FAILED: {failure}")
        for container in containers():
            name = container["Names"][0]
            say(f"   {name}: {container['State']} {container.get('Status', '')}")
        return 1
    finally:
        ticker.stopping.set()
        if compose is not None and not args.keep:
            compose("down", "-v", timeout=300, check=False)
    say(f"\nimagecheck passed: {len(checked)} checks in {time.monotonic() - started:.0f} s")
    for what, took in checked:
        say(f"  {took:5.0f} s  {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
