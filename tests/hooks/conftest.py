"""Webhook test fixtures: a local receiver that checks signatures."""

from __future__ import annotations

import pytest

from .receiver import Receiver


@pytest.fixture
def receiver():
    made: list[Receiver] = []

    def make(answers: list[int] | None = None) -> Receiver:
        made.append(Receiver(answers=list(answers or [])))
        return made[-1]

    yield make
    for receiver in made:
        receiver.close()
