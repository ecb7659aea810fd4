# Kifu's image: one image for every process (web, streams, worker, beat, migrate); the command says which.
#   docker build -t kifu .        (deploy/compose.yaml builds and runs it; deploy/README.md)
# Build stage: the pinned requirements into a virtualenv, and the static files collected. The final
# stage copies only those and the code, and runs as an unprivileged user.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PYTHONDONTWRITEBYTECODE=1
RUN python -m venv /opt/kifu/venv
COPY requirements.txt /tmp/requirements.txt
RUN /opt/kifu/venv/bin/pip install -r /tmp/requirements.txt
WORKDIR /src
COPY . .
# Embedded settings for this one command: the throwaway var/ (with the key generated there) stays in
# this stage; only the collected files move on.
RUN KIFU_VAR_DIR=/tmp/kifu-build KIFU_STATIC_ROOT=/opt/kifu/static \
    /opt/kifu/venv/bin/python manage.py collectstatic --noinput

FROM ${PYTHON_IMAGE}
# IPA Gothic: the printable round's PDF sets its Japanese (and every other) text in it (web/print_pdf.py).
RUN apt-get update && apt-get install -y --no-install-recommends fonts-ipafont-gothic \
    && rm -rf /var/lib/apt/lists/*
# A fixed uid/gid (10001), so files mounted from the host (compose's checkpoint key) can be given to it.
RUN groupadd --system --gid 10001 kifu \
    && useradd --system --uid 10001 --gid kifu --home-dir /srv/kifu --no-create-home --shell /usr/sbin/nologin kifu \
    && mkdir -p /var/lib/kifu /run/kifu-metrics \
    && chown kifu:kifu /var/lib/kifu /run/kifu-metrics \
    && chmod 1777 /run/kifu-metrics
# ^ compose mounts a tmpfs there (empty at each start); the runtime (runc) gives the tmpfs this
#   directory's mode but root as owner, so without 1777 kifu could not write its metrics there.
COPY --from=build /opt/kifu/venv /opt/kifu/venv
COPY --from=build /opt/kifu/static /opt/kifu/static
WORKDIR /srv/kifu/app
COPY . .
ENV PATH=/opt/kifu/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    KIFU_STATIC_ROOT=/opt/kifu/static \
    KIFU_STATIC_COLLECTED=1 \
    KIFU_VAR_DIR=/var/lib/kifu
USER kifu
EXPOSE 8000 8001
# The web pool by default; compose.yaml names the command (and the health check) of each service.
HEALTHCHECK --interval=15s --timeout=10s --start-period=30s --retries=3 CMD ["python", "-m", "kifu.health", "http", "8000"]
CMD ["gunicorn", "-c", "deploy/gunicorn.conf.py", "kifu.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "4", "--threads", "8", "--timeout", "60"]
