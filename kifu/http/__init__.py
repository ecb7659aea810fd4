"""The HTTP kit every app's API sits on: the one error shape and its handler (``errors``), query
parameter parsing (``params``), input guards (``guards``) and rate limits (``throttles``).

It is the bottom floor of the HTTP side: it imports Django, DRF and the standard library, never an
app (games, league, hooks, api, web) - pyproject.toml's import-linter contract keeps it so. An app
whose errors should reach clients in the one shape registers them (``errors.refusal``) from its
AppConfig.ready, so the kit need not know them.
"""
