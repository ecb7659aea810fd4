"""Storytelling (Kazekami Kyoko, The Believers): simple text rules that always make valid texts.

The engines list each contribution as a template whose text parts are placeholders (``"…"``, and
``"…?"`` for a question); a strategy fills them in. Statements never end in ``?`` and questions
always do, every part is short and plain, and the story moves on by counting: Kyoko opens a new
tale after two answers, Kublai speaks his final words after a few contributions, the believers
propose the final ritual once each has spoken twice and depart if the story sounds hopeful.
"""

from __future__ import annotations

import random

from .common import Move, first_of

PLACEHOLDERS = ("…", "…?")
QUESTIONS = ("open_question", "rhetorical_question", "challenge_question")

KAZEKAMI_PARTS = {
    "statement": (
        "I won the trust of your second wife with a song about the sea",
        "Your youngest consort now keeps my letters under her pillow",
        "The lady of the eastern tent laughed at my stories all night",
    ),
    "confirmation": ("So it was", "Yes, that is what happened", "I do not deny it"),
    "declaration": ("the guards saw nothing", "the wind carried her reply to me", "she kept the secret well"),
    "open_question": ("did she come to trust you so quickly?", "did you pass my guards?", "did it begin?"),
    "rhetorical_question": ("Would you not have done the same?", "Is that not obvious?", "Could it be otherwise?"),
    "compliment": ("your voice is gentle", "your memory is sharp", "you are a patient listener"),
    "challenge_question": ("is this tale worthy of a wind spirit?", "should a ninja boast of so little?"),
    "refusal": ("a spirit keeps some things to herself", "that part is not for your ears"),
}
KYOKO_OPENS_AFTER = 2  # answers in the current tale before Kyoko starts the next one
KUBLAI_ENDS_AFTER = 6  # contributions before Kublai can bear no more

BELIEVER_LINES = (
    "We waited on the hill with our lanterns, and the sky was clear",
    "A soft light hummed above the reservoir and the dogs fell silent",
    "The ship came down slowly, warm and bright, and a door opened",
    "Someone at the back was afraid, but the light felt like a welcome",
    "The visitors asked nothing of us; they only waited for an answer",
)
HOPEFUL = ("light", "warm", "welcome", "bright", "soft", "clear")
FEARFUL = ("afraid", "dark", "cold", "scream", "silent", "fear")
BELIEVER_TURNS = 2  # contributions per believer before the ritual is proposed


def filled(template: Move, rng: random.Random, texts: dict[str, tuple[str, ...]], default: str) -> Move:
    """``template`` with each placeholder part replaced by a text from ``texts`` (by part name)."""
    move = dict(template)
    for name, value in template.items():
        if value in PLACEHOLDERS:
            text = rng.choice(texts.get(name, (default,)))
            if name in QUESTIONS and not text.endswith("?"):
                text += "?"
            move[name] = text
    return move


def is_filled(template: Move, move: Move) -> bool:
    """``move`` is ``template`` with its placeholder parts replaced by non-empty texts."""
    if set(template) != set(move):
        return False
    return all(
        move[key] == value or (value in PLACEHOLDERS and isinstance(move[key], str) and move[key].strip())
        for key, value in template.items()
    )


def choose_kazekami(view: dict, moves: list[Move], rng: random.Random, seat: int) -> Move:
    for kind in ("opt_in_mature", "final_reply"):
        if first_of(moves, kind):
            return first_of(moves, kind)
    roles = [move for move in moves if move["type"] == "take_role"]
    if roles:
        return roles[seat % len(roles)]
    contributions = view.get("contributions", 0)
    if view.get("you") == "kublai" and contributions >= KUBLAI_ENDS_AFTER and first_of(moves, "final_words"):
        return first_of(moves, "final_words")
    opening = first_of(moves, "open_tale")
    responses = [move for move in moves if move["type"] == "respond"]
    if opening and (not responses or view.get("responses_in_tale", 0) >= KYOKO_OPENS_AFTER):
        return filled(opening, rng, KAZEKAMI_PARTS, "so it was")
    if responses:
        last = (view.get("log") or [{}])[-1]
        alternative = last.get("form") == "kublai_challenge"  # a challenge is answered by a refusal
        forms = [m for m in responses if m["form"].endswith(("refusal", "challenge")) == alternative] or responses
        return filled(forms[0], rng, KAZEKAMI_PARTS, "so it was")
    listed = first_of(moves, "final_words", "yield_tale") or rng.choice(moves)
    return filled(listed, rng, KAZEKAMI_PARTS, "so it was")


def choose_believers(view: dict, moves: list[Move], rng: random.Random, seat: int) -> Move:
    choices = [move for move in moves if move["type"] == "commit_choice"]
    if choices:
        story = " ".join(str(line.get("text", "")) for line in view.get("story") or []).lower()
        hope = sum(story.count(word) for word in HOPEFUL) - sum(story.count(word) for word in FEARFUL)
        wanted = "depart" if hope > 0 else "stay"
        return next((m for m in choices if m["choice"] == wanted), choices[0])
    for kind in ("agree_final_ritual", "epilogue"):
        if first_of(moves, kind):
            return filled(first_of(moves, kind), rng, {"text": BELIEVER_LINES}, BELIEVER_LINES[0])
    mine = sum(1 for line in view.get("story") or [] if line.get("seat") == seat)
    contribute = first_of(moves, "contribute")
    if contribute and mine < BELIEVER_TURNS:
        return filled(contribute, rng, {"text": BELIEVER_LINES}, BELIEVER_LINES[0])
    proposal = first_of(moves, "propose_final_ritual")
    if proposal:
        return proposal
    return filled(contribute or rng.choice(moves), rng, {"text": BELIEVER_LINES}, BELIEVER_LINES[0])
