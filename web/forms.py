"""Forms of the web pages: signing up and starting a game."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.core.validators import RegexValidator
from django.utils.translation import gettext_lazy as _

from games.engines import all_engines

from .names import game_name

User = get_user_model()


class SignUpForm(UserCreationForm):
    """The API's account rules (``POST /api/accounts``): 2-40 letters, digits, _ . - and a
    password that passes the configured validators."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["username"].validators.append(
            RegexValidator(r"^[A-Za-z0-9_.-]{2,40}$", _("Use 2-40 letters, digits, _ . or -."))
        )
        self.fields["username"].help_text = _("2-40 letters, digits, _ . or -.")

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
        help_text=_("Usernames, separated by commas, in seat order after you; leave empty for open seats."),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["engine"].choices = [(engine.slug, game_name(engine.slug)) for engine in all_engines()]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        engine = next(e for e in all_engines() if e.slug == data["engine"])
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
