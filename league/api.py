"""League API views: thin - validate input, call one service or selector, serialize the answer.

Reads are public (like games); writes need a token, and the services decide who may do what
(organisers manage their club, members act only as themselves).
"""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, status
from rest_framework.response import Response
from rest_framework.views import APIView

from games.selectors import game_get
from games.serializers import GameSerializer
from kifu.http.errors import ApiError, error_responses
from kifu.http.params import AFTER_SEQ, PAGE_LIMIT, bool_param, choice_param, validated

from . import exports, selectors, services
from . import serializers as s
from .loaders import load_challenge, load_club, load_ladder, load_user
from .models import Challenge, Match, Membership, PlayerProfile

ERRORS = error_responses(400, 401, 403, 404, 409)


# ---- players ----------------------------------------------------------------------------------
class ProfileView(APIView):
    required_scope = "account"  # the account itself: no personal token (api/scopes.py)
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: s.ProfileSerializer, **ERRORS}, tags=["players"])
    def get(self, request):
        """Your player profile: display name and language."""
        profile, _ = PlayerProfile.objects.get_or_create(user=request.user)
        return Response(s.ProfileSerializer(profile).data)

    @extend_schema(request=s.ProfileUpdateSerializer, responses={200: s.ProfileSerializer, **ERRORS}, tags=["players"])
    def patch(self, request):
        """Change your display name or language."""
        profile = services.profile_update(user=request.user, **validated(s.ProfileUpdateSerializer, request))
        return Response(s.ProfileSerializer(profile).data)


class PlayerView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses={200: s.ProfileSerializer, **ERRORS}, tags=["players"])
    def get(self, request, username: str):
        """A player's public profile."""
        user = selectors.user_by_name(username)
        if user is None:
            raise ApiError("not_found", f"no player called {username!r}", status.HTTP_404_NOT_FOUND)
        profile = PlayerProfile.objects.filter(user=user).first() or PlayerProfile(user=user)
        return Response(s.ProfileSerializer(profile).data)


# ---- clubs and members ------------------------------------------------------------------------
class ClubListView(APIView):
    @extend_schema(responses={200: s.ClubSerializer(many=True)}, tags=["clubs"])
    def get(self, request):
        """Every club."""
        return Response(s.ClubSerializer(selectors.club_list(), many=True).data)

    @extend_schema(request=s.ClubCreateSerializer, responses={201: s.ClubSerializer, **ERRORS}, tags=["clubs"])
    def post(self, request):
        """Found a club; you become its first organiser (and may manage it in the web admin)."""
        club = services.club_create(by=request.user, **validated(s.ClubCreateSerializer, request))
        return Response(s.ClubSerializer(club).data, status=status.HTTP_201_CREATED)


class ClubDetailView(APIView):
    @extend_schema(responses={200: s.ClubSerializer, **ERRORS}, tags=["clubs"])
    def get(self, request, slug: str):
        """A club."""
        return Response(s.ClubSerializer(load_club(slug)).data)

    @extend_schema(request=s.ClubUpdateSerializer, responses={200: s.ClubSerializer, **ERRORS}, tags=["clubs"])
    def patch(self, request, slug: str):
        """Organisers: rename the club or change its description."""
        club = services.club_update(
            club_id=load_club(slug).pk, by=request.user, **validated(s.ClubUpdateSerializer, request)
        )
        return Response(s.ClubSerializer(club).data)


class MemberListView(APIView):
    @extend_schema(responses={200: s.MembershipSerializer(many=True)}, tags=["clubs"])
    def get(self, request, slug: str):
        """Members; organisers also see invitations and requests to join."""
        members = selectors.member_list(club=load_club(slug), viewer=request.user)
        return Response(s.MembershipSerializer(members, many=True).data)

    @extend_schema(request=s.InviteSerializer, responses={201: s.MembershipSerializer, **ERRORS}, tags=["clubs"])
    def post(self, request, slug: str):
        """Organisers: invite a player (as member or organiser); one who asked to join is admitted."""
        data = validated(s.InviteSerializer, request)
        membership = services.membership_invite(
            club_id=load_club(slug).pk, by=request.user, user=load_user(data["username"]), role=data["role"]
        )
        return Response(s.MembershipSerializer(membership).data, status=status.HTTP_201_CREATED)


