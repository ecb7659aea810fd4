"""Password reset by e-mail, and the page where a player sets the address it goes to.

Django's own views do the work (``PasswordResetView`` makes a one-time link from the account's
password hash and last log-in, ``PasswordResetConfirmView`` checks it and sets the new password);
this module adds what Kifu needs around them:

- a throttle: at most ``KIFU_THROTTLE_PASSWORD_RESET`` requests per address (a 429 with
  ``Retry-After``, the form again) and as many mails per e-mail address asked for - past that the
  page answers as always but sends nothing, so nobody can flood a mailbox or learn from the answer
  whether an address has an account (the answer is the same for unknown addresses too);
- a mail server that fails is a 503 with the form again, not a 500;
- the mail is written in the language of the page the request came from (English or Japanese).

Mail goes to the console in the embedded mode and by SMTP with ``KIFU_EMAIL_HOST`` (kifu/settings.py).
"""

from __future__ import annotations

import hashlib
import logging
import math
import smtplib

from django import forms
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games import accounts
from games.errors import ServiceError
from kifu.http import throttles
from kifu.http.errors import RETRY_AFTER_SECONDS, UNAVAILABLE

from .forms import EMAIL_TAKEN

log = logging.getLogger(__name__)


class PasswordResetThrottle(throttles.AtomicRateThrottle):
    """Reset requests (scope ``password_reset``, ``KIFU_THROTTLE_PASSWORD_RESET``), counted per
    address and, separately, per e-mail address asked for."""

    scope = "password_reset"


def _hit(ident: str) -> float | None:
    """Count one request under ``ident``: None if allowed, else the seconds to wait."""
    throttle = PasswordResetThrottle()
    if throttle.rate is None:
        return None
    key = throttle.cache_format % {"scope": throttle.scope, "ident": ident}
    left = throttles.window_hit(key, throttle.duration, throttle.num_requests)
    return None if left is None else max(1.0, left)


def _mailbox(email: str) -> str:
    return "mail-" + hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]


class PasswordResetView(auth_views.PasswordResetView):
    template_name = "web/password/form.html"
    email_template_name = "web/password/email.txt"
    subject_template_name = "web/password/subject.txt"
    success_url = reverse_lazy("web:password-reset-done")

    def post(self, request, *args, **kwargs):
        try:
            wait = _hit(throttles.client_address(request))
        except UNAVAILABLE:
            message = gettext("Password reset is not possible right now. Try again in a few seconds.")
            return self._refuse(message, 503, RETRY_AFTER_SECONDS)
        if wait:
            seconds = math.ceil(wait)
            message = gettext("Too many requests. Try again in %(seconds)s seconds.") % {"seconds": seconds}
            return self._refuse(message, 429, seconds)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        try:
            if _hit(_mailbox(form.cleaned_data["email"])):  # quietly: the answer must not differ
                return redirect(self.get_success_url())
            return super().form_valid(form)
        except UNAVAILABLE:
            message = gettext("Password reset is not possible right now. Try again in a few seconds.")
        except (smtplib.SMTPException, OSError):
            log.exception("password reset: the mail could not be sent")
            message = gettext("The mail could not be sent right now. Try again in a few minutes.")
        return self._refuse(message, 503, RETRY_AFTER_SECONDS, email=form.cleaned_data["email"])

    def _refuse(self, message: str, status: int, retry_after: int, email: str = ""):
        form = self.get_form_class()(initial={"email": email or self.request.POST.get("email", "")[:254]})
        response = self.render_to_response(self.get_context_data(form=form, refused=message), status=status)
        response["Retry-After"] = str(retry_after)
        return response


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "web/password/confirm.html"
    success_url = reverse_lazy("web:password-reset-complete")


password_reset_done = auth_views.PasswordResetDoneView.as_view(template_name="web/password/done.html")
password_reset_complete = auth_views.PasswordResetCompleteView.as_view(template_name="web/password/complete.html")


class EmailForm(forms.Form):
    email = forms.EmailField(
        label=_("E-mail address"),
        required=False,
        help_text=_(
            "Used to send you a link when you forget your password, and deadline reminders if you turn them "
            "on. Leave empty to remove it."
        ),
    )


@login_required
def account_email(request):
    """The address password reset mails go to; empty removes it."""
    form = EmailForm(request.POST or None, initial={"email": request.user.email})
    if request.method == "POST" and form.is_valid():
        try:
            accounts.account_email_set(user=request.user, email=form.cleaned_data["email"])
        except ServiceError as refusal:
            form.add_error("email", EMAIL_TAKEN if refusal.code == "email_taken" else refusal.message)
        else:
            messages.success(request, gettext("Your e-mail address is saved."))
            return redirect("web:account-email")
    return render(request, "web/password/account_email.html", {"form": form}, status=400 if form.errors else 200)
