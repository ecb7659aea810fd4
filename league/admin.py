"""Web admin for clubs: an organiser (staff, see services.clubs._grant_admin) sees and manages only
the clubs they organise; every change goes through the same services as the API, and the ladder
log and its projections are read-only here."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import Q

from games.engines import all_engines, get_engine
from games.engines.base import RuleError

from . import services
from .models import (
    Challenge,
    Club,
    Ladder,
    LadderEntry,
    LadderEvent,
    Match,
    Membership,
    PlayerProfile,
    RatingPoint,
    ResultReport,
    ResultReportStep,
    Tournament,
    TournamentBoard,
    TournamentEntry,
    TournamentRound,
)
from .scoring import ladder as rules
from .scoring.errors import ScoringError
from .tournaments.lifecycle import tournament_advance


def organised_clubs(user) -> Q | None:
    """A filter for the clubs ``user`` organises; None means every club (a superuser)."""
    if user.is_superuser:
        return None
    return Q(memberships__user=user, memberships__role="organiser", memberships__status="active")


class OrganiserScoped:
    """Admin permissions by club: a superuser sees all, an organiser the clubs they organise."""

    club_path = "club"
    readonly = False

    def _club_ids(self, request) -> list[int] | None:
        scope = organised_clubs(request.user)
        return None if scope is None else list(Club.objects.filter(scope).values_list("pk", flat=True))

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        clubs = self._club_ids(request)
        return queryset if clubs is None else queryset.filter(**{f"{self.club_path}__in": clubs})

    def _allowed(self, request, obj=None) -> bool:
        clubs = self._club_ids(request)
        if clubs is None:
            return True
        if not clubs:
            return False
        if obj is None:
            return True
        club = obj
        for part in self.club_path.split("__"):
            club = getattr(club, part) if part != "pk" else club
        return club is not None and club.pk in clubs

    def has_module_permission(self, request):
        return request.user.is_active and self._allowed(request)

    def has_view_permission(self, request, obj=None):
        return request.user.is_active and self._allowed(request, obj)

    def has_change_permission(self, request, obj=None):
        return not self.readonly and self.has_view_permission(request, obj)

    def has_add_permission(self, request):
        return not self.readonly and self.has_view_permission(request)

    def has_delete_permission(self, request, obj=None):
        return False


def run_service(admin_view, request, call) -> bool:
    """Call a service; its refusal becomes an error message on the page instead of a crash."""
    try:
        call()
    except services.ServiceError as error:
        admin_view.message_user(request, f"{error.code}: {error.message}", level=messages.ERROR)
        return False
    return True


@admin.register(Club)
class ClubAdmin(OrganiserScoped, admin.ModelAdmin):
    club_path = "pk"
    list_display = ("name", "slug", "created_at")
    search_fields = ("name", "slug")
    fields = ("name", "slug", "description", "created_at")
    readonly_fields = ("slug", "created_at")

    def has_add_permission(self, request):
        return request.user.is_superuser

    def get_readonly_fields(self, request, obj=None):
        return ("created_at",) if obj is None else self.readonly_fields

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data

        def update():
            services.club_update(club_id=obj.pk, by=request.user, name=data["name"], description=data["description"])

        def create():
            club = services.club_create(
                name=obj.name, slug=obj.slug or None, description=obj.description, by=request.user
            )
            obj.pk = club.pk

        run_service(self, request, update if change else create)


class MembershipForm(forms.ModelForm):
    class Meta:
        model = Membership
        fields = ["club", "user", "role"]


@admin.register(Membership)
class MembershipAdmin(OrganiserScoped, admin.ModelAdmin):
    form = MembershipForm
    list_display = ("user", "club", "role", "status", "joined_at")
    list_filter = ("role", "status", "club")
    search_fields = ("user__username",)
    actions = ["approve", "remove"]
    raw_id_fields = ("user",)

    def get_readonly_fields(self, request, obj=None):
        return ("club", "user", "status") if obj else ("status",)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "club":
            clubs = self._club_ids(request)
            kwargs["queryset"] = Club.objects.all() if clubs is None else Club.objects.filter(pk__in=clubs)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        """Adding a membership invites the player; changing one changes the role."""
        role = form.cleaned_data["role"]

        def update():
            services.membership_set_role(club_id=obj.club_id, by=request.user, user=obj.user, role=role)

        def invite():
            obj.pk = services.membership_invite(club_id=obj.club_id, by=request.user, user=obj.user, role=role).pk

        run_service(self, request, update if change else invite)

    @admin.action(description="Admit the selected requests to join")
    def approve(self, request, queryset):
        for membership in queryset.filter(status=Membership.Status.REQUESTED):
            run_service(
                self,
                request,
                lambda m=membership: services.membership_approve(club_id=m.club_id, by=request.user, user=m.user),
            )

    @admin.action(description="Remove the selected members from their club (and its ladders)")
    def remove(self, request, queryset):
        for membership in queryset.exclude(status=Membership.Status.LEFT):
            run_service(
                self,
                request,
                lambda m=membership: services.membership_remove(club_id=m.club_id, by=request.user, user=m.user),
            )


class LadderForm(forms.ModelForm):
    engine = forms.ChoiceField(choices=[])

    class Meta:
        model = Ladder
        fields = ["club", "name", "kind", "engine", "game_config", "settings"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "engine" in self.fields:
            self.fields["engine"].choices = [(engine.slug, engine.name) for engine in all_engines()]
        for name in ("game_config", "settings"):
            if name in self.fields:
                self.fields[name].required = False

    def clean(self):
        data = super().clean()
        kind = data.get("kind") or (self.instance.kind if self.instance.pk else None)
        try:
            if not self.instance.pk and data.get("engine"):
                get_engine(data["engine"]).validate_config(data.get("game_config") or {})
            if kind and data.get("settings") is not None:
                base = self.instance.settings if self.instance.pk else None
                rules.validate_settings(kind, data.get("settings") or {}, base=base)
        except (RuleError, ScoringError) as error:
            raise forms.ValidationError(f"{error.code}: {error.message}") from None
        return data


class EntryInline(admin.TabularInline):
    model = LadderEntry
    fields = (
        "position",
        "user",
        "active",
        "played",
        "won",
        "lost",
        "drawn",
        "forfeits_won",
        "forfeits_lost",
        "ordinal",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("position",)

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Ladder)
class LadderAdmin(OrganiserScoped, admin.ModelAdmin):
    form = LadderForm
    list_display = ("name", "club", "kind", "engine", "head_seq")
    list_filter = ("kind", "engine")
    inlines = [EntryInline]
    actions = ["sweep", "rebuild"]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ("head_seq", "projected_seq")
        return ("club", "kind", "engine", "game_config", "head_seq", "projected_seq")

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "club":
            clubs = self._club_ids(request)
            kwargs["queryset"] = Club.objects.all() if clubs is None else Club.objects.filter(pk__in=clubs)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        """Settings edited here are the whole settings object; the service logs the change."""
        data = form.cleaned_data
        if change:
            before = form.initial.get("settings") or {}
            changed = {key: value for key, value in (data.get("settings") or {}).items() if before.get(key) != value}

            def update():
                services.ladder_update(ladder_id=obj.pk, by=request.user, name=data["name"], settings=changed)

            run_service(self, request, update)
            return

        def create():
            ladder = services.ladder_create(
                club_id=data["club"].pk,
                by=request.user,
                name=data["name"],
                kind=data["kind"],
                engine=data["engine"],
                game_config=data.get("game_config") or {},
                settings=data.get("settings") or {},
            )
            obj.pk = ladder.pk

        run_service(self, request, create)

    def save_related(self, request, form, formsets, change):
        if form.instance.pk:  # a refused create has nothing to relate
            super().save_related(request, form, formsets, change)

    @admin.action(description="Apply due deadlines and inactivity drops now")
    def sweep(self, request, queryset):
        for ladder in queryset:
            run_service(self, request, lambda ladder=ladder: services.ladder_sweep(ladder_id=ladder.pk))

    @admin.action(description="Rebuild standings and ratings from the log")
    def rebuild(self, request, queryset):
        for ladder in queryset:
            run_service(self, request, lambda ladder=ladder: services.ladder_rebuild(ladder_id=ladder.pk))


@admin.register(LadderEvent)
class LadderEventAdmin(OrganiserScoped, admin.ModelAdmin):
    """The log is append-only; corrections are new events (API: POST /api/ladders/{id}/corrections)."""

    club_path = "ladder__club"
    readonly = True
    list_display = ("ladder", "seq", "kind", "actor", "at")
    list_filter = ("kind",)


@admin.register(Challenge)
class ChallengeAdmin(OrganiserScoped, admin.ModelAdmin):
    club_path = "ladder__club"
    readonly = True
    list_display = ("ladder", "challenger", "defender", "status", "issued_at", "accept_by", "play_by")
    list_filter = ("status",)


@admin.register(Match)
class MatchAdmin(OrganiserScoped, admin.ModelAdmin):
    club_path = "ladder__club"
    readonly = True
    list_display = ("id", "engine", "status", "created_at")


@admin.register(RatingPoint)
class RatingPointAdmin(OrganiserScoped, admin.ModelAdmin):
    club_path = "ladder__club"
    readonly = True
    list_display = ("ladder", "user", "seq", "mu", "sigma", "ordinal", "at")


@admin.register(PlayerProfile)
class PlayerProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "display_name", "language")


# ---- tournaments: read-only here; every change goes through the services (the API's endpoints) ----
class ReadOnlyInline(admin.TabularInline):
    """Rows shown, never added, changed or deleted here (a subclass sets ``model`` and ``fields``)."""

    extra = 0
    can_delete = False

    def get_readonly_fields(self, request, obj=None):
        return self.fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class TournamentEntryInline(ReadOnlyInline):
    model = TournamentEntry
    fields = ("number", "user", "status", "first_round", "checked_in_at", "dropped_after_round", "group")


class TournamentRoundInline(ReadOnlyInline):
    model = TournamentRound
    fields = ("number", "stage", "seed", "manual", "deadline_at", "created_at")


@admin.register(Tournament)
class TournamentAdmin(OrganiserScoped, admin.ModelAdmin):
    """Tournaments with their entries and rounds; the action pairs the next round (or finishes the
    tournament) through ``tournament_advance`` - the same rules as POST /api/tournaments/{id}/rounds."""

    readonly = True
    list_display = ("name", "club", "format", "engine", "status", "current_round", "rounds", "created_at")
    list_filter = ("format", "status")
    inlines = [TournamentEntryInline, TournamentRoundInline]
    actions = ["advance"]

    @admin.action(description="Pair the next round now (or finish after the last)")
    def advance(self, request, queryset):
        for tournament in queryset:
            if run_service(self, request, lambda t=tournament: tournament_advance(tournament_id=t.pk, by=request.user)):
                self.message_user(
                    request, f"{tournament.name}: round {Tournament.objects.get(pk=tournament.pk).current_round}"
                )


@admin.register(TournamentBoard)
class TournamentBoardAdmin(OrganiserScoped, admin.ModelAdmin):
    """Boards are results; corrections go through POST /api/tournaments/{id}/results."""

    club_path = "tournament__club"
    readonly = True
    list_display = ("tournament", "round", "number", "bracket_match", "players", "decided_by", "finished_at")
    list_filter = ("decided_by",)


class ResultReportStepInline(ReadOnlyInline):
    model = ResultReportStep
    fields = ("seq", "kind", "actor", "at", "payload")


@admin.register(ResultReport)
class ResultReportAdmin(OrganiserScoped, admin.ModelAdmin):
    """Reported results (``league.reports``), read-only: they change through the pairing's report
    page or POST /api/pairings/<kind>/<id>/settle. A report belongs to a ladder, a tournament or a
    season, so its club is found through whichever it has."""

    readonly = True
    list_display = ("kind", "pairing", "status", "reported_by", "reported_at", "confirm_by", "decided_at")
    list_filter = ("status", "kind")
    inlines = [ResultReportStepInline]

    def get_queryset(self, request):
        queryset = admin.ModelAdmin.get_queryset(self, request)
        clubs = self._club_ids(request)
        if clubs is None:
            return queryset
        return queryset.filter(
            Q(ladder__club__in=clubs) | Q(tournament__club__in=clubs) | Q(season__league__club__in=clubs)
        )

    def _allowed(self, request, obj=None) -> bool:
        clubs = self._club_ids(request)
        if clubs is None or (clubs and obj is None):
            return True
        if obj is None:
            return False
        owner = obj.ladder or obj.tournament
        return (owner.club_id if owner is not None else obj.season.league.club_id) in clubs
