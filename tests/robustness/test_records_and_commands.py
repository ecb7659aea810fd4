"""Record files and the ``kifu`` / ``league`` commands: every bad file is ``line L: code: message``
and a non-zero exit, never a traceback; a refused import stores nothing."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.models import Game
from games.records import RecordError, parse_record

HEADER = {"kifu": 1, "game": "nine-card", "config": {}, "seats": ["aki", "ben"]}
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
HEAD = json.dumps(HEADER)
DEALT = json.dumps(DEAL)
INFINITE = '{"kind": "move", "seat": 0, "data": {"type": "commit_card", "card": "AS", "x": 1e999}}'
BAD_SEQ = json.dumps({"kind": "move", "seat": 0, "data": {"type": "commit_card", "card": "AS"}, "seq": 9})
NOT_UTF8 = b'{"kind": "move", "seat": 0, "data": "\xff"}\n'


@pytest.mark.parametrize(
    "lines, line, code",
    [
        (["[" * 100_000 + "]" * 100_000], 1, "bad_json"),
        ([HEAD, '{"kind": "move", "seat": 0, "data": ' + "[" * 100 + "]" * 100 + "}"], 2, "too_deep"),
        ([json.dumps({**HEADER, "seats": ["a\u0000b", "ben"]})], 1, "bad_text"),
        ([json.dumps({**HEADER, "meta": {"note": "\ud800"}})], 1, "bad_text"),
        ([HEAD, DEALT, INFINITE], 3, "bad_number"),
        ([json.dumps({**HEADER, "kifu": True})], 1, "bad_header"),
        ([json.dumps({**HEADER, "kifu": 1.0})], 1, "bad_header"),
        ([json.dumps({**HEADER, "seats": ["x" * 81, "ben"]})], 1, "bad_header"),
        ([HEAD, "1" * 5000], 2, "bad_json"),
        ([HEAD, DEALT, BAD_SEQ], 3, "bad_seq"),
        ([], 1, "empty_record"),
        (["", "  "], 1, "empty_record"),
    ],
)
def test_bad_lines_are_named_by_line_and_code(lines, line, code):
    with pytest.raises(RecordError) as error:
        parse_record(lines)
    assert (error.value.line, error.value.code) == (line, code), error.value


def write_bytes(tmp_path, data: bytes) -> str:
    path = tmp_path / "game.kifu.jsonl"
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize(
    "data, expected",
    [
        ((HEAD + "\n" + DEALT + "\n").encode() + NOT_UTF8, "line 3: bad_encoding"),
        (b"\xef\xbb\xbf\xff", "line 1: bad_encoding"),
        (b"", "line 1: empty_record"),
        (HEAD.encode()[:40], "line 1: bad_json"),
        ((HEAD + "\n" + DEALT[:-1]).encode(), "line 2: bad_json"),
        ((HEAD + "\n[1, 2]\n").encode(), "line 2: bad_json"),
        (json.dumps({"kifu": 1, "game": "chess", "seats": ["a", "b"]}).encode(), "line 1: unknown_game"),
        (json.dumps({**HEADER, "config": {"commit_seconds": "soon"}}).encode(), "line 1: invalid_config"),
        (json.dumps({"kifu": 1, "seats": ["a", "b"]}).encode(), "line 1: unknown_game"),
        ((HEAD + '\n{"kind": "move", "seat": 0, "data": {"type": "commit_card", "card": "AS"}}\n').encode(), "line 2:"),
    ],
)
def test_replay_prints_line_code_message_and_exits_2(tmp_path, capsys, data, expected):
    with pytest.raises(SystemExit) as exit_:
        call_command("kifu", "replay", write_bytes(tmp_path, data))
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(expected) and "Traceback" not in err, err


def test_a_directory_or_a_missing_file_is_a_command_error(tmp_path):
    with pytest.raises(CommandError, match="is a directory"):
        call_command("kifu", "replay", str(tmp_path))
    with pytest.raises(CommandError, match="No such file"):
        call_command("kifu", "import", str(tmp_path / "nope.jsonl"))


@pytest.mark.django_db
@pytest.mark.parametrize(
    "data",
    [
        json.dumps({**HEADER, "seats": ["a\u0000b", "ben"]}).encode(),
        json.dumps({**HEADER, "meta": {"x": "\ud800"}}).encode(),
        json.dumps({**HEADER, "seats": ["y" * 200, "ben"]}).encode(),
        (HEAD + "\n" + DEALT + "\n" + INFINITE).encode(),
        (HEAD + "\n" + DEALT + '\n{"kind": "move", "seat": 0, "data": {"type": "commit_card", "card": "KS"}}').encode(),
        (HEAD + "\n" + DEALT + "\n\xff").encode("latin-1"),
    ],
)
def test_a_refused_import_exits_2_and_stores_nothing(tmp_path, capsys, data):
    with pytest.raises(SystemExit) as exit_:
        call_command("kifu", "import", write_bytes(tmp_path, data))
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith("line ")
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_export_and_verify_of_an_unknown_game_are_command_errors():
    for args in (("export", "not-a-uuid"), ("export", "00000000-0000-0000-0000-000000000000"), ("verify", "-1")):
        with pytest.raises(CommandError, match="no game"):
            call_command("kifu", *args)


@pytest.mark.django_db
@pytest.mark.parametrize("action", ["verify", "rebuild"])
def test_league_commands_name_a_missing_ladder(action, capsys):
    with pytest.raises(CommandError, match="no ladder with id 999"):
        call_command("league", action, "999")
