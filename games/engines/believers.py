"""The Believers (ビリーバーズ): a co-operative UFO-believer storytelling skeleton and its final ritual.

Implements ``shared/rules/believers.md`` (seed 001). The seed only summarises Chris Bennett's
one-sheet rules (the PDF is not in it), so most of this engine is the spec's PLACEHOLDER skeleton,
not the designer's procedure: players tell the story (``contribute``), agree to begin the final
ritual (``propose_final_ritual`` / ``agree_final_ritual``, or a session timer), then every player
decides at once, hands forward, to ``depart`` with the aliens or ``stay`` on Earth
(``commit_choice``). Stated by the source: the two options, each player decides, no winner, no
loser, no goal. The sealed simultaneous reveal is inferred (``ritual_reveal = open`` otherwise).

Hidden information is only the sealed ritual answers. A committed answer is shown, to whoever may
see it, together with its answer id ``seat<N>-<choice>`` (``seat2-depart``); ``hidden_from`` lists
the ids of the answers a seat may not see yet, so the leak scan can tell one seat's ``stay`` from
another's. The record holds the choices in full; only the live views seal them until the reveal.

Engine decisions, not rules of the source:
- ``legal_moves`` lists one representative text move per action, with the constant placeholder
  text ``"…"``; any other valid text is accepted as well.
- ``withdraw`` (platform rule: leave at any time) and the system ``resign`` are accepted from any
  active seat at any time but never listed; the seat's ritual answer becomes ``none``.
- ``max_contributions`` bounds the story; ``max_text_length`` bounds a text;
  ``ritual_choice_seconds`` (0 = none) closes the ritual, recording ``none`` for the late seats.
- There is no ranking (stated): every finished game ranks all seats together with no scores.
- ``private_notes`` is kept for the platform (a notepad UI); the engine stores no notes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import text
from .base import (
    ID_LENGTH,
    Action,
    ConfigError,
    Deadline,
    Engine,
    Flag,
    IllegalMove,
    NotYourTurn,
    Outcome,
    Param,
    UnexpectedChance,
    WindowClosed,
)

MIN_SEATS = 2
MAX_SEATS = 6
CHOICES = ("depart", "stay")
NO_CHOICE = "none"
PLACEHOLDER = "…"
MAX_CONTRIBUTIONS_LIMIT = 5000
SESSION_WINDOW = "session"
RITUAL_WINDOW = "ritual"


_TEXT = Param("text", "your words (at most max_text_length characters)", max_length=100_000)


@dataclass(frozen=True)
class Line:
    """One line of the public story: a contribution or, after the reveal, an epilogue."""

    seq: int  # the event's position in the record (1-based)
    seat: int
    kind: str  # contribute | epilogue
    text: str


@dataclass(frozen=True)
class BelieversState:
    config: dict
    seats: int
    phase: str  # storytelling | final_ritual | epilogue | ended
    seq: int = 0  # events applied so far
    story: tuple[Line, ...] = ()
    contributions: int = 0
    speaker: int = 0  # round_robin: the seat whose turn it is to contribute
    proposal: bool = False
    agreed: tuple[int, ...] = ()  # seats that proposed or agreed, in order
    left: tuple[int, ...] = ()  # seats that withdrew or resigned, in order
    resigned: tuple[int, ...] = ()
    committed: tuple[str | None, ...] = ()  # the sealed answer of each seat as committed
    timed_out: tuple[int, ...] = ()  # seats still deciding when the ritual window closed
    choices: tuple[str, ...] | None = None  # the revealed result per seat (depart | stay | none)
    ritual_started_by: str | None = None  # agreement | timer


def answer_id(seat: int, choice: str) -> str:
    """The id of one seat's ritual answer: unique per seat, so a leak of it can be detected."""
    return f"seat{seat}-{choice}"


def check_text(value, name: str, limit: int) -> str:
    return text.check_text(value, name, limit, empty_code="empty_text")


