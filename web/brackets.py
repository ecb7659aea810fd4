"""Elimination brackets as inline SVG geometry: boxes for the matches, elbow lines to the next match.

The bracket itself (which match feeds which) is ``league.scoring.elimination``'s match graph; this
module only places it on a page and fills the slots from the tournament's boards, server side, so
the page needs no script. ``draw`` returns plain data; ``web/_bracket.html`` writes the SVG.

Layout: one column per round of each section (winners bracket, then the losers bracket below it),
a match centred on the matches that feed it within its section (a first-round match, or a losers
match fed only by drops from the winners bracket, takes the next free row). The grand final stands
right of both sections, level with its feeders; a third-place match sits under the final.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from league.scoring.elimination import BracketMatch, Source
from league.tournaments.bracket_state import winner_slot  # the league's rule: a tie goes to the better seed

BOX_W, BOX_H = 150, 44  # one match: two rows of 22
COL_W = BOX_W + 32  # room for the elbow lines between columns
ROW_H = BOX_H + 22  # a first-round match every ROW_H
TOP = 32  # room for the column headings
SECTION_GAP = 40
NAME_CHARS = 16


class _Empty:
    """An empty line of the bracket (a seed above the field): the other player has a bye."""


EMPTY = _Empty()


@dataclass
class Slot:
    text: str  # a player's name, or where the player will come from ("Winner of W1-2")
    seed: int | None = None
    score: str = ""
    won: bool = False
    lost: bool = False
    known: bool = False  # a real player (not a placeholder, not a bye)


@dataclass
class Box:
    id: str
    bracket: str
    x: int
    y: int
    slots: list[Slot]
    state: str  # "done" | "playing" | "waiting" | "bye" | "empty" | "skipped"
    href: str = ""
    note: str = ""  # how it was decided when not by play (forfeit, correction)

    @property
    def rows(self) -> list[tuple[int, Slot]]:
        """(text baseline y, slot) for the template."""
        return [(self.y + 15 + 22 * index, slot) for index, slot in enumerate(self.slots)]

    @property
    def divider(self) -> int:
        return self.y + BOX_H // 2

    @property
    def right(self) -> int:
        return self.x + BOX_W


@dataclass
class Heading:
    x: int
    y: int
    text: str


@dataclass
class Bracket:
    width: int
    height: int
    boxes: list[Box]
    lines: list[str]  # SVG polyline points
    headings: list[Heading] = field(default_factory=list)
    box_w: int = BOX_W
    box_h: int = BOX_H


def short(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def points_text(value) -> str:
    """1.0 -> "1", 0.5 -> "½", 2.5 -> "2½" (a result as score sheets write it); other fractions
    (placement points such as 2/3) to two decimals: 0.67."""
    if value is None:
        return ""
    if float(value).is_integer():
        return f"{int(value)}"
    if (value * 2).is_integer():
        whole = int(value)
        return f"{whole}½" if whole else "½"
    return f"{value:.2f}".rstrip("0")


def round_titles(matches: Sequence[BracketMatch]) -> dict[tuple[str, int], str]:
    """Column headings: the winners bracket counts back from the final; the losers bracket numbers
    its own rounds."""
    titles: dict[tuple[str, int], str] = {}
    winners = sorted({m.round for m in matches if m.bracket == "winners"})
    double = any(m.bracket == "losers" for m in matches)
    for index, number in enumerate(winners):
        back = len(winners) - index
        titles["winners", number] = (
            _("Winners round %(number)s") % {"number": index + 1}
            if double
            else _("Final")
            if back == 1
            else _("Semi-finals")
            if back == 2
            else _("Quarter-finals")
            if back == 3
            else _("Round %(number)s") % {"number": index + 1}
        )
    losers = sorted({m.round for m in matches if m.bracket == "losers"})
    for index, number in enumerate(losers, start=1):
        titles["losers", number] = _("Losers round %(number)s") % {"number": index}
    return titles


def draw(
    matches: Sequence[BracketMatch],
    seeds: Sequence[Hashable],
    *,
    name: Callable[[Hashable], str],
    boards: Mapping[str, object] | None = None,
    href: Callable[[object], str] | None = None,
) -> Bracket:
    """Place ``matches`` and fill their slots. ``seeds`` are the entrants best first (user ids, or
    labels such as "A1" before a playoff is seeded); ``boards`` maps a match id to its tournament
    board (``seat_ids``, ``placements``, ``points``, ``finished_at``, ``decided_by``, ``game_id``);
    ``href(board)`` is the link of a board's game."""
    boards = boards or {}
    by_id = {m.id: m for m in matches}
    seed_of = {pk: index for index, pk in enumerate(seeds, start=1)}
    outcome: dict[str, tuple | None] = {}  # id -> (winner, loser) once known
    players: dict[str, list] = {}

    def occupant(source: Source):
        if source.kind == "seed":
            return seeds[source.ref - 1] if source.ref <= len(seeds) else EMPTY
        decided = outcome.get(source.ref)
        if decided is None:
            return None
        return decided[0] if source.kind == "winner" else decided[1]

    states: dict[str, str] = {}
    for match in matches:  # the builders list every match after the matches that feed it
        a, b = occupant(match.sources[0]), occupant(match.sources[1])
        players[match.id] = [a, b]
        outcome[match.id] = None
        board = boards.get(match.id)
        if match.optional and (gf := boards.get(match.sources[1].ref)) is not None and gf.finished_at:
            if winner_slot(gf, seeds) == 0:
                states[match.id] = "skipped"
                continue
        if a is None or b is None:
            states[match.id] = "waiting"
        elif a is EMPTY and b is EMPTY:
            outcome[match.id], states[match.id] = (EMPTY, EMPTY), "empty"
        elif a is EMPTY or b is EMPTY:
            outcome[match.id], states[match.id] = ((b, a) if a is EMPTY else (a, b)), "bye"
        elif board is not None and board.finished_at is not None:
            slot = winner_slot(board, seeds)
            outcome[match.id], states[match.id] = ((a, b) if slot == 0 else (b, a)), "done"
        else:
            states[match.id] = "playing" if board is not None else "waiting"

    # ---- where each box goes ------------------------------------------------------------------
    position: dict[str, tuple[int, int]] = {}
    sections = [s for s in ("winners", "losers") if any(m.bracket == s for m in matches)]
    columns = {s: sorted({m.round for m in matches if m.bracket == s}) for s in sections}
    top, bottom = TOP, TOP
    for section in sections:
        free = 0
        for match in (m for m in matches if m.bracket == section):
            feeders = [
                position[s.ref][1]
                for s in match.sources
                if s.kind == "winner" and s.ref in position and by_id[s.ref].bracket == section
            ]
            if feeders:
                y = sum(feeders) // len(feeders)
            else:
                y = top + free * ROW_H
                free += 1
            position[match.id] = (columns[section].index(match.round) * COL_W, y)
        bottom = max(y for mid, (_, y) in position.items() if by_id[mid].bracket == section) + BOX_H
        top = bottom + SECTION_GAP + TOP
    last_column = max((len(c) for c in columns.values()), default=0)
    for match in (m for m in matches if m.bracket == "grand_final"):
        feeders = [position[s.ref] for s in match.sources if s.kind == "winner" and s.ref in position]
        if match.optional:  # the reset, right of the grand final
            x, y = position[match.sources[1].ref]
            position[match.id] = (x + COL_W, y)
        else:
            y = sum(f[1] for f in feeders) // len(feeders) if feeders else TOP
            position[match.id] = (last_column * COL_W, y)
    for match in (m for m in matches if m.bracket == "third_place"):
        final = max((m for m in matches if m.bracket == "winners"), key=lambda m: m.round)
        x, y = position[final.id]
        position[match.id] = (x, y + BOX_H + 48)

    # ---- boxes, lines, headings ---------------------------------------------------------------
    def placeholder(source: Source) -> str:
        if source.kind == "seed":
            return _("Bye")
        if source.kind == "winner":
            return _("Winner of %(match)s") % {"match": source.ref}
        return _("Loser of %(match)s") % {"match": source.ref}

    boxes, lines = [], []
    for match in matches:
        x, y = position[match.id]
        board = boards.get(match.id)
        state = states[match.id]
        winner = outcome[match.id][0] if outcome[match.id] and state == "done" else None
        slots = []
        for index, pk in enumerate(players[match.id]):
            if pk is None:
                slots.append(Slot(placeholder(match.sources[index])))
            elif pk is EMPTY:
                slots.append(Slot(_("Bye")))
            else:
                slot = Slot(short(name(pk)), seed_of.get(pk), known=True)
                if board is not None and board.finished_at is not None and board.points:
                    slot.score = points_text(board.points.get(str(pk)))
                if winner is not None:
                    slot.won, slot.lost = pk == winner, pk != winner
                slots.append(slot)
        note = ""
        if board is not None and board.decided_by in ("forfeit", "double_forfeit"):
            note = _("forfeit")
        elif board is not None and board.decided_by == "correction":
            note = _("corrected")
        link = href(board) if (href and board is not None) else ""
        boxes.append(Box(match.id, match.bracket, x, y, slots, state, link, note))
        for index, source in enumerate(match.sources):
            if source.kind != "winner" or source.ref not in position or match.optional:
                continue
            fx, fy = position[source.ref]
            start = (fx + BOX_W, fy + BOX_H // 2)
            end = (x, y + 11 + 22 * index)
            middle = (start[0] + end[0]) // 2 if end[0] > start[0] else start[0] + 12
            lines.append(f"{start[0]},{start[1]} {middle},{start[1]} {middle},{end[1]} {end[0]},{end[1]}")

    headings = []
    titles = round_titles(matches)
    seen: set[tuple[int, int]] = set()
    for match in matches:
        x, y = position[match.id]
        if match.bracket in ("winners", "losers"):
            section_top = min(position[m.id][1] for m in matches if m.bracket == match.bracket)
            key = (x, section_top)
            if key not in seen:
                seen.add(key)
                headings.append(Heading(x, section_top - 15, titles[match.bracket, match.round]))
        else:
            text = {
                "GF": _("Grand final"),
                "GF2": _("Grand final reset"),
                "3P": _("Third place"),
            }.get(match.id, match.id)
            headings.append(Heading(x, y - 15, text))
    width = max(b.right for b in boxes) + 8
    height = max(b.y for b in boxes) + BOX_H + 8
    return Bracket(width, height, boxes, lines, headings)
