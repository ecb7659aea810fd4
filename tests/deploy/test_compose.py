"""The shape of deploy/compose.yaml, the Dockerfile and kifu.env.example (no Docker needed).

Compose itself is not run here (the test machines have no Docker daemon; bin/imagecheck builds the
image and runs the file with podman, as root, in 5-11 minutes); what is checked is what the
operator's guide promises: data kept in a named volume, exactly one beat, a migrate job the
others wait for, health checks and restart policies, and no secret with a default.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from kifu import health

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
SERVICES = COMPOSE["services"]
APP = {name for name, service in SERVICES.items() if "build" in service}
JOBS = {"migrate"}


def command(service) -> str:
    value = service.get("command", "")
    return " ".join(value) if isinstance(value, list) else value


def test_the_app_services_are_the_ones_the_guide_names():
    assert APP == {"migrate", "web", "streams", "worker", "beat"}
    assert {"postgres", "redis"} <= set(SERVICES)


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_every_service_restarts_and_says_when_it_is_healthy(name):
    service = SERVICES[name]
    assert service.get("restart") in ("unless-stopped", "always", "on-failure:5"), name
    check = service["healthcheck"]
    if name in JOBS:
        assert check == {"disable": True}  # a job's health is its exit status
        assert service["restart"].startswith("on-failure")  # a job that succeeded is not run again
    else:
        assert not check.get("disable") and check["test"], name
        assert {"interval", "timeout", "retries"} <= set(check), name


def test_exactly_one_beat():
    beats = [name for name, service in SERVICES.items() if re.search(r"\bbeat\b", command(service))]
    assert beats == ["beat"]
    assert SERVICES["beat"]["deploy"]["replicas"] == 1
    assert "beat" not in command(SERVICES["worker"])
    assert str(SERVICES["worker"]["deploy"]["replicas"]).startswith("${KIFU_WORKERS")  # N workers


def test_postgres_keeps_its_data_in_a_named_volume():
    mounts = SERVICES["postgres"]["volumes"]
    assert "pgdata:/var/lib/postgresql/data" in mounts
    assert "pgdata" in COMPOSE["volumes"]


def test_the_app_waits_for_the_migrate_job():
    for name in APP - JOBS:
        depends = SERVICES[name]["depends_on"]
        assert depends["migrate"] == {"condition": "service_completed_successfully"}, name
        assert depends["postgres"] == {"condition": "service_healthy"}, name
        assert depends["redis"] == {"condition": "service_healthy"}, name
    assert SERVICES["migrate"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert command(SERVICES["migrate"]) == "python manage.py migrate --noinput"
    assert not any("migrate" in command(SERVICES[name]) for name in APP - JOBS)  # nobody races it


def test_no_secret_has_a_default():
    text = (ROOT / "deploy" / "compose.yaml").read_text()
    for name in APP:  # the key comes from the env file only, where the example's value is refused
        assert "KIFU_SECRET_KEY" not in SERVICES[name]["environment"], name
    for match in re.finditer(r"\$\{POSTGRES_PASSWORD([^}]*)\}", text):
        assert match.group(1).startswith(":?"), "compose must stop when the password is unset"
    assert "POSTGRES_PASSWORD" in SERVICES["postgres"]["environment"]
    for name in APP:
        assert SERVICES[name]["env_file"] == ["kifu.env"]
    example = (ROOT / "deploy" / "kifu.env.example").read_text()
    assert re.search(r"^POSTGRES_PASSWORD=$", example, re.M)
    assert re.search(r"^KIFU_SECRET_KEY=change-me-to-a-long-random-string$", example, re.M)  # refused by kifu/env.py


def test_the_app_runs_on_the_images_paths_and_the_key_from_a_secret():
    """Found by running the file (bin/imagecheck): kifu.env.example's systemd paths and key file do
    not exist in the image, and an env file's value beats the image's ENV, so compose sets them."""
    app = COMPOSE["x-app"]
    assert app["environment"]["KIFU_STATIC_ROOT"] == "/opt/kifu/static"
    assert app["environment"]["KIFU_VAR_DIR"] == "/var/lib/kifu"
    assert app["environment"]["KIFU_CHECKPOINT_KEY_FILE"] == "/run/secrets/checkpoint_key"
    assert app["secrets"] == ["checkpoint_key"] and COMPOSE["secrets"]["checkpoint_key"]["file"] == "checkpoint.key"
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "ENV PATH=/opt/kifu/venv/bin:$PATH" in dockerfile and "KIFU_STATIC_ROOT=/opt/kifu/static" in dockerfile
    assert "--uid 10001" in dockerfile  # the owner compose.yaml tells operators to give the key file
    assert "chown 10001:10001 deploy/checkpoint.key" in (ROOT / "deploy" / "compose.yaml").read_text()
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {"deploy/kifu.env", "deploy/checkpoint.key"} <= set(ignored)
    assert {"/deploy/kifu.env", "/deploy/checkpoint.key"} <= set((ROOT / ".gitignore").read_text().split())


def test_the_metrics_tmpfs_is_writable_by_kifu():
    """runc gives a tmpfs the mode of the image's directory, owned by root: 1777 lets kifu write."""
    assert "/run/kifu-metrics" in COMPOSE["x-app"]["tmpfs"]
    assert re.search(r"chmod 1777 /run/kifu-metrics", (ROOT / "Dockerfile").read_text())


