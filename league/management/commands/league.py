"""``manage.py league``: apply due ladder deadlines, verify ladder logs, rebuild projections."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from games.errors import ServiceError
from league import services
from league.models import Ladder


class Command(BaseCommand):
    help = "Ladder upkeep: sweep (deadlines and inactivity; beat runs it on the real stack), verify, rebuild."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        sub.add_parser("sweep", help="apply every deadline and inactivity drop due now (cron it in embedded mode)")
        verify = sub.add_parser("verify", help="check each ladder's hash chain and standings against its log")
        verify.add_argument("ladder", nargs="*", type=int, help="ladder ids (default: all)")
        rebuild = sub.add_parser("rebuild", help="rebuild standings and rating history from the log")
        rebuild.add_argument("ladder", nargs="+", type=int)

    def handle(self, *args, action: str, **options):
        if action == "sweep":
            self.stdout.write(f"{services.ladders_sweep()} event(s) appended")
            return
        if action == "rebuild":
            self._check_ladders(options["ladder"])
            for ladder_id in options["ladder"]:
                try:
                    services.ladder_rebuild(ladder_id=ladder_id)
                except ServiceError as error:
                    raise CommandError(f"ladder {ladder_id}: {error.code}: {error.message}") from None
                self.stdout.write(f"ladder {ladder_id} rebuilt")
            return
        ladders = Ladder.objects.all()
        if options["ladder"]:
            self._check_ladders(options["ladder"])
            ladders = ladders.filter(pk__in=options["ladder"])
        failed = 0
        for ladder in ladders.order_by("pk"):
            report = services.ladder_verify(ladder=ladder)
            failed += not report["ok"]
            self.stdout.write(json.dumps(report))
        if failed:
            raise CommandError(f"{failed} ladder(s) failed verification")

    def _check_ladders(self, ids: list[int]) -> None:
        """Refuse the whole command, before it changes anything, if any id names no ladder."""
        missing = sorted(set(ids) - set(Ladder.objects.filter(pk__in=ids).values_list("pk", flat=True)))
        if missing:
            raise CommandError(f"no ladder with id {', '.join(map(str, missing))}; `league verify` lists every ladder")
