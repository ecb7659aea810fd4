"""Every registered engine passes the generic harness, and its config is validated."""

import pytest

from games.engines import all_engines, get_engine
from games.engines.base import ConfigError, RuleError

from .harness import check_engine

ENGINES = all_engines()
# Games whose random playthroughs run to hundreds of events get fewer seeds here; their own test
# modules run the harness on the configs that matter.
SEEDS = {"turn-thief": 8, "twenty-two": 2}


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_engine_passes_harness(engine):
    check_engine(engine, seeds=SEEDS.get(engine.slug, 30))


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_unknown_config_flag_is_rejected(engine):
    with pytest.raises(ConfigError) as error:
        engine.setup({"no_such_flag": 1}, engine.min_seats)
    assert error.value.code == "unknown_config_flag"
    assert "no_such_flag" in error.value.message


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_bad_seat_count_is_rejected(engine):
    with pytest.raises(ConfigError):
        engine.setup({}, engine.max_seats + 1)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_bad_flag_values_are_rejected(engine):
    for flag in engine.flags:
        bad = "not-a-valid-value" if flag.kind != "str" else 12345
        with pytest.raises(ConfigError):
            engine.setup({flag.name: bad}, engine.min_seats)


def test_unknown_game():
    with pytest.raises(RuleError) as error:
        get_engine("chess")
    assert error.value.code == "unknown_game"