class ClubJoinView(APIView):
    required_scope = "play"  # a player's own act: a play-only token may (api/scopes.py)
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={200: s.MembershipSerializer, **ERRORS}, tags=["clubs"])
    def post(self, request, slug: str):
        """Accept your invitation, or ask to join (status "requested" until an organiser approves)."""
        membership = services.membership_join(club_id=load_club(slug).pk, by=request.user)
        return Response(s.MembershipSerializer(membership).data)


# The new role is required: a plain schema, not drf-spectacular's PATCH component (all optional).
ROLE_REQUEST = {
    "application/json": {
        "type": "object",
        "properties": {"role": {"type": "string", "enum": [value for value, _label in Membership.Role.choices]}},
        "required": ["role"],
    }
}


class MemberDetailView(APIView):
    @extend_schema(request=ROLE_REQUEST, responses={200: s.MembershipSerializer, **ERRORS}, tags=["clubs"])
    def patch(self, request, slug: str, username: str):
        """Organisers: make a member an organiser, or an organiser a member."""
        data = validated(s.RoleSerializer, request)
        membership = services.membership_set_role(
            club_id=load_club(slug).pk, by=request.user, user=load_user(username), role=data["role"]
        )
        return Response(s.MembershipSerializer(membership).data)

    @extend_schema(request=None, responses={204: None, **ERRORS}, tags=["clubs"])
    def delete(self, request, slug: str, username: str):
        """Leave the club (your own username), or, as an organiser, remove a member. Ladders are left too."""
        services.membership_remove(club_id=load_club(slug).pk, by=request.user, user=load_user(username))
        return Response(status=status.HTTP_204_NO_CONTENT)


class MemberApproveView(APIView):
    @extend_schema(request=None, responses={200: s.MembershipSerializer, **ERRORS}, tags=["clubs"])
    def post(self, request, slug: str, username: str):
        """Organisers: admit a player who asked to join."""
        membership = services.membership_approve(club_id=load_club(slug).pk, by=request.user, user=load_user(username))
        return Response(s.MembershipSerializer(membership).data)


# ---- ladders ----------------------------------------------------------------------------------
class ClubLadderListView(APIView):
    @extend_schema(responses={200: s.LadderSerializer(many=True)}, tags=["ladders"])
    def get(self, request, slug: str):
        """The club's ladders."""
        return Response(s.LadderSerializer(selectors.ladder_list(club=load_club(slug)), many=True).data)

    @extend_schema(request=s.LadderCreateSerializer, responses={201: s.LadderSerializer, **ERRORS}, tags=["ladders"])
    def post(self, request, slug: str):
        """Organisers: a challenge ladder (two-player game) or a rating ladder (any game) for one game."""
        ladder = services.ladder_create(
            club_id=load_club(slug).pk, by=request.user, **validated(s.LadderCreateSerializer, request)
        )
        return Response(s.LadderSerializer(ladder).data, status=status.HTTP_201_CREATED)


class LadderDetailView(APIView):
    @extend_schema(responses={200: s.LadderSerializer, **ERRORS}, tags=["ladders"])
    def get(self, request, pk: int):
        """A ladder and its current settings."""
        return Response(s.LadderSerializer(load_ladder(pk)).data)

    @extend_schema(request=s.LadderUpdateSerializer, responses={200: s.LadderSerializer, **ERRORS}, tags=["ladders"])
    def patch(self, request, pk: int):
        """Organisers: rename, or change settings (logged; effective from now on)."""
        data = validated(s.LadderUpdateSerializer, request)
        ladder = services.ladder_update(ladder_id=load_ladder(pk).pk, by=request.user, **data)
        return Response(s.LadderSerializer(load_ladder(ladder.pk)).data)


class StandingsView(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("all", bool, description="Include players who left (no position).")],
        responses={200: s.EntrySerializer(many=True), **ERRORS},
        tags=["ladders"],
    )
    def get(self, request, pk: int):
        """Positions (challenge ladder) or the rating order (rating ladder), with records and ratings."""
        include = bool_param(request, "all")
        entries = selectors.standings(ladder=load_ladder(pk), include_inactive=include)
        return Response(s.EntrySerializer(entries, many=True).data)


