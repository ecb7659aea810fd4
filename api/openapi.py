"""The OpenAPI schema's own pieces: typed moves built from the engines' action tables.

The schema class every app's views use (anonymous operations, identifier operation ids) is the
HTTP kit's, ``kifu.http.openapi.AutoSchema``.

Moves are typed per game. Each engine's actions (``Engine.actions``, the parameters the engine
itself checks) become one component per action (``NineCardCommitCard``) and one discriminated
``oneOf`` per game on ``type`` (``NineCardMove``): within a game an action name is unique, so a
generated client picks the exact class. Action names are not unique across games (``play`` in
Mekuri Hinmin and 1234 take different parameters), so a response that can name its game does:
``legal-moves`` and ``state`` are a ``oneOf`` discriminated on ``engine`` (``NineCardLegalMoves``),
whose ``moves`` are that game's ``oneOf``. A position that cannot (a submitted move, an event's
data) is an ``anyOf`` of every action, the action with more parameters first, so a client that
tries them in order (openapi-python-client does) keeps every parameter it was sent.

Nothing here is written per game: a new engine module shows up in the schema by itself.
"""

from __future__ import annotations

import re
from typing import Any

from games.engines import all_engines
from games.engines.base import REASON, Action, Engine, Param

REF = "#/components/schemas/"


def ref(name: str) -> dict:
    return {"$ref": REF + name}


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", name) if part)


def engine_name(engine: Engine) -> str:
    """The schema prefix of a game: its class name (``NineCard``; ``OneTwoThreeFour`` for 1234)."""
    return type(engine).__name__


def param_schema(param: Param) -> dict:
    """A parameter's declared schema (``Param.schema``) in OpenAPI 3.0 terms: ``nullable``, not a type list."""
    out = param.schema()
    if isinstance(out["type"], list):
        out["type"] = next(kind for kind in out["type"] if kind != "null")
        out["nullable"] = True
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
    return out


def action_schema(action: Action) -> dict:
    """One action as an OpenAPI object: ``type`` a one-value enum (3.0 has no ``const``), then its parameters."""
    properties: dict[str, Any] = {"type": {"type": "string", "enum": [action.name]}}
    properties.update({name: param_schema(param) for name, param in action.params.items()})
    properties["reason"] = param_schema(REASON)
    required = ["type", *(name for name, param in action.params.items() if param.required)]
    out = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    if action.description:
        out["description"] = action.description
    return out


def move_components() -> dict[str, dict]:
    """Every component the typed moves need, derived from the engines' action tables."""
    components: dict[str, dict] = {}
    every_action: list[tuple[str, int]] = []  # (component, parameter count)
    legal_variants, state_variants = {}, {}
    for engine in sorted(all_engines(), key=lambda engine: engine.slug):
        prefix = engine_name(engine)
        mapping = {}
        for action in engine.actions:
            name = prefix + camel(action.name)
            components[name] = action_schema(action)
            mapping[action.name] = REF + name
            every_action.append((name, len(action.params)))
        components[f"{prefix}Move"] = {
            "oneOf": [{"$ref": target} for target in mapping.values()],
            "discriminator": {"propertyName": "type", "mapping": mapping},
            "description": f"A move of {engine.name}: one of its actions, told apart by `type`.",
        }
        engine_field = {"type": "string", "enum": [engine.slug]}
        moves = {"type": "array", "items": ref(f"{prefix}Move")}
        components[f"{prefix}LegalMoves"] = {
            "type": "object",
            "properties": {"engine": engine_field, **LEGAL_MOVES_PROPERTIES, "moves": moves},
            "required": ["engine", *LEGAL_MOVES_PROPERTIES, "moves"],
        }
        components[f"{prefix}GameState"] = {
            "type": "object",
            "properties": {**STATE_PROPERTIES, "engine": engine_field, "legal_moves": moves},
            "required": [*STATE_PROPERTIES, "engine", "legal_moves"],
        }
        legal_variants[engine.slug] = REF + f"{prefix}LegalMoves"
        state_variants[engine.slug] = REF + f"{prefix}GameState"
    components["LegalMoves"] = {
        "oneOf": [{"$ref": target} for target in legal_variants.values()],
        "discriminator": {"propertyName": "engine", "mapping": legal_variants},
        "description": "Every legal move for the caller's seat now (none when it may not act), typed by the game.",
    }
    components["GameState"] = {
        "oneOf": [{"$ref": target} for target in state_variants.values()],
        "discriminator": {"propertyName": "engine", "mapping": state_variants},
        "description": "The state as the caller may see it, typed by the game.",
    }
    # Same-named actions of different games: the one with more parameters first, so a client that
    # tries the members in order keeps every parameter (1234's play is Mekuri Hinmin's minus three).
    ordered = [name for name, _ in sorted(every_action, key=lambda item: -item[1])]
    components["AnyMove"] = {
        "anyOf": [ref(name) for name in ordered],
        "description": "A move of any game (the game's own schema, e.g. NineCardMove, says which apply).",
    }
    components["Resign"] = {
        "type": "object",
        "properties": {"type": {"type": "string", "enum": ["resign"]}},
        "required": ["type"],
        "additionalProperties": False,
        "description": "Resign the game (every game).",
    }
    components["SubmittedMove"] = {"anyOf": [ref("AnyMove"), ref("Resign")], "description": "A move, or resign."}
    components["EventData"] = {
        "type": "object",
        "properties": {"type": {"type": "string"}},
        "required": ["type"],
        "additionalProperties": True,
        "description": "A chance outcome, a system event (resign, close_window, ...), or a move with hidden "
        "parameters redacted: `type` and what the caller may see.",
    }
    components.update(event_components())
    return components