def test_the_worker_check_names_its_own_worker_without_hostname_variable():
    check = " ".join(SERVICES["worker"]["healthcheck"]["test"])
    assert "worker@$$(hostname)" in check and "$HOSTNAME" not in check
    assert "-n worker@%h" in command(SERVICES["worker"])  # %h: the same host name


def test_images_and_ports_can_be_chosen_with_todays_defaults():
    assert SERVICES["postgres"]["image"] == "${KIFU_POSTGRES_IMAGE:-postgres:16-bookworm}"
    assert SERVICES["redis"]["image"] == "${KIFU_REDIS_IMAGE:-redis:7-bookworm}"
    assert SERVICES["web"]["ports"] == ["127.0.0.1:${KIFU_WEB_PORT:-8000}:8000"]
    assert SERVICES["streams"]["ports"] == ["127.0.0.1:${KIFU_STREAMS_PORT:-8001}:8001"]
    for name in ("worker", "beat"):  # podman-compose reads replicas only in replicated mode
        assert SERVICES[name]["deploy"]["mode"] == "replicated"


def test_the_web_pools_are_probed_on_readyz():
    assert SERVICES["web"]["healthcheck"]["test"] == ["CMD", "python", "-m", "kifu.health", "http", "8000"]
    assert SERVICES["streams"]["healthcheck"]["test"] == ["CMD", "python", "-m", "kifu.health", "http", "8001"]
    assert "--bind 0.0.0.0:8001" in command(SERVICES["streams"])


def test_kifu_env_example_documents_every_setting():
    settings_text = (ROOT / "kifu" / "settings.py").read_text()
    read = set(re.findall(r"\"(KIFU_[A-Z_]+)\"", settings_text)) | {"DATABASE_URL", "REDIS_URL"}
    read = {name for name in read if not name.startswith("KIFU_TEST_")} - {"KIFU_EMBEDDED_PERIODIC"}  # not for servers
    example = (ROOT / "deploy" / "kifu.env.example").read_text()
    documented = set(re.findall(r"^#?([A-Z_]+)=", example, re.M))
    assert read - documented == set()


def test_the_dockerfile_builds_in_two_stages_as_a_plain_user():
    text = (ROOT / "Dockerfile").read_text()
    assert len(re.findall(r"^FROM ", text, re.M)) == 2
    assert "pip install -r /tmp/requirements.txt" in text
    assert re.search(r"^RUN .*\n?.*collectstatic --noinput", text, re.M)
    users = re.findall(r"^USER (\S+)", text, re.M)
    assert users and users[-1] not in ("root", "0")
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", "deploy/kifu.env"} <= set(ignored)


def test_requirements_are_pinned():
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            assert re.match(r"^[A-Za-z0-9_.\-\[\]]+==[0-9][^\s]*$", line), line


