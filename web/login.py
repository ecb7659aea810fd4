"""The web log-in page, throttled like ``POST /api/token`` (kifu/http/throttles.py).

At most ``KIFU_THROTTLE_LOGIN`` attempts per address, and a username that keeps failing is locked
for a growing while; a refused attempt gets the form again with 429 and ``Retry-After``, before any
password is checked. With Redis down the page answers 503 (the counters cannot be kept).
"""

from __future__ import annotations

import math

from django.contrib.auth import views as auth_views
from django.utils.translation import gettext

from kifu.http import throttles
from kifu.http.errors import RETRY_AFTER_SECONDS, UNAVAILABLE


class LoginView(auth_views.LoginView):
    def post(self, request, *args, **kwargs):
        username = request.POST.get("username", "")
        try:
            wait = throttles.login_address_hit(request) or (throttles.login_locked_for(username) if username else None)
        except UNAVAILABLE:
            message = gettext("Logging in is not possible right now. Try again in a few seconds.")
            return self._refuse(username, message, 503, RETRY_AFTER_SECONDS)
        if wait:
            seconds = math.ceil(wait)
            message = gettext("Too many log-in attempts. Try again in %(seconds)s seconds.") % {"seconds": seconds}
            return self._refuse(username, message, 429, seconds)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        throttles.login_succeeded(form.get_user().get_username())
        return super().form_valid(form)

    def form_invalid(self, form):
        if form.data.get("username"):
            throttles.login_failed(form.data["username"])
        return super().form_invalid(form)

    def _refuse(self, username: str, message: str, status: int, retry_after: int):
        form = self.get_form_class()(self.request, initial={"username": username})  # unbound: no password check
        response = self.render_to_response(self.get_context_data(form=form, refused=message), status=status)
        response["Retry-After"] = str(retry_after)
        return response
