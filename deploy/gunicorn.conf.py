"""gunicorn settings shared by the web and streams pools (``gunicorn -c deploy/gunicorn.conf.py``).

Bind address, workers and threads stay on the command line (they differ per pool). This file sets the
keep-alive timeout and keeps /metrics right when several processes serve it: with ``PROMETHEUS_MULTIPROC_DIR`` set
(kifu/metrics.py), each process writes its samples to files there and a scrape sums them; a worker
that exits is marked dead so its live gauges (open streams) stop counting. With
``KIFU_LOG_FORMAT=json``, gunicorn's own lines (its error and access logs) are JSON like Kifu's.
"""

import os

# gunicorn 27's control socket ($HOME/.gunicorn/gunicorn.ctl) is unused here, and the web and streams
# pools of one host would share its path; the kifu user's home may not be writable either.
control_socket_disable = True

# Keep an idle keep-alive connection open longer than the clients that reuse it: gunicorn's default
# (2 s) closes it while a bot or a proxy still holds it in its pool (httpx keeps one 5 s, nginx's
# upstream pool 60 s), and a request sent as the close crosses it is reset ("Connection reset by
# peer": seen in the generated-client test on a loaded machine). The gthread workers park idle
# connections in their poller, so this costs a file descriptor each, not a thread.
keepalive = 75

if os.environ.get("KIFU_LOG_FORMAT", "").strip().lower() == "json":
    from kifu.logcontext import JSON_FORMATTER

    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": JSON_FORMATTER},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json"}},
        "loggers": {
            "gunicorn.error": {"handlers": ["console"], "level": "INFO", "propagate": False},
            "gunicorn.access": {"handlers": ["console"], "level": "INFO", "propagate": False},
        },
    }


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