# ---- the container health checks themselves --------------------------------------------------------
def test_beat_probe_wants_a_fresh_schedule_file(tmp_path, monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    schedule = tmp_path / "celerybeat-schedule"
    assert "no schedule file" in health.probe_beat(str(schedule))
    (tmp_path / "celerybeat-schedule.db").write_bytes(b"")
    assert health.probe_beat(str(schedule)) is None
    later = schedule.with_suffix(".db").stat().st_mtime + health.BEAT_STALE_SECONDS + 1
    assert "last written" in health.probe_beat(str(schedule), now=later)


def test_beat_probe_wants_redis(tmp_path, monkeypatch):
    from tests.deploy.test_health import closed_port_url

    (tmp_path / "celerybeat-schedule").write_bytes(b"")
    monkeypatch.setenv("REDIS_URL", closed_port_url())
    assert "did not answer PING" in health.probe_beat(str(tmp_path / "celerybeat-schedule"))


def test_http_probe_reports_what_readyz_said(capsys):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    answers = [503, 200]

    class Readyz(BaseHTTPRequestHandler):
        def do_GET(self):
            assert self.path == "/readyz"
            self.send_response(answers.pop(0))
            self.end_headers()
            self.wfile.write(b'{"code": "redis_unreachable"}')

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Readyz)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = str(server.server_address[1])
        assert health.main(["http", port]) == 1
        said = capsys.readouterr().out
        assert "503" in said and "redis_unreachable" in said
        assert health.main(["http", port]) == 0
    finally:
        server.shutdown()
        server.server_close()
    assert health.main(["http", port]) == 1  # nothing listens any more
    assert "did not answer" in capsys.readouterr().out
    assert health.main(["http", "x"]) == 2


def test_the_systemd_units_and_nginx_use_the_probes():
    deploy = ROOT / "deploy"
    for unit, port in (("kifu-web.service", 8000), ("kifu-streams.service", 8001)):
        text = (deploy / unit).read_text()
        assert f"http://127.0.0.1:{port}/readyz" in text and "ExecStartPost=" in text, unit
        assert "-c deploy/gunicorn.conf.py" in text, unit
        assert "manage.py migrate" not in text, unit  # kifu-migrate.service does it, once
    for unit in ("kifu-web.service", "kifu-streams.service", "kifu-worker.service", "kifu-beat.service"):
        text = (deploy / unit).read_text()
        assert "After=" in text and "kifu-migrate.service" in text and "Restart=always" in text, unit
    assert "manage.py migrate --noinput" in (deploy / "kifu-migrate.service").read_text()
    nginx = (deploy / "nginx.conf").read_text()
    assert re.search(r"location ~ \^/\(healthz\|readyz\|metrics\)\$ \{[^}]*deny all;", nginx)
    assert "max_fails=3" in nginx


def test_compose_itself_accepts_the_file(tmp_path):
    """`config` parses, merges and interpolates the file as `up` would (no daemon needed); without
    the password it stops and says so. Skipped where no compose is installed (v1 predates the
    top-level `name`, so it checks the rest)."""
    import shutil
    import subprocess

    text = (ROOT / "deploy" / "compose.yaml").read_text()
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        argv = ["docker", "compose"]
    elif shutil.which("docker-compose"):
        argv, text = ["docker-compose"], text.replace("\nname: kifu\n", "\n")
    else:
        pytest.skip("no docker compose or docker-compose here")
    (tmp_path / "compose.yaml").write_text(text)
    example = (ROOT / "deploy" / "kifu.env.example").read_text()
    env_file = tmp_path / "kifu.env"
    env_file.write_text(example.replace("\nPOSTGRES_PASSWORD=\n", "\nPOSTGRES_PASSWORD=s3cretpassw0rd\n"))
    base = [*argv, "--env-file", str(env_file), "-f", str(tmp_path / "compose.yaml"), "config"]
    done = subprocess.run(base, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    resolved = yaml.safe_load(done.stdout)["services"]
    assert resolved["web"]["environment"]["DATABASE_URL"] == "postgres://kifu:s3cretpassw0rd@postgres:5432/kifu"
    assert (
        resolved["worker"]["environment"]["KIFU_SECRET_KEY"] == "change-me-to-a-long-random-string"
    )  # refused at start
    env_file.write_text(example)  # POSTGRES_PASSWORD= (empty)
    refused = subprocess.run(base, capture_output=True, text=True, cwd=tmp_path)
    assert refused.returncode != 0 and "set POSTGRES_PASSWORD" in refused.stderr
