"""Kazekami Kyoko Kills Kublai Khan ("5K"): a two-person storytelling game of fixed forms.

Implements ``shared/rules/kazekami-kyoko.md`` (seed 001, Jonathan Walton 2006). MATURE content:
the engine is flagged ``mature`` and accepts no role and no contribution before both seats have
sent ``opt_in_mature``. One seat plays Kyoko, the other Kublai. Contributions strictly alternate;
each is built from the player's parts and the fixed connectives of its form (rendered, never
stored). A tale opens with Kyoko's ``boast`` or Kublai's ``protest``; the game ends with Kublai's
``final_words`` and Kyoko's ``final_reply``, or at once by ``withdraw``. No winner, no score.

What a machine can check is checked: role, order, form, every required part present, a string,
non-empty, within ``max_part_length``, free of control characters (newline and tab are allowed),
and the question mark of question parts (``enforce_punctuation``). Meaning is the players'
business. Text is stored verbatim (any Unicode); the rendered utterance is derived in the view:
a typed trailing ./! of a statement part gives way to the template's "!", and a question part
always ends with a question mark (the seed's forms fix "?" after the question slot, so one is
added when the player typed none, which only happens with ``enforce_punctuation = false``).

Engine decisions, not rules of the source (see the module's report and tests):
- ``legal_moves`` cannot list every text, so it lists one representative move per form whose
  parts are the constant placeholders ``"…"`` (statements) and ``"…?"`` (questions). Constant so
  that a listed move stays listed exactly while its form is legal (the harness replays old moves).
  Every listed move must be one ``apply`` accepts, under every config: with ``max_part_length = 1``
  (the flag's minimum, kept so that no stored config stops validating) a question placeholder is the
  bare ``"?"`` - still a question a player may send - rather than raising the minimum.
- ``withdraw`` (a platform safety exit, like the system ``resign``) is accepted from either seat at
  any time but never listed, so that it does not make every seat an actor on every step.
- ``max_story_moves`` bounds a game: once the story has that many moves, Kublai's only move on his
  turn is ``final_words`` (the tale count minimum is waived). A series (``series_length = 2``) is two
  records; game 2 is set up with ``series_game = 2`` and ``series_first_kyoko``, roles swapped.
- Spectators (seat None) see the structure but no text unless ``allow_spectators``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import text
from .base import (
    Action,
    ConfigError,
    Deadline,
    Engine,
    Flag,
    IllegalMove,
    MalformedEvent,
    NotYourTurn,
    Outcome,
    Param,
    WindowClosed,
)

ROLES = ("kyoko", "kublai")
ROLE_NAME = {"kyoko": "Kyoko", "kublai": "Kublai"}
OPENING = {"kyoko": "boast", "kublai": "protest"}
RESPONSES = {"kyoko": ("kyoko_normal", "kyoko_refusal"), "kublai": ("kublai_normal", "kublai_challenge")}
PARTS = {
    "boast": ("statement",),
    "protest": ("statement",),
    "kublai_normal": ("confirmation", "declaration", "open_question"),
    "kyoko_normal": ("confirmation", "declaration", "rhetorical_question"),
    "kublai_challenge": ("compliment", "challenge_question"),
    "kyoko_refusal": ("compliment", "refusal"),
    "free": ("text",),
}
FORM_ROLE = {"boast": "kyoko", "protest": "kublai", "kublai_normal": "kublai", "kyoko_normal": "kyoko"}
FORM_ROLE.update({"kublai_challenge": "kublai", "kyoko_refusal": "kyoko"})
QUESTION_PARTS = frozenset({"open_question", "rhetorical_question", "challenge_question"})
STATEMENT_PARTS = frozenset({"statement", "confirmation", "declaration", "compliment", "refusal"})
QUESTION_MARKS = ("?", "？")
# The constant placeholder texts of listed moves (see the module docstring).
PLACEHOLDER = "…"
PLACEHOLDER_QUESTION = "…?"
STORY_MOVES = ("open_tale", "respond", "yield_tale")
MAX_STORY_MOVES_LIMIT = 10_000
WINDOW = "final-reply"

TEMPLATES = {
    "en": {
        "kublai_normal": "{confirmation}! But {declaration}! How {open_question}",
        "kublai_normal_bare": "{confirmation}! But {declaration}! {open_question}",
        "kyoko_normal": "Indeed, {confirmation}! But {declaration}! {rhetorical_question}",
        "kublai_challenge": "My concubine! Indeed, {compliment}! Why {challenge_question}",
        "kyoko_refusal": "Great Khan! {compliment}! But {refusal}!",
        "final_words": "Thus, cuckolded by the woman of women, I leave this world of suffering.",
        "final_reply": "His noble soul ascends; the man of men departs.",
    },
    "ja": {
        "kublai_normal": "{confirmation}! しかし、{declaration}! 如何にして{open_question}",
        "kublai_normal_bare": "{confirmation}! しかし、{declaration}! {open_question}",
        "kyoko_normal": "まことに、{confirmation}! ですが、{declaration}! {rhetorical_question}",
        "kublai_challenge": "我が妾よ! なるほど、{compliment}! 何ゆえ、{challenge_question}",
        "kyoko_refusal": "偉大なるカーン! {compliment}! けれども、{refusal}!",
        "final_words": "かくて、女の中の女に妻を寝取られる。私はこの苦界から立ち去ろう",
        "final_reply": "その高貴なる魂は昇天し、男の中の男、ここより旅立つ",
    },
}


def _part(description: str, *, required: bool = True, nullable: bool = False) -> Param:
    return Param("text", description, required, max_length=100_000, nullable=nullable)


_ROLE = Param(
    "string", "kyoko or kublai", choices=ROLES, max_length=16, type_code="unknown_role", choice_code="unknown_role"
)
_EXTRA_TEXT = _part("optional closing words", required=False, nullable=True)
# A contribution names its form and fills that form's parts; the game checks which parts a form has.
_CONTRIBUTION = {
    "form": Param("string", "the name of a form (boast, protest, kublai_normal, ...)", max_length=32),
    **{
        name: _part(
            f"a part of {', '.join(f for f, parts in PARTS.items() if name in parts)}", required=False, nullable=True
        )
        for name in dict.fromkeys(part for parts in PARTS.values() for part in parts)
    },
}


@dataclass(frozen=True)
class Entry:
    """One accepted story move in the public log (contributions, yields and the closing lines)."""

    seq: int  # the event's position in the record (1-based)
    seat: int
    role: str
    move: str  # open_tale | respond | yield_tale | final_words | final_reply
    form: str | None
    tale: int
    parts: tuple[tuple[str, str], ...] = ()  # (part name, text as typed); extra_text for closings


@dataclass(frozen=True)
class KyokoState:
    config: dict
    phase: str  # opt_in | roles | draw | play | closing | over
    seq: int = 0  # events applied so far
    opted_in: tuple[bool, bool] = (False, False)
    roles: tuple[str | None, str | None] = (None, None)
    labels: tuple[str | None, str | None] = (None, None)  # custom_setting: free-text role labels
    turn: int | None = None  # the seat to move; None before the first tale
    last: str | None = None  # the last story move: open_tale | respond | yield_tale
    tales: int = 0
    responses: int = 0  # non-opening contributions in the current tale
    story_moves: int = 0
    log: tuple[Entry, ...] = ()
    result: str | None = None  # completed | completed_without_reply | abandoned
    ended_by: str | None = None  # final_reply | timeout | withdraw | resign
    left: int | None = None  # the seat that withdrew or resigned


def check_text(value, name: str, limit: int, *, allow_empty: bool = False) -> str:
    return text.check_text(value, name, limit, allow_empty=allow_empty, empty_code="empty_part")


def _statement(text: str) -> str:
    """A statement part inside a template: the template adds "!", so a typed . or ! is dropped."""
    return text.strip().rstrip(".!。！").rstrip()


def _question(text: str) -> str:
    """A question part: the seed's forms end the slot with a fixed "?", so one is added if missing."""
    text = text.strip()
    return text if text.endswith(QUESTION_MARKS) else text.rstrip(".。") + "?"