class LadderEventsView(APIView):
    @extend_schema(
        parameters=[AFTER_SEQ.openapi(), PAGE_LIMIT.openapi()],
        responses={200: s.LadderEventSerializer(many=True), **ERRORS},
        tags=["ladders"],
    )
    def get(self, request, pk: int):
        """The ladder's append-only log: results, forfeits, withdrawals, drops and corrections."""
        events = selectors.ladder_log(
            ladder=load_ladder(pk),
            after=AFTER_SEQ.read(request),
            limit=PAGE_LIMIT.read(request),
        )
        ids = set().union(*(selectors.payload_players(e.payload) for e in events)) if events else set()
        context = {"names": selectors.usernames(ids)}
        return Response(s.LadderEventSerializer(events, many=True, context=context).data)


class LadderVerificationView(APIView):
    @extend_schema(responses={200: s.LadderVerificationSerializer, **ERRORS}, tags=["ladders"])
    def get(self, request, pk: int):
        """Recompute the log's hash chain and compare the standings with a fresh fold of the log."""
        return Response(services.ladder_verify(ladder=load_ladder(pk)))


class LadderJoinView(APIView):
    required_scope = "play"  # a player's own act: a play-only token may (api/scopes.py)
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={200: s.EntrySerializer, **ERRORS}, tags=["ladders"])
    def post(self, request, pk: int):
        """Members: join the ladder (a challenge ladder puts you at the bottom)."""
        entry = services.ladder_join(ladder_id=load_ladder(pk).pk, by=request.user)
        return Response(s.EntrySerializer(entry).data)


class LadderWithdrawView(APIView):
    required_scope = "play"  # a player's own act: a play-only token may (api/scopes.py)
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.WithdrawSerializer, responses={204: None, **ERRORS}, tags=["ladders"])
    def post(self, request, pk: int):
        """Leave the ladder (organisers may withdraw anyone); your open challenges become void."""
        data = validated(s.WithdrawSerializer, request)
        player = load_user(data["username"]) if data.get("username") else request.user
        services.ladder_withdraw(ladder_id=load_ladder(pk).pk, by=request.user, player=player, reason=data["reason"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class RatingHistoryView(APIView):
    @extend_schema(responses={200: s.RatingPointSerializer(many=True), **ERRORS}, tags=["ladders"])
    def get(self, request, pk: int, username: str):
        """A player's rating after each rated result on this ladder, oldest first."""
        ladder = load_ladder(pk)
        user = selectors.user_by_name(username)
        if user is None:
            raise ApiError("not_found", f"no player called {username!r}", status.HTTP_404_NOT_FOUND)
        return Response(s.RatingPointSerializer(selectors.rating_history(ladder=ladder, user=user), many=True).data)


class RatedGameView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=s.RatedGameSerializer, responses={201: s.RatedGameResultSerializer, **ERRORS}, tags=["ladders"]
    )
    def post(self, request, pk: int):
        """Rating ladders: start a rated game (or match) between members; its ranking will be rated."""
        data = validated(s.RatedGameSerializer, request)
        players = [load_user(name, field="players") for name in data["players"]]
        created = services.rated_game_create(ladder_id=load_ladder(pk).pk, by=request.user, players=players)
        if isinstance(created, Match):
            return Response({"game": None, "match": created.pk}, status=status.HTTP_201_CREATED)
        return Response({"game": created.game_id, "match": None}, status=status.HTTP_201_CREATED)


class CorrectionView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.CorrectionSerializer, responses={201: s.LadderEventSerializer, **ERRORS}, tags=["ladders"])
    def post(self, request, pk: int):
        """Organisers: correct a logged result, forfeit, drop or withdrawal; everything after is recomputed."""
        data = validated(s.CorrectionSerializer, request)
        changes = dict(data["changes"])
        if isinstance(changes.get("ranking"), list):
            changes["ranking"] = [
                [load_user(str(name), field="ranking").pk for name in (group if isinstance(group, list) else [group])]
                for group in changes["ranking"]
            ]
        for key in ("winner", "loser"):
            if key in changes:
                changes[key] = load_user(str(changes[key]), field=key).pk
        event = services.ladder_correct(
            ladder_id=load_ladder(pk).pk, by=request.user, target=data["event"], changes=changes, reason=data["reason"]
        )
        names = selectors.usernames(selectors.payload_players(event.payload))
        return Response(s.LadderEventSerializer(event, context={"names": names}).data, status=status.HTTP_201_CREATED)


