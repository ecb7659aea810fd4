"""The import-linter contract (pyproject.toml, run by bin/test as ``lint-imports``) names every
module of the project outside the engines, so a module added later is forbidden to them too."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_purity_contract_forbids_every_other_project_module():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c.get("source_modules") == ["games.engines"]]
    forbidden = set(contract["forbidden_modules"])
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name != "tests"}
    assert packages - {"games"} <= forbidden, packages - forbidden
    assert packages <= set(config["root_packages"]), packages - set(config["root_packages"])
    games = {
        f"games.{p.stem if p.suffix == '.py' else p.name}"
        for p in (ROOT / "games").iterdir()
        if p.name not in ("__init__.py", "engines", "__pycache__")
        and (p.suffix == ".py" or (p / "__init__.py").exists())
    }
    assert games <= forbidden, sorted(games - forbidden)
    assert {"django", "rest_framework", "celery", "redis", "psycopg"} <= forbidden
