"""What the fuzz tests ran, one JSON line per case into ``KIFU_FUZZ_REPORT`` when it is set: the
operation, the kind of case and the status it got. ``bin/fuzz`` sets it and sums the lines up."""

from __future__ import annotations

import json
import os


def record_case(operation: str, mode: str, status: int) -> None:
    path = os.environ.get("KIFU_FUZZ_REPORT")
    if path:
        with open(path, "a") as report:
            report.write(json.dumps({"operation": operation, "mode": mode, "status": status}) + "\n")