# ---- challenges -------------------------------------------------------------------------------
class ChallengeListView(APIView):
    required_scope = "play"  # a player's own act: a play-only token may (api/scopes.py)

    @extend_schema(
        parameters=[
            OpenApiParameter("status", str, enum=Challenge.Status.values),
            OpenApiParameter("player", str, description="Challenges this username is in."),
        ],
        responses={200: s.ChallengeSerializer(many=True), **ERRORS},
        tags=["challenges"],
    )
    def get(self, request, pk: int):
        """The ladder's challenges, newest first."""
        player = request.query_params.get("player")
        challenges = selectors.challenge_list(
            ladder=load_ladder(pk),
            status=choice_param(request, "status", Challenge.Status.values),
            player=load_user(player, field="player") if player else None,
        )
        return Response(s.ChallengeSerializer(challenges, many=True).data)

    @extend_schema(
        request=s.ChallengeCreateSerializer, responses={201: s.ChallengeSerializer, **ERRORS}, tags=["challenges"]
    )
    def post(self, request, pk: int):
        """Challenge a player above you; they have the ladder's accept_days to accept or decline."""
        data = validated(s.ChallengeCreateSerializer, request)
        challenge = services.challenge_create(
            ladder_id=load_ladder(pk).pk, by=request.user, defender=load_user(data["defender"], field="defender")
        )
        return Response(s.ChallengeSerializer(load_challenge(challenge.pk)).data, status=status.HTTP_201_CREATED)


class ChallengeDetailView(APIView):
    @extend_schema(responses={200: s.ChallengeSerializer, **ERRORS}, tags=["challenges"])
    def get(self, request, pk):
        """A challenge: its deadlines, its game or match, and how it was decided."""
        return Response(s.ChallengeSerializer(load_challenge(pk)).data)


class ChallengeActionView(APIView):
    """A step of the challenge by one of its players; subclasses name the service."""

    required_scope = "play"  # a player's own act: a play-only token may (api/scopes.py)

    permission_classes = [permissions.IsAuthenticated]
    service = None

    def post(self, request, pk):
        challenge = type(self).service(challenge_id=load_challenge(pk).pk, by=request.user)
        return Response(s.ChallengeSerializer(load_challenge(challenge.pk)).data)


class ChallengeAcceptView(ChallengeActionView):
    service = staticmethod(services.challenge_accept)

    @extend_schema(request=None, responses={200: s.ChallengeSerializer, **ERRORS}, tags=["challenges"])
    def post(self, request, pk):
        """The defender accepts: the challenge's game (or match) is created and both seats are taken."""
        return super().post(request, pk)


class ChallengeDeclineView(ChallengeActionView):
    service = staticmethod(services.challenge_decline)

    @extend_schema(request=None, responses={200: s.ChallengeSerializer, **ERRORS}, tags=["challenges"])
    def post(self, request, pk):
        """The defender declines, which forfeits the challenge."""
        return super().post(request, pk)


class ChallengeWithdrawView(ChallengeActionView):
    service = staticmethod(services.challenge_withdraw)

    @extend_schema(request=None, responses={200: s.ChallengeSerializer, **ERRORS}, tags=["challenges"])
    def post(self, request, pk):
        """The challenger takes back a challenge not yet accepted."""
        return super().post(request, pk)


class ChallengeResultView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.ResultSerializer, responses={200: s.ChallengeSerializer, **ERRORS}, tags=["challenges"])
    def post(self, request, pk):
        """Organisers: record the result of a challenge played at a table (winner null: a draw)."""
        data = validated(s.ResultSerializer, request)
        winner = load_user(data["winner"], field="winner") if data["winner"] else None
        challenge = services.challenge_result_record(challenge_id=load_challenge(pk).pk, by=request.user, winner=winner)
        return Response(s.ChallengeSerializer(load_challenge(challenge.pk)).data)