def render(entry: Entry, config: dict) -> str:
    """The utterance as the players read it: the parts inside the form's fixed connectives."""
    templates = TEMPLATES[config["language"]]
    parts = dict(entry.parts)
    if entry.move in ("final_words", "final_reply"):
        extra = parts.get("extra_text", "").strip()
        return templates[entry.move] + (f" {extra}" if extra else "")
    if entry.move == "yield_tale":
        return ""
    if entry.form in ("boast", "protest", "free"):
        return next(iter(parts.values())).strip()
    key = entry.form
    if key == "kublai_normal" and not config["kublai_question_prefix_fixed"]:
        key = "kublai_normal_bare"
    filled = {name: _statement(text) if name in STATEMENT_PARTS else _question(text) for name, text in parts.items()}
    return templates[key].format(**filled)


class KazekamiKyoko(Engine):
    slug = "kazekami-kyoko"
    name = "Kazekami Kyoko Kills Kublai Khan"
    rules_version = "1"
    min_seats = 2
    max_seats = 2
    mature = True
    # 2 opt-ins, 2 take_role (or 1 draw), 2 labels, the story with one move past the cap, the two
    # closing lines or a timeout, and nothing after a withdraw.
    max_events = 2 + 2 + 2 + MAX_STORY_MOVES_LIMIT + 1 + 2
    flags = (
        Flag(
            "role_assignment",
            "agreement",
            "How roles are given: take_role moves or a draw.",
            "str",
            ("agreement", "random"),
        ),
        Flag("first_opener", "either", "Who may open the first tale.", "str", ("either", "kyoko", "kublai")),
        Flag(
            "series_length",
            1,
            "1 game, or 2 short games with roles swapped (two records).",
            "int",
            minimum=1,
            maximum=2,
        ),
        Flag(
            "series_game", 1, "Engine addition: which game of the series this record is.", "int", minimum=1, maximum=2
        ),
        Flag(
            "series_first_kyoko",
            0,
            "Engine addition: the seat that played Kyoko in game 1 of the series.",
            "int",
            minimum=0,
            maximum=1,
        ),
        Flag("reconfirm_opt_in_each_game", True, "Game 2 of a series needs both mature opt-ins again."),
        Flag(
            "min_responses_before_new_tale",
            1,
            "Responses a tale needs before a new tale or a yield.",
            "int",
            minimum=0,
            maximum=1000,
        ),
        Flag(
            "min_tales_before_end",
            1,
            "Tales opened before Kublai may speak his final words.",
            "int",
            minimum=0,
            maximum=1000,
        ),
        Flag("enforce_punctuation", True, "Question parts end with ? or ？; statement parts do not."),
        Flag("max_part_length", 500, "Longest part, in characters.", "int", minimum=1, maximum=100_000),
        Flag(
            "final_reply_timeout_s",
            0,
            "Seconds Kyoko has for her final reply; 0 means no limit.",
            "float",
            minimum=0,
            maximum=604_800,
        ),
        Flag("strict_forms", True, "false: either player may also post a free contribution."),
        Flag("custom_setting", False, "Players may re-skin the roles with free-text labels (set_label)."),
        Flag("language", "en", "Connectives of the rendered text.", "str", ("en", "ja")),
        Flag("allow_spectators", False, "Both players agreed that spectators may read the text."),
        Flag("kublai_question_prefix_fixed", True, 'The template supplies "How"/「如何にして」 (ambiguity 6).'),
        Flag(
            "max_story_moves",
            2000,
            "Engine addition: story moves before Kublai must speak his final words.",
            "int",
            minimum=1,
            maximum=MAX_STORY_MOVES_LIMIT,
        ),
    )

    def validate_config(self, config: dict | None) -> dict:
        full = super().validate_config(config)
        if full["series_game"] > full["series_length"]:
            raise ConfigError("series_game cannot exceed series_length")
        return full

    # ---- setup and chance ---------------------------------------------------------------
    def setup(self, config: dict | None, seats: int = 2) -> KyokoState:
        config = self.validate_setup(config, seats)
        state = KyokoState(config=config, phase="opt_in")
        if config["series_game"] == 2:
            kyoko = 1 - config["series_first_kyoko"]  # roles swapped from game 1 (§5)
            roles = ("kyoko", "kublai") if kyoko == 0 else ("kublai", "kyoko")
            state = replace(state, roles=roles)
            if not config["reconfirm_opt_in_each_game"]:
                state = replace(state, opted_in=(True, True), phase="play")
        return state

    def chance_due(self, state: KyokoState) -> str | None:
        return "roles" if state.phase == "draw" else None

    def sample_chance(self, state: KyokoState, rng) -> dict:
        kyoko = rng.randbelow(2)
        return {"type": "roles", "kyoko": kyoko, "kublai": 1 - kyoko}

    def _apply_roles(self, state: KyokoState, data: dict) -> KyokoState:
        if data["type"] != "roles":
            raise MalformedEvent(f"{self.name} has no chance step {data['type']!r}; the only one is roles")
        kyoko, kublai = data.get("kyoko"), data.get("kublai")
        if any(isinstance(s, bool) or s not in (0, 1) for s in (kyoko, kublai)) or kyoko == kublai:
            raise IllegalMove(
                'a roles draw needs "kyoko" and "kublai": the two different seats 0 and 1', code="bad_roles"
            )
        roles = ("kyoko", "kublai") if kyoko == 0 else ("kublai", "kyoko")
        return replace(state, roles=roles, phase="play")

    # ---- who may act --------------------------------------------------------------------
    def _seat_of(self, state: KyokoState, role: str) -> int | None:
        return state.roles.index(role) if role in state.roles else None

    def _openers(self, state: KyokoState) -> tuple[int, ...]:
        first = state.config["first_opener"]
        return (0, 1) if first == "either" else (self._seat_of(state, first),)

    def _has_floor(self, state: KyokoState, seat: int) -> bool:
        return state.turn == seat or (state.turn is None and seat in self._openers(state))

    def _may_label(self, state: KyokoState, seat: int) -> bool:
        return (
            state.config["custom_setting"] and state.phase == "play" and state.tales == 0 and state.labels[seat] is None
        )

    def _at_cap(self, state: KyokoState) -> bool:
        return state.story_moves >= state.config["max_story_moves"]

    def actors(self, state: KyokoState) -> frozenset[int]:
        if state.phase == "opt_in":
            return frozenset(s for s in (0, 1) if not state.opted_in[s])
        if state.phase == "roles":
            return frozenset(s for s in (0, 1) if state.roles[s] is None)
        if state.phase == "closing":
            return frozenset({self._seat_of(state, "kyoko")})
        if state.phase != "play":
            return frozenset()
        return frozenset(s for s in (0, 1) if self._has_floor(state, s) or self._may_label(state, s))

    def legal_moves(self, state: KyokoState, seat: int) -> list[dict]:
        if seat not in self.actors(state):
            return []
        if state.phase == "opt_in":
            return [{"type": "opt_in_mature"}]
        if state.phase == "roles":
            return [{"type": "take_role", "role": r} for r in ROLES if r not in state.roles]
        if state.phase == "closing":
            return [{"type": "final_reply"}]
        role = state.roles[seat]
        moves: list[dict] = []
        if self._may_label(state, seat):
            moves.append({"type": "set_label", "label": PLACEHOLDER})
        if not self._has_floor(state, seat):
            return moves
        capped = role == "kublai" and self._at_cap(state)
        enough = state.responses >= state.config["min_responses_before_new_tale"]
        yielded = state.last == "yield_tale"
        if not capped:
            if state.turn is None or yielded or enough:
                moves.append({"type": "open_tale", "form": OPENING[role], "statement": PLACEHOLDER})
            if state.turn is not None and not yielded:
                forms = RESPONSES[role] + (() if state.config["strict_forms"] else ("free",))
                moves.extend(_placeholder_response(form, state.config["max_part_length"]) for form in forms)
                if enough:
                    moves.append({"type": "yield_tale"})
        if role == "kublai" and (capped or state.tales >= state.config["min_tales_before_end"]):
            moves.append({"type": "final_words"})
        return moves

    def deadline(self, state: KyokoState) -> Deadline | None:
        seconds = state.config["final_reply_timeout_s"]
        if state.phase != "closing" or not seconds:
            return None
        return Deadline(WINDOW, seconds, (self._seat_of(state, "kyoko"),))

    # ---- events -------------------------------------------------------------------------
    moves_while_chance_due = frozenset({"withdraw"})
    system_events = ("final_reply_timeout",)

    def seat_count(self, state: KyokoState) -> int:
        return 2

    def apply_chance(self, state: KyokoState, data: dict) -> KyokoState:
        return self._apply_roles(state, data)

    def apply_move(self, state: KyokoState, seat: int, data: dict) -> KyokoState:
        if data["type"] == "withdraw":
            return replace(state, phase="over", result="abandoned", ended_by="withdraw", left=seat)
        return self._MOVES[data["type"]](self, state, seat, data)

    def apply_resign(self, state: KyokoState, seat: int, data: dict) -> KyokoState:
        return replace(state, phase="over", result="abandoned", ended_by="resign", left=seat)

    def apply_close_window(self, state: KyokoState, data: dict) -> KyokoState:
        return replace(state, phase="over", result="completed_without_reply", ended_by="timeout")

    def apply_system(self, state: KyokoState, data: dict) -> KyokoState:
        """``final_reply_timeout``: the older form of the final reply window's close_window."""
        if state.phase != "closing":
            raise WindowClosed("no final reply is awaited")
        if self.deadline(state) is None:
            raise IllegalMove(
                "this game has no final reply timeout (final_reply_timeout_s is 0)", code="no_final_reply_timeout"
            )
        return self.apply_close_window(state, data)

    def after_event(self, before: KyokoState, after: KyokoState, kind: str, data: dict) -> KyokoState:
        return replace(after, seq=after.seq + 1)

    def _gate(self, state: KyokoState, seat: int) -> str:
        """Both opt-ins, then both roles, before any content (§2); returns the seat's role."""
        missing = [f"seat {s}" for s in (0, 1) if not state.opted_in[s]]
        if missing:
            raise IllegalMove(
                f"mature opt-in missing for {' and '.join(missing)}; both players must send opt_in_mature first",
                code="mature_opt_in_missing",
            )
        if state.phase in ("roles", "draw"):
            raise IllegalMove("the roles are not assigned yet: both players take_role first", code="roles_not_assigned")
        role = state.roles[seat]
        if state.phase == "closing" and role == "kyoko":
            raise IllegalMove("Kublai has spoken his final words; only final_reply is allowed", code="only_final_reply")
        if state.phase == "closing":
            raise NotYourTurn("not your turn: Kyoko's final reply is awaited")
        return role

    def _opt_in(self, state: KyokoState, seat: int, data: dict) -> KyokoState:
        if state.opted_in[seat]:
            raise IllegalMove("you have already opted in to mature content", code="already_opted_in")
        opted = tuple(state.opted_in[s] or s == seat for s in (0, 1))
        state = replace(state, opted_in=opted)
        if not all(opted):
            return state
        if all(state.roles):
            return replace(state, phase="play")
        return replace(state, phase="draw" if state.config["role_assignment"] == "random" else "roles")

    def _take_role(self, state: KyokoState, seat: int, data: dict) -> KyokoState:
        role = data.get("role")
        if role not in ROLES:
            raise IllegalMove(f"role must be kyoko or kublai, not {role!r}", code="unknown_role")
        if not all(state.opted_in):
            self._gate(state, seat)
        if state.phase != "roles":
            if state.config["series_game"] == 2:
                raise IllegalMove(
                    "in game 2 of a series the roles are swapped from game 1 automatically", code="roles_preset"
                )
            if state.config["role_assignment"] == "random":
                raise IllegalMove("roles are drawn at random in this game", code="roles_drawn")
            raise IllegalMove("the roles are already assigned", code="roles_assigned")
        if state.roles[seat] is not None:
            raise IllegalMove(f"you already play {ROLE_NAME[state.roles[seat]]}", code="already_has_role")
        if role in state.roles:
            other = next(r for r in ROLES if r not in state.roles)
            raise IllegalMove(f"{ROLE_NAME[role]} is taken; take {other}", code="role_taken")
        roles = tuple(role if s == seat else state.roles[s] for s in (0, 1))
        return replace(state, roles=roles, phase="play" if all(roles) else "roles")

    def _set_label(self, state: KyokoState, seat: int, data: dict) -> KyokoState:
        if not state.config["custom_setting"]:
            raise IllegalMove("role labels are only used with custom_setting", code="custom_setting_off")
        self._gate(state, seat)
        if state.labels[seat] is not None:
            raise IllegalMove("your role label is already set", code="label_already_set")
        if state.tales:
            raise IllegalMove("role labels are set before the first tale opens", code="label_too_late")
        if "label" not in data:
            raise IllegalMove('set_label needs "label"', code="missing_part")
        label = check_text(data["label"], "label", state.config["max_part_length"])
        labels = tuple(label if s == seat else state.labels[s] for s in (0, 1))
        return replace(state, labels=labels)

    def _check_form(self, state: KyokoState, role: str, form, opening: bool) -> str:
        if not isinstance(form, str):
            raise MalformedEvent('a contribution needs "form": the name of a form')
        if form == "free":
            if state.config["strict_forms"]:
                raise IllegalMove(
                    "the free form is only available with strict_forms = false", code="free_form_disabled"
                )
            if opening:
                raise IllegalMove(f"a tale opens with {OPENING[role]}; free is a response", code="not_an_opening")
            return form
        if form not in FORM_ROLE:
            raise IllegalMove(
                f"there is no form {form!r}; yours: {', '.join(_forms(state, role))}", code="unknown_form"
            )
        is_opening = form in OPENING.values()
        if opening and not is_opening:
            raise IllegalMove(f"{form} is a response; a tale opens with {OPENING[role]}", code="not_an_opening")
        if not opening and is_opening:
            raise IllegalMove(f"{form} opens a tale; use open_tale", code="opening_form_in_respond")
        if FORM_ROLE[form] != role:
            owner = ROLE_NAME[FORM_ROLE[form]]
            mine = OPENING[role] if opening else " or ".join(RESPONSES[role])
            raise IllegalMove(
                f"{form} is {owner}'s form, not available to {ROLE_NAME[role]}; use {mine}", code="wrong_form_for_role"
            )
        return form

    def _check_parts(self, state: KyokoState, form: str, data: dict) -> tuple[tuple[str, str], ...]:
        names = PARTS[form]
        extra = sorted(set(data) - {"type", "reason", "form", *names})
        if extra:
            raise IllegalMove(
                f"{form} has no part(s) {', '.join(extra)}; its parts: {', '.join(names)}", code="unexpected_part"
            )
        parts = []
        for name in names:
            if name not in data:
                raise IllegalMove(f"missing {name}: {form} needs {', '.join(names)}", code="missing_part")
            text = check_text(data[name], name, state.config["max_part_length"])
            if state.config["enforce_punctuation"]:
                ends_question = text.rstrip().endswith(QUESTION_MARKS)
                if name in QUESTION_PARTS and not ends_question:
                    raise IllegalMove(
                        f"{name} is a question part and must end with ? or ？", code="question_mark_missing"
                    )
                if name in STATEMENT_PARTS and ends_question:
                    raise IllegalMove(
                        f"{name} is a statement part and must not end with ? or ？", code="statement_ends_with_question"
                    )
            parts.append((name, text))
        return tuple(parts)

    def _check_floor(self, state: KyokoState, seat: int) -> None:
        if state.turn is None and seat not in self._openers(state):
            opener = ROLE_NAME[state.config["first_opener"]]
            raise NotYourTurn(f"not your turn: {opener} opens the first tale", code="not_first_opener")
        if state.turn is not None and state.turn != seat:
            raise NotYourTurn("not your turn: your partner must answer first")

    def _check_cap(self, state: KyokoState, role: str) -> None:
        if role == "kublai" and self._at_cap(state):
            limit = state.config["max_story_moves"]
            raise IllegalMove(
                f"the story has reached {limit} moves; Kublai can only speak his final_words",
                code="story_limit_reached",
            )

    def _check_new_tale_allowed(self, state: KyokoState) -> None:
        needed = state.config["min_responses_before_new_tale"]
        if state.last != "yield_tale" and state.responses < needed:
            raise IllegalMove(
                f"tale {state.tales} has {state.responses} responses; minimum {needed} before a new tale or a yield",
                code="tale_too_short",
            )

    def _story(self, state: KyokoState, seat: int, role: str, move: str, form, parts, **changes) -> KyokoState:
        entry = Entry(state.seq + 1, seat, role, move, form, changes.get("tales", state.tales), parts)
        return replace(
            state, log=state.log + (entry,), story_moves=state.story_moves + 1, turn=1 - seat, last=move, **changes
        )

    def _open_tale(self, state: KyokoState, seat: int, data: dict) -> KyokoState:
        role = self._gate(state, seat)
        form = self._check_form(state, role, data.get("form"), opening=True)
        self._check_floor(state, seat)
        if state.turn is not None:
            self._check_new_tale_allowed(state)
        self._check_cap(state, role)
        parts = self._check_parts(state, form, data)
        return self._story(state, seat, role, "open_tale", form, parts, tales=state.tales + 1, responses=0)

    def _respond(self, state: KyokoState, seat: int, data: dict) -> KyokoState:
        role = self._gate(state, seat)
        form = self._check_form(state, role, data.get("form"), opening=False)
        if state.turn is None:
            raise IllegalMove("no open tale; use open_tale", code="no_open_tale")
        self._check_floor(state, seat)
        if state.last == "yield_tale":
            raise IllegalMove("your partner yielded the floor: open a new tale", code="partner_yielded")
        self._check_cap(state, role)
        parts = self._check_parts(state, form, data)
        return self._story(state, seat, role, "respond", form, parts, responses=state.responses + 1)

    def _yield_tale(self, state: KyokoState, seat: int, data: dict) -> KyokoState:
        role = self._gate(state, seat)
        if state.turn is None:
            raise IllegalMove("no open tale; use open_tale", code="no_open_tale")
        self._check_floor(state, seat)
        if state.last == "yield_tale":
            raise IllegalMove("your partner yielded the floor to you: open a new tale", code="partner_yielded")
        self._check_new_tale_allowed(state)
        self._check_cap(state, role)
        return self._story(state, seat, role, "yield_tale", None, ())

    def _extra_text(self, state: KyokoState, data: dict) -> tuple[tuple[str, str], ...]:
        if data.get("extra_text") is None:
            return ()
        text = check_text(data["extra_text"], "extra_text", state.config["max_part_length"], allow_empty=True)
        return (("extra_text", text),)

    def _final_words(self, state: KyokoState, seat: int, data: dict) -> KyokoState:
        if all(state.opted_in) and state.phase != "roles" and state.roles[seat] == "kyoko":
            raise IllegalMove("only Kublai can speak the final words", code="only_kublai_ends")
        self._gate(state, seat)
        self._check_floor(state, seat)
        needed = state.config["min_tales_before_end"]
        if state.tales < needed and not self._at_cap(state):
            raise IllegalMove(f"{state.tales} tales so far; Kublai may end after {needed}", code="too_few_tales")
        parts = self._extra_text(state, data)
        entry = Entry(state.seq + 1, seat, "kublai", "final_words", None, state.tales, parts)
        return replace(state, log=state.log + (entry,), phase="closing", turn=1 - seat)

    def _final_reply(self, state: KyokoState, seat: int, data: dict) -> KyokoState:
        if all(state.opted_in) and state.phase != "roles" and state.roles[seat] == "kublai":
            raise IllegalMove("only Kyoko gives the final reply", code="only_kyoko_replies")
        if state.phase != "closing":
            self._gate(state, seat)
            raise IllegalMove(
                "final_reply answers Kublai's final_words, which have not been spoken", code="final_reply_not_due"
            )
        parts = self._extra_text(state, data)
        entry = Entry(state.seq + 1, seat, "kyoko", "final_reply", None, state.tales, parts)
        return replace(
            state, log=state.log + (entry,), phase="over", result="completed", ended_by="final_reply", turn=None
        )

    _MOVES = {
        "opt_in_mature": _opt_in,
        "take_role": _take_role,
        "set_label": _set_label,
        "open_tale": _open_tale,
        "respond": _respond,
        "yield_tale": _yield_tale,
        "final_words": _final_words,
        "final_reply": _final_reply,
    }
    actions = (
        Action("opt_in_mature"),
        Action("take_role", {"role": _ROLE}),
        Action("set_label", {"label": _part("your role's label")}),
        Action("open_tale", _CONTRIBUTION),
        Action("respond", _CONTRIBUTION),
        Action("yield_tale"),
        Action("final_words", {"extra_text": _EXTRA_TEXT}),
        Action("final_reply", {"extra_text": _EXTRA_TEXT}),
        Action("withdraw"),
    )

    # ---- outcome ------------------------------------------------------------------------
    def _counts(self, state: KyokoState) -> dict:
        contributions = sum(1 for e in state.log if e.move in ("open_tale", "respond"))
        return {"tales": state.tales, "contributions": contributions}

    def outcome(self, state: KyokoState) -> Outcome | None:
        if state.phase != "over":
            return None
        detail = {
            "result": state.result,
            "ended_by": state.ended_by,
            **self._counts(state),
            "roles": {role: self._seat_of(state, role) for role in ROLES},
            "series_game": state.config["series_game"],
        }
        if state.left is not None:
            detail["withdrawn_by" if state.ended_by == "withdraw" else "resigned_by"] = state.left
        # No winner and no score (§5): every finished game, even an abandoned one, ranks both seats together.
        return Outcome(((0, 1),), {}, detail)

    # ---- views --------------------------------------------------------------------------
    def _shows_text(self, state: KyokoState, seat: int | None) -> bool:
        return seat is not None or state.config["allow_spectators"]

    def hidden_from(self, state: KyokoState, seat: int | None) -> frozenset[str]:
        if self._shows_text(state, seat):
            return frozenset()
        hidden = {label for label in state.labels if label}
        for entry in state.log:
            hidden.update(text for _, text in entry.parts if text)
            rendered = render(entry, state.config)
            if rendered:
                hidden.add(rendered)
        return frozenset(hidden)

    def _entry_json(self, state: KyokoState, entry: Entry, text: bool) -> dict:
        out = {
            "seq": entry.seq,
            "seat": entry.seat,
            "role": entry.role,
            "move": entry.move,
            "form": entry.form,
            "tale": entry.tale,
        }
        if text:
            out["parts"] = dict(entry.parts)
            out["text"] = render(entry, state.config)
        return out

    def view(self, state: KyokoState, seat: int | None) -> dict:
        text = self._shows_text(state, seat)
        out = {
            "phase": state.phase,
            "mature": True,
            "language": state.config["language"],
            "spectators_allowed": state.config["allow_spectators"],
            "opted_in": list(state.opted_in),
            "roles": {role: self._seat_of(state, role) for role in ROLES},
            "turn": state.turn,
            "openers": list(self._openers(state)) if state.phase == "play" and state.turn is None else [],
            "partner_yielded": state.last == "yield_tale",
            "tales": state.tales,
            "responses_in_tale": state.responses,
            **{k: v for k, v in self._counts(state).items() if k != "tales"},
            "story_moves": state.story_moves,
            "log": [self._entry_json(state, e, text) for e in state.log],
            "result": state.result,
        }
        if state.config["custom_setting"]:
            out["labels"] = {role: state.labels[s] if text else None for s, role in enumerate(state.roles) if role}
        if seat is not None and state.phase in ("play", "closing"):
            out["you"] = state.roles[seat]
        return out

    def event_view(self, state: KyokoState, event: dict, seat: int | None) -> dict:
        if self._shows_text(state, seat) or event.get("kind") != "move":
            return event
        data = event["data"]
        kept = {k: data[k] for k in ("type", "form", "role") if k in data}
        return {**event, "data": kept}

    # ---- serialisation ------------------------------------------------------------------
    def dump_state(self, state: KyokoState) -> dict:
        return {
            "config": state.config,
            "phase": state.phase,
            "seq": state.seq,
            "opted_in": list(state.opted_in),
            "roles": list(state.roles),
            "labels": list(state.labels),
            "turn": state.turn,
            "last": state.last,
            "tales": state.tales,
            "responses": state.responses,
            "story_moves": state.story_moves,
            "log": [[e.seq, e.seat, e.role, e.move, e.form, e.tale, [list(p) for p in e.parts]] for e in state.log],
            "result": state.result,
            "ended_by": state.ended_by,
            "left": state.left,
        }

    def load_state(self, data: dict) -> KyokoState:
        log = tuple(
            Entry(seq, seat, role, move, form, tale, tuple((name, text) for name, text in parts))
            for seq, seat, role, move, form, tale, parts in data["log"]
        )
        return KyokoState(
            config=data["config"],
            phase=data["phase"],
            seq=data["seq"],
            opted_in=tuple(data["opted_in"]),
            roles=tuple(data["roles"]),
            labels=tuple(data["labels"]),
            turn=data["turn"],
            last=data["last"],
            tales=data["tales"],
            responses=data["responses"],
            story_moves=data["story_moves"],
            log=log,
            result=data["result"],
            ended_by=data["ended_by"],
            left=data["left"],
        )


def _placeholder_response(form: str, limit: int) -> dict:
    """The listed move of ``form``: placeholders that fit ``limit`` (a bare "?" when it is 1)."""
    move = {"type": "respond", "form": form}
    for name in PARTS[form]:
        move[name] = PLACEHOLDER_QUESTION[-limit:] if name in QUESTION_PARTS else PLACEHOLDER
    return move


def _forms(state: KyokoState, role: str) -> list[str]:
    return [OPENING[role], *RESPONSES[role]] + ([] if state.config["strict_forms"] else ["free"])


ENGINE = KazekamiKyoko()
