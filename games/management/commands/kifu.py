"""``manage.py kifu replay|import|export|verify``: game records from the command line."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from games import checkpoints
from games.engines import get_engine
from games.models import Game
from games.records import RecordError, canonical_json, replay_record


class Command(BaseCommand):
    help = "Replay, import, export and verify game records (kifu files, JSON Lines)."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        replay = sub.add_parser("replay", help="replay a record offline and print the result")
        replay.add_argument("file", help="the record file, or - for standard input")
        replay.add_argument("--at", type=int, help="stop after event N and show the state there")
        replay.add_argument("--as", dest="seat", type=int, help="show the view of this seat (default: spectator)")
        replay.add_argument("--json", action="store_true", help="print one JSON object")
        imp = sub.add_parser("import", help="validate and store a game played at a real table")
        imp.add_argument("file")
        exp = sub.add_parser("export", help="print a stored game's record")
        exp.add_argument("game")
        verify = sub.add_parser(
            "verify", help="check stored games: chain, replay, projection, seed, signed checkpoint (--all: the log too)"
        )
        verify.add_argument("game", nargs="?")
        verify.add_argument("--all", action="store_true")
        verify.add_argument(
            "--signed-head",
            metavar="FILE",
            help="a signed head the server gave when the game ended (JSON): the stored game must end there",
        )
        demo = sub.add_parser("demo", help="create the demo players (with API tokens) and games, once")
        demo.add_argument("--base-url", default="http://127.0.0.1:8000", help="where the printed links point")

    def handle(self, *args, **options):
        return getattr(self, f"do_{options['action']}")(options)

    # -- replay --
    def _lines(self, name: str) -> list[str]:
        """The file's lines; a file that is not UTF-8 is a RecordError at the first bad byte's line."""
        try:
            data = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
        except IsADirectoryError:
            raise CommandError(f"cannot read {name}: it is a directory; give a record file (JSON Lines)") from None
        except OSError as error:
            raise CommandError(f"cannot read {name}: {error.strerror or error}") from None
        try:
            return data.decode("utf-8").splitlines()
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            column = error.start - data.rfind(b"\n", 0, error.start)
            message = f"not UTF-8: byte 0x{data[error.start]:02x} at column {column}; save the file as UTF-8"
            raise RecordError(line, "bad_encoding", message) from None

    def _fail(self, error: RecordError, as_json: bool):
        if as_json:
            self.stdout.write(canonical_json({"error": error.to_json()}))
        else:
            self.stderr.write(f"line {error.line}: {error.code}: {error.message}")
        sys.exit(2)

    def do_replay(self, options):
        as_json = options["json"]
        if options["at"] is not None and options["at"] < 0:
            raise CommandError("--at must be 0 or more")
        try:
            replay = replay_record(self._lines(options["file"]), upto=options["at"])
        except RecordError as error:
            self._fail(error, as_json)
        engine, seats = replay.engine, len(replay.record.header["seats"])
        seat = options["seat"]
        if seat is not None and not 0 <= seat < seats:
            raise CommandError(f"--as must be a seat from 0 to {seats - 1}")
        outcome = replay.outcome_json()
        result = {"finished": outcome is not None, "events": replay.events, "outcome": outcome}
        if options["at"] is not None or seat is not None:
            result["view"] = engine.view(replay.state, seat)
        if as_json:
            self.stdout.write(canonical_json(result))
            return
        self.stdout.write(f"{engine.name}: {replay.events} events replayed")
        if outcome is None:
            self.stdout.write("the game is not finished")
        else:
            names = replay.record.header["seats"]
            for place, group in enumerate(outcome["ranking"], start=1):
                self.stdout.write(f"{place}. " + ", ".join(f"{names[s]} (seat {s})" for s in group))
            self.stdout.write(f"scores: {json.dumps(outcome['scores'])}")
        if "view" in result:
            self.stdout.write(json.dumps(result["view"], indent=2, ensure_ascii=False))

    # -- import / export --
    def do_import(self, options):
        from games.record_io import record_import

        try:
            game = record_import(lines=self._lines(options["file"]))
        except RecordError as error:
            self._fail(error, False)
        self.stdout.write(f"imported {game.engine} game {game.pk} ({game.head_seq} events, {game.status})")

    def do_export(self, options):
        from games.record_io import record_export

        game = self._game(options["game"])
        self.stdout.write(record_export(game=game), ending="")

    def _game(self, game_id: str) -> Game:
        try:
            game = Game.objects.filter(pk=uuid.UUID(game_id)).first()
        except ValueError:
            game = None
        if game is None:
            raise CommandError(f"no game {game_id!r}")
        return game

    # -- demo --
    def do_demo(self, options):
        from games.demo import DEMO_PASSWORD, demo_games, demo_load

        tokens = demo_load()
        self.stdout.write(f"demo players (password {DEMO_PASSWORD!r}) and their API tokens:")
        for name, token in tokens.items():
            self.stdout.write(f"  {name:6} {token}")
        base = options["base_url"].rstrip("/")
        finished, running = demo_games()
        if finished is not None:
            self.stdout.write(f"a finished demo game, step through it: {base}/games/{finished.pk}/replay")
        if running is not None:
            self.stdout.write(f"a running demo game (log in as ben to play): {base}/games/{running.pk}/play")
            ben = tokens["ben"]
            self.stdout.write("first command to try - that game as ben sees it (his own hand, not chie's):")
            self.stdout.write(f'  curl -s -H "Authorization: Token {ben}" {base}/api/games/{running.pk}/state')

    # -- verify --
    def _signed_head(self, path: str) -> object:
        try:
            return json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise CommandError(f"cannot read the signed head {path}: {error}") from None

    def do_verify(self, options):
        from games.record_io import game_verify

        if options["all"] == bool(options["game"]):
            raise CommandError("give one game id, or --all")
        if options["signed_head"] and options["all"]:
            raise CommandError("--signed-head checks one game: give its id, not --all")
        signed_head = self._signed_head(options["signed_head"]) if options["signed_head"] else None
        games = Game.objects.all().order_by("created_at") if options["all"] else [self._game(options["game"])]
        failed = 0
        total = len(games) if not options["all"] else games.count()
        for game in tqdm(games, total=total, desc="verifying", unit="game", file=sys.stderr, disable=total < 2):
            get_engine(game.engine)
            report = game_verify(game=game)
            problems = list(report.problems)
            if signed_head is not None:
                problems += checkpoints.head_signed_problems(signed_head, game=game)
            if problems:
                failed += 1
                self.stdout.write(f"FAIL {game.pk}: " + "; ".join(problems))
            elif total == 1:
                signed = {
                    True: ", and so does its signed checkpoint",
                    None: "; it is in no signed checkpoint yet",
                }[report.checkpoint_ok]
                if signed_head is not None:
                    signed += f"; it ends at event {game.head_seq}, where the server signed its head"
                self.stdout.write(
                    f"ok {game.pk}: {report.events} events, chain, replay and projection check out{signed}"
                )
        self.stdout.write(f"{total - failed} of {total} games verified" + (f", {failed} failed" if failed else ""))
        log_problems = checkpoints.log_verify() if options["all"] else []
        for problem in log_problems:
            self.stdout.write(f"FAIL checkpoint log: {problem}")
        if options["all"]:
            self.stdout.write(f"checkpoint log: {'ok' if not log_problems else f'{len(log_problems)} problems'}")
        if failed or log_problems:
            sys.exit(1)
