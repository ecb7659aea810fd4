"""Every write of the league: clubs and membership, ladders and their logs, challenges, matches
(tournaments are ``league.tournaments``).

Each service takes keyword-only arguments, owns its transaction, checks the caller's permission
(so the API and the web admin enforce the same rules) and takes ``now`` (default: the current
time), so tests can run months of a ladder on a simulated clock.
"""

from games.errors import ServiceError

from .challenges import (
    challenge_accept,
    challenge_create,
    challenge_decline,
    challenge_result_record,
    challenge_withdraw,
)
from .clubs import (
    club_create,
    club_update,
    membership_approve,
    membership_invite,
    membership_join,
    membership_remove,
    membership_set_role,
    profile_update,
)
from .ladder_deadlines import ladder_sweep, ladders_sweep
from .ladders import (
    ladder_correct,
    ladder_create,
    ladder_join,
    ladder_update,
    ladder_withdraw,
    rated_game_create,
)
from .log import ladder_rebuild, ladder_verify
from .matches import match_create
from .membership import is_member, is_organiser
from .results import league_game_finished

__all__ = [
    "ServiceError",
    "challenge_accept",
    "challenge_create",
    "challenge_decline",
    "challenge_result_record",
    "challenge_withdraw",
    "club_create",
    "club_update",
    "is_member",
    "is_organiser",
    "ladder_correct",
    "ladder_create",
    "ladder_join",
    "ladder_rebuild",
    "ladder_sweep",
    "ladder_update",
    "ladder_verify",
    "ladder_withdraw",
    "ladders_sweep",
    "league_game_finished",
    "match_create",
    "membership_approve",
    "membership_invite",
    "membership_join",
    "membership_remove",
    "membership_set_role",
    "profile_update",
    "rated_game_create",
]