# ---- matches ----------------------------------------------------------------------------------
def load_match(pk) -> Match:
    match = selectors.match_get(match_id=pk)
    if match is None:
        raise ApiError("not_found", "no such match", status.HTTP_404_NOT_FOUND)
    return match


class MatchListView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.MatchCreateSerializer, responses={201: s.MatchSerializer, **ERRORS}, tags=["matches"])
    def post(self, request):
        """A friendly match you play in: best_of N, first_to N points (wins or game scores), or a
        session of N games under the game's own carry-over rules."""
        data = validated(s.MatchCreateSerializer, request)
        players = [load_user(name, field="players") for name in data["players"]]
        spec = {"format": data["format"], "target": data["target"], "points": data["points"]}
        match = services.match_create(
            engine=data["engine"], players=players, spec=spec, config=data["config"], by=request.user
        )
        return Response(s.MatchSerializer(load_match(match.pk)).data, status=status.HTTP_201_CREATED)


class MatchDetailView(APIView):
    @extend_schema(responses={200: s.MatchSerializer, **ERRORS}, tags=["matches"])
    def get(self, request, pk):
        """A match: its games so far, the points and, once over, the result."""
        return Response(s.MatchSerializer(load_match(pk)).data)


class MatchCurrentGameView(APIView):
    @extend_schema(responses={200: GameSerializer, **ERRORS}, tags=["matches"])
    def get(self, request, pk):
        """The match's latest game (the one being played, or the last one)."""
        games = selectors.match_games(match=load_match(pk))
        game = game_get(game_id=games[-1].game_id)
        return Response(GameSerializer(game, context={"request": request}).data)


# ---- exports: CSV and calendar feeds (league/exports.py) ----------------------------------------
ICS = {(200, "text/calendar"): str, **ERRORS}


class LadderStandingsCsvView(APIView):
    @extend_schema(responses={(200, "text/csv"): str, **ERRORS}, tags=["ladders"])
    def get(self, request, pk: int):
        """The standings as CSV, in the order of ``standings``: one row a player on the ladder."""
        ladder = load_ladder(pk)
        return exports.csv_response(
            filename=f"ladder-{ladder.pk}-standings.csv",
            header=exports.LADDER_COLUMNS,
            rows=exports.ladder_csv_rows(selectors.standings(ladder=ladder)),
        )


class LadderCalendarView(APIView):
    @extend_schema(responses=ICS, tags=["ladders"])
    def get(self, request, pk: int):
        """iCalendar feed of the open challenges: when each must be answered, or played."""
        ladder = load_ladder(pk)
        return exports.calendar_response(exports.ladder_calendar(ladder), filename=f"ladder-{ladder.pk}.ics")


class ProfileCalendarView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: s.CalendarFeedSerializer, **ERRORS}, tags=["players"])
    def get(self, request):
        """The address of your own calendar feed (your fixtures, rounds and challenges with their
        deadlines). Its key opens only that feed; it changes when your password changes."""
        user = request.user
        path = reverse("league:player-calendar", kwargs={"username": user.username})
        url = request.build_absolute_uri(f"{path}?key={exports.player_feed_key(user)}")
        return Response({"url": url})


class PlayerCalendarView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        parameters=[OpenApiParameter("key", str, description="The feed key from GET /api/profile/calendar.")],
        responses=ICS,
        tags=["players"],
    )
    def get(self, request, username: str):
        """A player's calendar feed: their season fixtures, tournament boards (at the round's deadline)
        and open ladder challenges. Needs the feed's ``key`` (or the player's own token)."""
        user = selectors.user_by_name(username)
        if user is None:
            raise ApiError("not_found", f"no player called {username!r}", status.HTTP_404_NOT_FOUND)
        if request.user != user and not exports.player_feed_key_valid(user, request.query_params.get("key")):
            raise ApiError(
                "feed_key_invalid",
                "key: this feed is private; its address, with its key, is at GET /api/profile/calendar",
                status.HTTP_403_FORBIDDEN,
            )
        response = exports.calendar_response(exports.player_calendar(user), filename=f"{user.username}.ics")
        response["Cache-Control"] = "private, no-store"  # a shared cache must not keep one player's feed
        return response
