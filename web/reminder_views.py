"""The page where a player chooses how deadline reminders reach them (reminders/)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from games.errors import ServiceError
from reminders import services

LEADS = (15, 60, 180, 720, 1440, 2880, 10080)  # minutes: a quarter hour to a week


def _lead_label(minutes: int) -> str:
    if minutes % 1440 == 0:
        return ngettext("%(n)d day before", "%(n)d days before", minutes // 1440) % {"n": minutes // 1440}
    if minutes % 60 == 0:
        return ngettext("%(n)d hour before", "%(n)d hours before", minutes // 60) % {"n": minutes // 60}
    return ngettext("%(n)d minute before", "%(n)d minutes before", minutes) % {"n": minutes}


class ReminderForm(forms.Form):
    stream = forms.BooleanField(required=False, label=_("On my account stream (the web pages and bots listening)"))
    webhook = forms.BooleanField(required=False, label=_("To my webhooks that receive the reminder event"))
    email = forms.BooleanField(required=False, label=_("By e-mail, to the address on my account"))
    lead_minutes = forms.TypedChoiceField(coerce=int, label=_("When"))

    def __init__(self, *args, current: int, **kwargs):
        super().__init__(*args, **kwargs)
        leads = sorted({*LEADS, current})
        self.fields["lead_minutes"].choices = [(minutes, _lead_label(minutes)) for minutes in leads]


@login_required
def account_reminders(request):
    """Channels on or off, and how long before a deadline: a move to make, a ladder challenge to
    answer, a reported result to confirm."""
    current = services.preferences_get(user=request.user)
    form = ReminderForm(request.POST or None, initial=current, current=current["lead_minutes"])
    if request.method == "POST" and form.is_valid():
        try:
            services.preferences_set(user=request.user, changes=form.cleaned_data)
        except ServiceError as refusal:
            form.add_error("lead_minutes", refusal.message)
        else:
            messages.success(request, gettext("Your reminder preferences are saved."))
            return redirect("web:account-reminders")
    context = {"form": form, "has_email": bool(request.user.email)}
    return render(request, "web/account_reminders.html", context, status=400 if form.errors else 200)