class Believers(Engine):
    slug = "believers"
    name = "The Believers"
    rules_version = "1"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    # The story, then per seat at most one propose/agree, one commit, one epilogue and one
    # withdraw or resign, and one session and one ritual window close.
    max_events = MAX_CONTRIBUTIONS_LIMIT + 4 * MAX_SEATS + 2
    flags = (
        Flag(
            "min_players",
            2,
            "Fewest players. The source does not say how many play; Kifu chose 2.",
            "int",
            minimum=MIN_SEATS,
            maximum=MAX_SEATS,
        ),
        Flag(
            "max_players",
            6,
            "Most players. The source does not say how many play; Kifu chose 6.",
            "int",
            minimum=MIN_SEATS,
            maximum=MAX_SEATS,
        ),
        Flag(
            "session_minutes",
            15,
            "Session length; the timer of ritual_trigger timer/either.",
            "int",
            minimum=1,
            maximum=1440,
        ),
        Flag(
            "turn_order",
            "free",
            "Who tells the story when: free (anyone, any time) or round_robin (in seat order)."
            " The source does not say; Kifu chose free.",
            "str",
            ("free", "round_robin"),
        ),
        Flag(
            "ritual_trigger",
            "unanimous",
            "What starts the final ritual: unanimous (every player agrees), timer (session_minutes"
            " run out) or either. The source does not say; Kifu chose unanimous.",
            "str",
            ("unanimous", "timer", "either"),
        ),
        Flag(
            "ritual_reveal",
            "simultaneous",
            "Sealed answers revealed together, or called aloud.",
            "str",
            ("simultaneous", "open"),
        ),
        Flag(
            "epilogue_enabled",
            False,
            "One closing text per player after the choices are revealed. The source does not say"
            " whether anything follows the reveal; Kifu chose nothing (off).",
        ),
        Flag(
            "private_notes",
            True,
            "A private notepad per player. The source mentions memo paper but not whether notes are"
            " private; Kifu chose private, but offers no notepad yet, so this changes nothing in play.",
        ),
        Flag(
            "max_text_length",
            2000,
            "Engine addition: longest contribution or epilogue, in characters.",
            "int",
            minimum=1,
            maximum=100_000,
        ),
        Flag(
            "max_contributions",
            1000,
            "Engine addition: contributions before the story is full.",
            "int",
            minimum=1,
            maximum=MAX_CONTRIBUTIONS_LIMIT,
        ),
        Flag(
            "ritual_choice_seconds",
            0,
            "Engine addition: seconds to decide in the ritual; 0 means no limit.",
            "float",
            minimum=0,
            maximum=604_800,
        ),
    )

    def validate_config(self, config: dict | None) -> dict:
        full = super().validate_config(config)
        if full["min_players"] > full["max_players"]:
            raise ConfigError("min_players cannot exceed max_players")
        return full

    def check_config_seats(self, config: dict, seats: int) -> None:
        if not config["min_players"] <= seats <= config["max_players"]:
            raise ConfigError(
                f"this table is for {config['min_players']}-{config['max_players']} players, not {seats}",
                code="bad_seat_count",
            )

    def setup(self, config: dict | None, seats: int = 3) -> BelieversState:
        config = self.validate_setup(config, seats)
        return BelieversState(config=config, seats=seats, phase="storytelling", committed=(None,) * seats)

    def chance_due(self, state: BelieversState) -> str | None:
        return None

    def sample_chance(self, state: BelieversState, rng) -> dict:
        raise UnexpectedChance("The Believers has no chance events")

    # ---- who may act --------------------------------------------------------------------
    def _active(self, state: BelieversState) -> list[int]:
        return [s for s in range(state.seats) if s not in state.left]

    def _deciding(self, state: BelieversState) -> list[int]:
        return [s for s in self._active(state) if state.committed[s] is None and s not in state.timed_out]

    def _has_timer(self, state: BelieversState) -> bool:
        return state.config["ritual_trigger"] in ("timer", "either")

    def _by_agreement(self, state: BelieversState) -> bool:
        return state.config["ritual_trigger"] in ("unanimous", "either")

    def _may_contribute(self, state: BelieversState, seat: int) -> bool:
        if state.contributions >= state.config["max_contributions"]:
            return False
        return state.config["turn_order"] == "free" or state.speaker == seat

    def legal_moves(self, state: BelieversState, seat: int) -> list[dict]:
        if seat in state.left or not 0 <= seat < state.seats:
            return []
        if state.phase == "storytelling":
            moves = []
            if self._may_contribute(state, seat):
                moves.append({"type": "contribute", "text": PLACEHOLDER})
            if self._by_agreement(state):
                if not state.proposal:
                    moves.append({"type": "propose_final_ritual"})
                elif seat not in state.agreed:
                    moves.append({"type": "agree_final_ritual"})
            return moves
        if state.phase == "final_ritual" and seat in self._deciding(state):
            return [{"type": "commit_choice", "choice": c} for c in CHOICES]
        if state.phase == "epilogue" and not self._wrote_epilogue(state, seat):
            return [{"type": "epilogue", "text": PLACEHOLDER}]
        return []

    def actors(self, state: BelieversState) -> frozenset[int]:
        return frozenset(s for s in range(state.seats) if self.legal_moves(state, s))

    def deadline(self, state: BelieversState) -> Deadline | None:
        active = tuple(self._active(state))
        if state.phase == "storytelling" and self._has_timer(state):
            return Deadline(SESSION_WINDOW, state.config["session_minutes"] * 60, active)
        seconds = state.config["ritual_choice_seconds"]
        if state.phase == "final_ritual" and seconds:
            return Deadline(RITUAL_WINDOW, seconds, tuple(self._deciding(state)))
        return None

    def _wrote_epilogue(self, state: BelieversState, seat: int) -> bool:
        return any(line.kind == "epilogue" and line.seat == seat for line in state.story)

    # ---- events -------------------------------------------------------------------------
    system_events = ("ritual_timer",)

    def is_over(self, state: BelieversState) -> bool:
        return state.phase == "ended"

    def apply_move(self, state: BelieversState, seat: int, data: dict) -> BelieversState:
        if seat in state.left:
            raise IllegalMove("you have left this game", code="player_withdrawn")
        return self._MOVES[data["type"]](self, state, seat, data)

    def apply_resign(self, state: BelieversState, seat: int, data: dict) -> BelieversState:
        if seat in state.left:
            raise IllegalMove(f"seat {seat} has already left the game", code="player_withdrawn")
        state = self._leave(state, seat)
        return replace(state, resigned=state.resigned + (seat,))

    def apply_close_window(self, state: BelieversState, data: dict) -> BelieversState:
        if state.phase == "storytelling":
            return self._begin_ritual(state, "timer")
        return replace(state, timed_out=tuple(self._deciding(state)))

    def apply_system(self, state: BelieversState, data: dict) -> BelieversState:
        """``ritual_timer``: the session timer ended (the older form of its close_window)."""
        if state.phase != "storytelling":
            raise WindowClosed("the storytelling is already over")
        if not self._has_timer(state):
            raise IllegalMove(
                "this game starts the ritual by agreement only (ritual_trigger unanimous)", code="no_ritual_timer"
            )
        return self._begin_ritual(state, "timer")

    def after_event(self, before: BelieversState, after: BelieversState, kind: str, data: dict) -> BelieversState:
        return self._settle(replace(after, seq=after.seq + 1))

    def _settle(self, state: BelieversState) -> BelieversState:
        """Advance every phase whose condition is now met (one withdraw can finish several)."""
        active = self._active(state)
        if state.phase == "storytelling" and state.proposal and all(s in state.agreed for s in active):
            state = self._begin_ritual(state, "agreement")
        if state.phase == "final_ritual" and not self._deciding(state):
            choices = tuple(
                state.committed[s] if s in active and state.committed[s] else NO_CHOICE for s in range(state.seats)
            )
            epilogue = state.config["epilogue_enabled"] and active
            state = replace(state, choices=choices, phase="epilogue" if epilogue else "ended")
        if state.phase == "epilogue" and all(self._wrote_epilogue(state, s) for s in active):
            state = replace(state, phase="ended")
        if not active and state.phase != "ended":
            choices = state.choices or (NO_CHOICE,) * state.seats
            state = replace(state, phase="ended", choices=choices)
        return state

    def _begin_ritual(self, state: BelieversState, started_by: str) -> BelieversState:
        return replace(state, phase="final_ritual", ritual_started_by=started_by)

    def _leave(self, state: BelieversState, seat: int) -> BelieversState:
        state = replace(state, left=state.left + (seat,))
        if state.speaker == seat:
            state = replace(state, speaker=self._next_speaker(state, seat))
        return state

    def _next_speaker(self, state: BelieversState, after: int) -> int:
        for step in range(1, state.seats + 1):
            seat = (after + step) % state.seats
            if seat not in state.left:
                return seat
        return after

    def _check_storytelling(self, state: BelieversState) -> None:
        if state.phase != "storytelling":
            raise IllegalMove("storytelling closed: the final ritual has begun", code="storytelling_closed")

    def _check_agreement_trigger(self, state: BelieversState) -> None:
        self._check_storytelling(state)
        if not self._by_agreement(state):
            minutes = state.config["session_minutes"]
            raise IllegalMove(
                f"the ritual begins when the {minutes}-minute timer ends (ritual_trigger timer)",
                code="ritual_by_timer_only",
            )

    def _text(self, state: BelieversState, data: dict) -> str:
        if "text" not in data:
            raise IllegalMove(f'{data["type"]} needs "text"', code="missing_text")
        return check_text(data["text"], "text", state.config["max_text_length"])

    def _contribute(self, state: BelieversState, seat: int, data: dict) -> BelieversState:
        self._check_storytelling(state)
        if state.config["turn_order"] == "round_robin" and state.speaker != seat:
            raise NotYourTurn(f"not your turn: seat {state.speaker} contributes next (round robin)")
        limit = state.config["max_contributions"]
        if state.contributions >= limit:
            raise IllegalMove(
                f"the story is full ({limit} contributions); begin the final ritual", code="story_limit_reached"
            )
        text = self._text(state, data)
        line = Line(state.seq + 1, seat, "contribute", text)
        return replace(
            state,
            story=state.story + (line,),
            contributions=state.contributions + 1,
            speaker=self._next_speaker(state, seat),
        )

    def _propose(self, state: BelieversState, seat: int, data: dict) -> BelieversState:
        self._check_agreement_trigger(state)
        if state.proposal:
            raise IllegalMove("the final ritual is already proposed; use agree_final_ritual", code="proposal_open")
        return replace(state, proposal=True, agreed=(seat,))

    def _agree(self, state: BelieversState, seat: int, data: dict) -> BelieversState:
        self._check_agreement_trigger(state)
        if not state.proposal:
            raise IllegalMove("nobody has proposed the final ritual; use propose_final_ritual", code="no_proposal")
        if seat in state.agreed:
            raise IllegalMove("you have already agreed to the final ritual", code="already_agreed")
        return replace(state, agreed=state.agreed + (seat,))

    def _commit(self, state: BelieversState, seat: int, data: dict) -> BelieversState:
        if state.phase == "storytelling":
            raise IllegalMove("the final ritual has not begun", code="ritual_not_started")
        if seat in state.timed_out:
            raise IllegalMove("the time to decide has run out", code="ritual_closed")
        if state.committed[seat] is not None:
            raise IllegalMove("you have already committed your choice; it is final", code="already_committed")
        if state.phase != "final_ritual":
            raise IllegalMove("the answers have been revealed; the ritual is over", code="ritual_closed")
        choice = data.get("choice")
        if choice not in CHOICES:
            raise IllegalMove(f"choice must be depart or stay, not {choice!r}", code="invalid_choice")
        committed = tuple(choice if s == seat else c for s, c in enumerate(state.committed))
        return replace(state, committed=committed)

    def _epilogue(self, state: BelieversState, seat: int, data: dict) -> BelieversState:
        if not state.config["epilogue_enabled"]:
            raise IllegalMove("this game has no epilogues (epilogue_enabled is false)", code="epilogue_disabled")
        if state.phase != "epilogue":
            raise IllegalMove("epilogues are written after the reveal", code="epilogue_not_open")
        if self._wrote_epilogue(state, seat):
            raise IllegalMove("you have already written your epilogue", code="epilogue_written")
        text = self._text(state, data)
        return replace(state, story=state.story + (Line(state.seq + 1, seat, "epilogue", text),))

    def _withdraw(self, state: BelieversState, seat: int, data: dict) -> BelieversState:
        return self._leave(state, seat)

    _MOVES = {
        "contribute": _contribute,
        "propose_final_ritual": _propose,
        "agree_final_ritual": _agree,
        "commit_choice": _commit,
        "epilogue": _epilogue,
        "withdraw": _withdraw,
    }
    actions = (
        Action("contribute", {"text": _TEXT}),
        Action("propose_final_ritual"),
        Action("agree_final_ritual"),
        Action(
            "commit_choice",
            {
                "choice": Param(
                    "string",
                    "depart or stay",
                    choices=CHOICES,
                    max_length=ID_LENGTH,
                    type_code="invalid_choice",
                    choice_code="invalid_choice",
                )
            },
        ),
        Action("epilogue", {"text": _TEXT}),
        Action("withdraw"),
    )

    # ---- outcome ------------------------------------------------------------------------
    def outcome(self, state: BelieversState) -> Outcome | None:
        if state.phase != "ended":
            return None
        detail = {
            "choices": {str(s): c for s, c in enumerate(state.choices)},
            "log": [{"seat": line.seat, "text": line.text} for line in state.story if line.kind == "contribute"],
            "epilogues": [{"seat": line.seat, "text": line.text} for line in state.story if line.kind == "epilogue"],
            "ritual_started_by": state.ritual_started_by,
            "withdrawn": [s for s in state.left if s not in state.resigned],
            "resigned": list(state.resigned),
            "timed_out": list(state.timed_out),
        }
        # No winner, loser or ranking (stated): one group of every seat, no scores.
        return Outcome((tuple(range(state.seats)),), {}, detail)

    # ---- hidden information -------------------------------------------------------------
    def _shows_answer(self, state: BelieversState, viewer: int | None, owner: int) -> bool:
        if state.choices is not None or state.phase == "ended":
            return True
        return state.config["ritual_reveal"] == "open" or viewer == owner

    def hidden_from(self, state: BelieversState, seat: int | None) -> frozenset[str]:
        return frozenset(
            answer_id(owner, choice)
            for owner, choice in enumerate(state.committed)
            if choice is not None and not self._shows_answer(state, seat, owner)
        )

    def view(self, state: BelieversState, seat: int | None) -> dict:
        players = []
        for owner in range(state.seats):
            player = {
                "seat": owner,
                "active": owner not in state.left,
                "agreed": owner in state.agreed,
                "committed": state.committed[owner] is not None,
                "epilogue_written": self._wrote_epilogue(state, owner),
            }
            if state.committed[owner] is not None and self._shows_answer(state, seat, owner):
                player["choice"] = state.committed[owner]
                player["answer_id"] = answer_id(owner, state.committed[owner])
            players.append(player)
        return {
            "phase": state.phase,
            "turn_order": state.config["turn_order"],
            "ritual_trigger": state.config["ritual_trigger"],
            "ritual_reveal": state.config["ritual_reveal"],
            "speaker": state.speaker if state.config["turn_order"] == "round_robin" else None,
            "proposal_open": state.proposal,
            "players": players,
            "story": [
                {"seq": line.seq, "seat": line.seat, "text": line.text}
                for line in state.story
                if line.kind == "contribute"
            ],
            "contributions": state.contributions,
            "contributions_left": max(0, state.config["max_contributions"] - state.contributions),
            "ritual_started_by": state.ritual_started_by,
            "choices": None if state.choices is None else {str(s): c for s, c in enumerate(state.choices)},
            "epilogues": [
                {"seq": line.seq, "seat": line.seat, "text": line.text}
                for line in state.story
                if line.kind == "epilogue"
            ],
        }

    def event_view(self, state: BelieversState, event: dict, seat: int | None) -> dict:
        data = event["data"]
        if event.get("kind") != "move" or data.get("type") != "commit_choice":
            return event
        owner = event["seat"]
        if self._shows_answer(state, seat, owner):
            return {**event, "data": {**data, "answer_id": answer_id(owner, data["choice"])}}
        return {**event, "data": {"type": "commit_choice", "sealed": True}}

    # ---- serialisation ------------------------------------------------------------------
    def dump_state(self, state: BelieversState) -> dict:
        return {
            "config": state.config,
            "seats": state.seats,
            "phase": state.phase,
            "seq": state.seq,
            "story": [[line.seq, line.seat, line.kind, line.text] for line in state.story],
            "contributions": state.contributions,
            "speaker": state.speaker,
            "proposal": state.proposal,
            "agreed": list(state.agreed),
            "left": list(state.left),
            "resigned": list(state.resigned),
            "committed": list(state.committed),
            "timed_out": list(state.timed_out),
            "choices": None if state.choices is None else list(state.choices),
            "ritual_started_by": state.ritual_started_by,
        }

    def load_state(self, data: dict) -> BelieversState:
        return BelieversState(
            config=data["config"],
            seats=data["seats"],
            phase=data["phase"],
            seq=data["seq"],
            story=tuple(Line(*line) for line in data["story"]),
            contributions=data["contributions"],
            speaker=data["speaker"],
            proposal=data["proposal"],
            agreed=tuple(data["agreed"]),
            left=tuple(data["left"]),
            resigned=tuple(data["resigned"]),
            committed=tuple(data["committed"]),
            timed_out=tuple(data["timed_out"]),
            choices=None if data["choices"] is None else tuple(data["choices"]),
            ritual_started_by=data["ritual_started_by"],
        )


ENGINE = Believers()
