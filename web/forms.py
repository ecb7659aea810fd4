"""Forms of the web pages: signing up, starting a game, and a club's new tournament or league."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.core.validators import RegexValidator
from django.utils.translation import gettext_lazy as _

from games import accounts
from games import selectors as game_selectors
from games.engines import all_engines
from league.names import bidi_controls_in
from league.tournaments.settings import SETTINGS

from .names import game_name

User = get_user_model()


def refuse_bidi_controls(value: str) -> None:
    """A name may not carry text-direction controls (league/names.py)."""
    found = bidi_controls_in(value)
    if found:
        message = _("Names may not contain text-direction control characters (%(found)s).")
        raise forms.ValidationError(message % {"found": ", ".join(found)}, code="bidi_control_characters")


EMAIL_TAKEN = _("Another account uses this e-mail address; give another one.")


class SignUpForm(UserCreationForm):
    """The API's account rules (``POST /api/accounts``): 2-40 letters, digits, _ . - and a
    password that passes the configured validators; an optional e-mail address for password reset."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["username"].validators.append(
            RegexValidator(r"^[A-Za-z0-9_.-]{2,40}$", _("Use 2-40 letters, digits, _ . or -."))
        )
        self.fields["username"].help_text = _("2-40 letters, digits, _ . or -.")
        self.fields["email"].label = _("E-mail address (optional)")
        self.fields["email"].help_text = _("Only to send you a link if you forget your password.")

    def clean_email(self):
        email = self.cleaned_data["email"]
        if email and accounts.email_in_use(email):
            raise forms.ValidationError(EMAIL_TAKEN)
        return email

    def clean_username(self):
        username = self.cleaned_data["username"]
        if User.objects.filter(username__iexact=username).exists():
            raise forms.ValidationError(_("That username is taken."))
        return username


class NewGameForm(forms.Form):
    engine = forms.ChoiceField(label=_("Game"))
    players = forms.IntegerField(label=_("Number of players"), min_value=1, max_value=16, initial=2)
    opponents = forms.CharField(
        label=_("Opponents"),
        required=False,
        help_text=_(
            "Usernames, separated by commas, in seat order after you: each is invited and the game starts "
            "once all have accepted; leave empty for open seats."
        ),
    )

    def __init__(self, *args, viewer, **kwargs):
        super().__init__(*args, **kwargs)
        self.engines = {engine.slug: engine for engine in game_selectors.engine_list(viewer=viewer)}
        self.fields["engine"].choices = [(slug, game_name(slug)) for slug in self.engines]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        engine = self.engines[data["engine"]]
        if not engine.min_seats <= data["players"] <= engine.max_seats:
            raise forms.ValidationError(
                _("%(game)s is played by %(low)s-%(high)s players.")
                % {"game": game_name(engine.slug), "low": engine.min_seats, "high": engine.max_seats}
            )
        names = [name.strip() for name in (data.get("opponents") or "").split(",") if name.strip()]
        if len(names) > data["players"] - 1:
            raise forms.ValidationError(_("Name at most %(count)s opponents.") % {"count": data["players"] - 1})
        users = {user.username: user for user in User.objects.filter(username__in=names)}
        missing = [name for name in names if name not in users]
        if missing:
            raise forms.ValidationError(_("No such player: %(names)s") % {"names": ", ".join(missing)})
        data["opponent_users"] = [users[name] for name in names]
        return data


# ---- club organisers: a new tournament or seasonal league ----------------------------------
# These forms only read the browser's text into numbers and flags; the services check every value
# (engine, format, rounds, settings) and their refusal comes back to the club page as ``code: message``.
# Mature games are left out of the lists: both services refuse them (``mature_not_supported``).
TOURNAMENT_FORMATS = (
    ("round_robin", _("round robin")),
    ("swiss", _("Swiss")),
    ("multi_swiss", _("Swiss for tables of 3-6")),
    ("single_elimination", _("single elimination")),
    ("double_elimination", _("double elimination")),
    ("groups_playoff", _("groups, then a playoff")),
)


def organiser_engines(*, two_player: bool) -> list[tuple[str, str]]:
    """The engines a club event may be of: not mature; for ``two_player`` only those two can play."""
    return [
        (engine.slug, game_name(engine.slug))
        for engine in all_engines()
        if not engine.mature and (not two_player or engine.min_seats <= 2 <= engine.max_seats)
    ]


def _engine_field() -> forms.CharField:
    # A CharField drawn as a list: a value not on the list reaches the service, which names it.
    return forms.CharField(label=_("Game"), widget=forms.Select)


class NewTournamentForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100, validators=[refuse_bidi_controls])
    engine = _engine_field()
    format = forms.CharField(label=_("Format"), widget=forms.Select(choices=TOURNAMENT_FORMATS))
    rounds = forms.IntegerField(label=_("Rounds (Swiss)"), required=False, help_text=_("Empty: as many as needed."))
    cycles = forms.IntegerField(label=_("Cycles (round robin)"), initial=1, required=False)
    round_deadline_hours = forms.IntegerField(
        label=_("Round deadline (hours)"), required=False, help_text=_("Empty: no deadline.")
    )
    third_place = forms.BooleanField(label=_("Third-place match"), required=False)
    grand_final_reset = forms.BooleanField(label=_("Grand final reset"), required=False, initial=True)
    groups = forms.IntegerField(label=_("Groups"), required=False)
    advance = forms.IntegerField(label=_("Advance per group"), required=False)
    allow_bots = forms.BooleanField(label=_("Allow bot accounts"), required=False)
    check_in = forms.BooleanField(label=_("Check-in before the start"), required=False)
    seeding = forms.ChoiceField(
        label=_("Seeding"),
        choices=[
            ("entry", _("entry order")),
            ("rating", _("by rating (the club's rating ladder)")),
            ("random", _("drawn at random")),
        ],
        initial="entry",
        required=False,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["engine"].widget.choices = organiser_engines(two_player=False)

    def service_arguments(self) -> dict:
        """The keyword arguments of ``tournament_create`` (after ``is_valid``): the checkboxes of the
        settings the format takes, and numbers only where the organiser wrote one."""
        data = self.cleaned_data
        format = data["format"]
        settings: dict = {}
        if data.get("round_deadline_hours") is not None:
            settings["round_deadline_seconds"] = data["round_deadline_hours"] * 3600
        for flag in ("third_place", "grand_final_reset", "allow_bots", "check_in"):
            if format in SETTINGS[flag]:
                settings[flag] = data[flag]
        for key in ("groups", "advance"):
            if data.get(key) is not None:
                settings[key] = data[key]
        if data.get("seeding") not in (None, "", "entry"):
            settings["seeding"] = data["seeding"]
        return {
            "name": data["name"],
            "engine": data["engine"],
            "format": format,
            "rounds": data.get("rounds"),
            "cycles": 1 if data.get("cycles") is None else data["cycles"],
            "settings": settings,
        }


class NewLeagueForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100, validators=[refuse_bidi_controls])
    engine = _engine_field()
    divisions = forms.IntegerField(label=_("Divisions"), initial=1, required=False)
    promote = forms.IntegerField(label=_("Promoted per division"), initial=2, required=False)
    relegate = forms.IntegerField(label=_("Relegated per division"), initial=2, required=False)
    cycles = forms.IntegerField(
        label=_("Cycles"), initial=1, required=False, help_text=_("1: single round robin, 2: double.")
    )
    days_per_round = forms.IntegerField(label=_("Days per round"), initial=7, required=False)
    table_seats = forms.IntegerField(
        label=_("Seats per table (3-6)"),
        required=False,
        help_text=_("Empty: two-player fixtures (or four seats for a game two cannot play)."),
    )
    table_seats_min = forms.IntegerField(label=_("Fewest seats at a table"), required=False)
    table_seats_max = forms.IntegerField(label=_("Most seats at a table"), required=False)
    placement_points = forms.CharField(
        label=_("Points per place"),
        required=False,
        help_text=_("Multiplayer: e.g. 3, 2, 1, 0 - first place first; empty: 1 for first down to 0 for last."),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["engine"].widget.choices = organiser_engines(two_player=False)

    def clean_placement_points(self):
        text = (self.cleaned_data.get("placement_points") or "").strip()
        if not text:
            return None
        try:
            return [float(value) for value in text.replace("、", ",").split(",")]
        except ValueError:
            raise forms.ValidationError(_("Write numbers separated by commas, e.g. 3, 2, 1, 0.")) from None

    def service_arguments(self) -> dict:
        """The keyword arguments of ``league_create`` (after ``is_valid``): an empty number keeps the
        service's default; any seat or placement-points field makes the fixtures multiplayer tables."""
        data = dict(self.cleaned_data)
        seats = {
            key: data.pop(field)
            for key, field in (("preferred", "table_seats"), ("min", "table_seats_min"), ("max", "table_seats_max"))
        }
        seats = {key: value for key, value in seats.items() if value is not None}
        placement = data.pop("placement_points")
        arguments = {key: value for key, value in data.items() if value is not None}
        if seats or placement is not None:
            arguments["tables"] = {"seats": seats, **({"placement_points": placement} if placement else {})}
        return arguments


def form_refusal(form: forms.Form) -> tuple[str, str]:
    """The first field error of a form that did not parse, as a service would say it: (code, message)."""
    field, errors = next(iter(form.errors.items()))
    return (f"invalid_{field}" if field != "__all__" else "invalid_form", f"{field}: {' '.join(errors)}")