def event_components() -> dict[str, dict]:
    """``Event``: a ``oneOf`` on ``kind``, so a chance outcome named like some game's action
    (``draw``) is never read as that action; a move's data is a typed move unless redacted."""
    common = {
        "seq": {"type": "integer"},
        "created_at": {"type": "string", "format": "date-time"},
        "hash": {"type": "string", "description": "Given once the game is over."},
        "hidden": {"type": "string", "description": "A moderator hid this contribution: why."},
    }
    kinds = {
        "move": ("MoveEvent", {"anyOf": [ref("AnyMove"), ref("EventData")]}, "A seat's move."),
        "chance": ("ChanceEvent", ref("EventData"), "A chance outcome (a deal, a shuffle), written out in full."),
        "system": ("SystemEvent", ref("EventData"), "A system event: resign, close_window, a timer, ..."),
    }
    out: dict[str, dict] = {}
    for kind, (name, data, description) in kinds.items():
        properties = {"seq": common["seq"], "kind": {"type": "string", "enum": [kind]}}
        if kind == "move":
            properties["seat"] = {"type": "integer"}
        properties.update(data=data, **{key: common[key] for key in ("hash", "hidden", "created_at")})
        required = ["seq", "kind", *(["seat"] if kind == "move" else []), "data", "created_at"]
        out[name] = {"type": "object", "properties": properties, "required": required, "description": description}
    out["Event"] = {
        "oneOf": [ref(name) for name, _, _ in kinds.values()],
        "discriminator": {
            "propertyName": "kind",
            "mapping": {kind: REF + name for kind, (name, _, _) in kinds.items()},
        },
        "description": "An event of the log as the caller may see it.",
    }
    return out


LEGAL_MOVES_PROPERTIES = {
    "seat": {"type": "integer", "nullable": True, "description": "The caller's seat (null: not seated)."},
    "head_seq": {"type": "integer", "description": "The seq these moves are legal at."},
}
STATE_PROPERTIES = {
    "game": {"type": "string", "format": "uuid"},
    "seat": LEGAL_MOVES_PROPERTIES["seat"],
    "head_seq": {"type": "integer"},
    "status": ref("GameStatusEnum"),  # the enum hook named Game.status's enum so
    "actors": {"type": "array", "items": {"type": "integer"}, "description": "The seats that may act now."},
    "window": {"allOf": [ref("Window")], "nullable": True},
    "view": {
        "type": "object",
        "additionalProperties": True,
        "nullable": True,
        "description": "What the caller may see: the game's own view (its rules document names the fields); "
        "null before the game starts (an open invitation).",
    },
    "outcome": {"allOf": [ref("Outcome")], "nullable": True},
    "clock": {"allOf": [ref("Clock")], "nullable": True},
}


def add_move_schemas(result, generator, request, public):
    """drf-spectacular postprocessing hook: the typed-move components (after the enum hook, which
    would otherwise turn every action's one-value ``type`` enum into a component of its own)."""
    result.setdefault("components", {}).setdefault("schemas", {}).update(move_components())
    return result
