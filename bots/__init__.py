"""Reference bots for Kifu, written against kifu_client: random and heuristic bots (one strategy
per game in ``bots/heuristics``), the arena that runs them over HTTP, and ``bots.inprocess`` to
measure them against the pure engines."""
