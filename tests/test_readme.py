"""The README's contents list is its ``##`` headings, in order, with working anchors.

Regenerate it after adding or renaming a section: ``.venv/bin/python -m tests.test_readme``
prints the list to paste under "## Contents"."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
CONTENTS = "## Contents"


def headings(text: str) -> list[str]:
    """The ``##`` headings outside fenced code blocks, without the contents list's own."""
    found, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("## ") and line != CONTENTS:
            found.append(line[3:].strip())
    return found


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def contents(text: str) -> str:
    return "\n".join(f"- [{heading.replace('`', '')}](#{anchor(heading)})" for heading in headings(text))


def listed(text: str) -> str:
    """The list under "## Contents", up to the next blank line."""
    assert text.count(CONTENTS + "\n") == 1, "the README has one contents list"
    after = text.split(CONTENTS + "\n", 1)[1].lstrip("\n")
    return after.split("\n\n", 1)[0]


def test_the_contents_list_every_section_in_order():
    text = README.read_text()
    assert len(headings(text)) >= 10
    assert listed(text) == contents(text), "regenerate: .venv/bin/python -m tests.test_readme"


def test_the_contents_come_first():
    text = README.read_text()
    assert text.index(CONTENTS) < text.index("\n## ", text.index(CONTENTS) + 1)
    assert text.index(CONTENTS) < 1500


def test_anchors_follow_github():
    assert anchor("Set up (two commands)") == "set-up-two-commands"
    assert anchor("Game records and the `kifu` command") == "game-records-and-the-kifu-command"
    assert anchor("Live play: streams, client and bots") == "live-play-streams-client-and-bots"


if __name__ == "__main__":
    print(contents(README.read_text()))
