"""The embedded timer thread's hook for other apps' periodic sweeps."""

from django.test import override_settings

from games.scheduler import run_periodic

calls: list[int] = []


def bump() -> None:
    calls.append(1)


@override_settings(KIFU_EMBEDDED_PERIODIC=[("tests.store.test_scheduler.bump", 10.0)])
def test_periodic_sweeps_run_at_their_interval():
    calls.clear()
    last_run: dict[str, float] = {}
    for now in (100.0, 105.0, 109.9, 110.0, 115.0, 121.0):
        run_periodic(last_run, now)
    assert len(calls) == 3  # at 100, 110 and 121
