"""``kifu_client`` is a distribution of its own: it installs into a fresh virtual environment, is
typed, and carries the API's version (one file for the client, its packaging and the schema)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
import requests
from django.conf import settings

import kifu_client

CLIENT = Path(kifu_client.__file__).parent
PROBE = """
import importlib.metadata, json, pathlib, kifu_client
from kifu_client import KifuClient, KifuError
print(json.dumps({
    "file": kifu_client.__file__,
    "version": kifu_client.__version__,
    "metadata": importlib.metadata.version("kifu-client"),
    "typed": (pathlib.Path(kifu_client.__file__).parent / "py.typed").is_file(),
}))
"""


def test_the_client_version_is_the_api_version():
    version = (CLIENT / "API_VERSION").read_text().strip()
    assert kifu_client.__version__ == version == settings.SPECTACULAR_SETTINGS["VERSION"]
    assert (CLIENT / "py.typed").is_file()


@pytest.mark.parametrize("editable", [False, True], ids=["install", "editable"])
def test_pip_installs_the_client_into_a_fresh_venv(tmp_path, editable):
    """A fresh venv, pip's own isolated build (setuptools and wheel from the index, as any user's
    install); ``requests``, the one dependency, is lent from this interpreter at the *end* of the
    path, so the client itself must come from the install, not from the checkout."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    # A copy, so the build's by-products (build/, *.egg-info) stay out of the checkout.
    source = tmp_path / "kifu_client"
    shutil.copytree(CLIENT, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    target = ["-e", str(source)] if editable else [str(source)]
    install = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-deps", *target],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    lent = str(Path(requests.__file__).parent.parent)
    probe = f"import sys; sys.path.append({lent!r})\n" + PROBE
    elsewhere = tmp_path / "elsewhere"  # outside the repository and the copy
    elsewhere.mkdir()
    ran = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=60, cwd=elsewhere)
    assert ran.returncode == 0, ran.stderr
    found = json.loads(ran.stdout)
    assert found["version"] == found["metadata"] == kifu_client.__version__ and found["typed"]
    where = Path(found["file"]).resolve()
    assert where.is_relative_to(source.resolve() if editable else env_dir.resolve()), where
    assert sys.prefix not in found["file"]
