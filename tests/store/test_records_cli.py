"""The ``kifu`` management command: replay, import and its errors."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.models import Game

HEADER = {"kifu": 1, "game": "nine-card", "rules_version": "1", "config": {}, "seats": ["aki", "ben"]}
DEAL = {
    "kind": "chance",
    "data": {
        "type": "deal",
        "hands": [
            ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"],
            ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H"],
        ],
        "set_aside": [["10S", "JS", "QS", "KS"], ["10H", "JH", "QH", "KH"]],
    },
}


def write(tmp_path, *lines) -> str:
    path = tmp_path / "game.kifu.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return str(path)


def commit(seat, card):
    return {"kind": "move", "seat": seat, "data": {"type": "commit_card", "card": card}}


def test_replay_prints_the_outcome(tmp_path, capsys):
    moves = [commit(0, "AS"), commit(1, "9H"), commit(0, "2S"), commit(1, "8H"), commit(0, "3S"), commit(1, "7H")]
    call_command("kifu", "replay", write(tmp_path, HEADER, DEAL, *moves), "--json")
    result = json.loads(capsys.readouterr().out)
    assert result["finished"] is False and result["events"] == 7
    call_command(
        "kifu",
        "replay",
        write(tmp_path, HEADER, DEAL, *moves, {"kind": "system", "data": {"type": "resign", "seat": 0}}),
        "--json",
    )
    result = json.loads(capsys.readouterr().out)
    assert result["finished"] and result["outcome"]["ranking"] == [[1], [0]]


def test_replay_reports_the_first_bad_line(tmp_path, capsys):
    path = write(tmp_path, HEADER, DEAL, commit(0, "AS"), commit(0, "2S"), commit(1, "AH"))
    with pytest.raises(SystemExit) as exit_:
        call_command("kifu", "replay", path, "--json")
    assert exit_.value.code == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["line"] == 4 and error["code"] == "already_committed"


@pytest.mark.parametrize(
    "header, code",
    [
        ({**HEADER, "game": "chess"}, "unknown_game"),
        ({**HEADER, "config": {"speed": 3}}, "unknown_config_flag"),
        ({**HEADER, "rules_version": "9"}, "rules_version_mismatch"),
        ({**HEADER, "seats": ["only-one"]}, "bad_seat_count"),
        ({**HEADER, "kifu": 2}, "bad_header"),
    ],
)
def test_bad_headers_are_reported_on_line_1(tmp_path, capsys, header, code):
    with pytest.raises(SystemExit):
        call_command("kifu", "replay", write(tmp_path, header, DEAL), "--json")
    error = json.loads(capsys.readouterr().out)["error"]
    assert (error["line"], error["code"]) == (1, code)


def test_replay_as_a_seat_at_an_event(tmp_path, capsys):
    call_command("kifu", "replay", write(tmp_path, HEADER, DEAL, commit(0, "AS")), "--at", "2", "--as", "1", "--json")
    view = json.loads(capsys.readouterr().out)["view"]
    assert view["players"][0]["hand"] is None and view["players"][0]["committed"] is True
    assert "AS" not in json.dumps(view)


def test_unreadable_file_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        call_command("kifu", "replay", str(tmp_path / "missing.jsonl"))


@pytest.mark.django_db
def test_import_stores_a_valid_record_and_refuses_a_bad_one(tmp_path, capsys):
    call_command("kifu", "import", write(tmp_path, HEADER, DEAL, commit(0, "AS")))
    assert "imported nine-card game" in capsys.readouterr().out
    assert Game.objects.filter(source="imported").count() == 1
    with pytest.raises(SystemExit) as exit_:
        call_command("kifu", "import", write(tmp_path, HEADER, DEAL, commit(0, "KS")))
    assert exit_.value.code == 2
    assert "line 3: card_not_in_hand" in capsys.readouterr().err
    assert Game.objects.filter(source="imported").count() == 1
