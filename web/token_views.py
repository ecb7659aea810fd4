"""The account's personal API tokens on a web page (issue 19 item 3): list, make one with a name
and scopes (its key is on the answer page only, once), revoke. The same services as
``/api/me/tokens`` (games/accounts.py)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from games import accounts


class PersonalTokenForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100, help_text=_("What the token is for, e.g. your bot's name."))
    scopes = forms.MultipleChoiceField(
        label=_("May also"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        choices=[
            ("play", _("play: moves, joining games, invitations, the lobby, table entries")),
            ("organise", _("organise: clubs, ladders, tournaments, seasons, reported results")),
        ],
        help_text=_("Every token may read. A bot needs only play."),
    )


@login_required
def personal_tokens(request):
    """The list and the form; a valid POST makes a token and shows its key on this answer only."""
    form = PersonalTokenForm(request.POST or None)
    made = None
    if request.method == "POST" and form.is_valid():
        try:
            token, key = accounts.personal_token_create(
                user=request.user, name=form.cleaned_data["name"], scopes=form.cleaned_data["scopes"]
            )
        except accounts.TooManyTokens:
            form.add_error(None, gettext("You have too many tokens; revoke one first."))
        else:
            made = {"token": token, "key": key}
            form = PersonalTokenForm()
    context = {"form": form, "made": made, "tokens": accounts.personal_token_list(user=request.user)}
    return render(request, "web/personal_tokens.html", context, status=400 if form.errors else 200)


@login_required
@require_POST
def personal_token_revoke(request, token_id: int):
    if accounts.personal_token_revoke(user=request.user, token_id=token_id):
        messages.success(request, gettext("The token is revoked: it no longer works."))
    else:
        messages.error(request, gettext("You have no such token."))
    return redirect("web:personal-tokens")
