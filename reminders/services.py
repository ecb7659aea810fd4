"""Every write of the reminders: an account's preferences, and sending each due reminder once.

A reminder goes out at most once per (account, kind, subject, deadline): ``reminder_send`` inserts
its ``ReminderSent`` row first, in a savepoint, and sends only if the insert won. Two sweeps at
once (a beat re-run, two workers) race on the unique index: the second insert waits for the
first transaction and then fails, so it sends nothing. What leaves the process (the account
stream notice and the mail) goes after the commit; a webhook delivery is a row written in the same
transaction and sent by the hooks app as any other.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext

from games.engines import get_engine
from games.errors import ServiceError
from games.notices import account_notice
from hooks.services import account_event_deliver

from . import selectors
from .models import ReminderPreference, ReminderSent

log = logging.getLogger("kifu.reminders")
CHANNELS = ("email", "webhook", "stream")
Kind = ReminderSent.Kind


# ---- preferences ----------------------------------------------------------------------------
def preferences_get(*, user) -> dict:
    return dict(selectors.preferences_of([user.pk])[user.pk])


@transaction.atomic
def preferences_set(*, user, changes) -> dict:
    """Change some of the account's preferences (the others stay): ``email``, ``webhook``,
    ``stream`` (true or false) and ``lead_minutes`` (a whole number of minutes, 5 to 10080).
    Refuses ``bad_reminder_preferences`` naming what to fix."""
    if not isinstance(changes, dict):
        raise ServiceError("bad_reminder_preferences", 'send a JSON object such as {"email": true, "lead_minutes": 60}')
    unknown = sorted(set(changes) - {*CHANNELS, "lead_minutes"})
    if unknown:
        raise ServiceError(
            "bad_reminder_preferences",
            f"unknown preference {', '.join(unknown)}: the preferences are email, webhook, stream and lead_minutes",
        )
    for channel in CHANNELS:
        if channel in changes and not isinstance(changes[channel], bool):
            raise ServiceError("bad_reminder_preferences", f"{channel} must be true or false")
    lead = changes.get("lead_minutes")
    low, high = selectors.LEAD_MINUTES_MIN, selectors.LEAD_MINUTES_MAX
    if "lead_minutes" in changes and (isinstance(lead, bool) or not isinstance(lead, int) or not low <= lead <= high):
        raise ServiceError(
            "bad_reminder_lead", f"lead_minutes must be a whole number of minutes from {low} to {high} (a week)"
        )
    current = preferences_get(user=user)
    chosen = {**current, **changes}
    ReminderPreference.objects.update_or_create(user=user, defaults=chosen)
    return chosen


# ---- sending --------------------------------------------------------------------------------
def _link(due: selectors.Due) -> str:
    if due.kind == Kind.YOUR_MOVE:
        path = reverse("web:play", kwargs={"pk": due.subject})
    elif due.kind == Kind.CHALLENGE:
        path = reverse("web:ladder", kwargs={"pk": due.data["ladder"]})
    else:
        path = reverse("web:pairing-report", kwargs={"kind": due.data["pairing_kind"], "pk": due.data["pairing"]})
    return settings.KIFU_SITE_URL + path


def _sentence(due: selectors.Due, deadline: str) -> str:
    """What the reminder asks of the player, in the active language."""
    if due.kind == Kind.YOUR_MOVE:
        return gettext("It is your move in a %(game)s game. Play it before %(deadline)s (UTC).") % {
            "game": get_engine(due.data["engine"]).name,
            "deadline": deadline,
        }
    if due.kind == Kind.CHALLENGE:
        return gettext("%(challenger)s challenged you on a ladder. Accept or decline before %(deadline)s (UTC).") % {
            "challenger": due.data["challenger"],
            "deadline": deadline,
        }
    return gettext(
        "A result was reported for your pairing. Confirm or dispute it before %(deadline)s (UTC); "
        "after that it counts as confirmed."
    ) % {"deadline": deadline}


def _mail(due: selectors.Due, address: str) -> None:
    """The mail in English, then Japanese (an account has no language of its own yet)."""
    deadline, link = due.deadline_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M"), _link(due)
    parts, subjects = [], []
    for language in ("en", "ja"):
        with translation.override(language):
            subjects.append(gettext("Kifu: a deadline is near"))
            parts.append(f"{_sentence(due, deadline)}\n{link}")
    footer = "\n\n-- \n" + gettext("Change or stop these reminders: %(url)s") % {
        "url": settings.KIFU_SITE_URL + reverse("web:account-reminders")
    }
    try:
        send_mail(" / ".join(subjects), "\n\n".join(parts) + footer, None, [address])
    except Exception:  # sent at most once: a mail server that fails loses this one, and says so
        log.warning(
            "could not mail the %s reminder of %s to account %s", due.kind, due.subject, due.user_id, exc_info=True
        )


def reminder_send(*, due: selectors.Due, preferences: dict, now: datetime) -> bool:
    """Send one due reminder through the channels the account chose, unless it was sent already
    (by this or any other process). Returns whether this call sent it."""
    email = ""
    if preferences["email"]:
        email = get_user_model().objects.filter(pk=due.user_id).values_list("email", flat=True).first() or ""
    channels = [c for c in CHANNELS if preferences[c] and (c != "email" or email)]
    body = {"kind": due.kind, "deadline_at": due.deadline_at.isoformat(), "url": _link(due), **due.data}
    with transaction.atomic():
        try:
            with transaction.atomic():  # a savepoint: a lost race rolls back this insert only
                ReminderSent.objects.create(
                    user_id=due.user_id,
                    kind=due.kind,
                    subject=due.subject,
                    deadline_at=due.deadline_at,
                    sent_at=now,
                    channels=channels,
                )
        except IntegrityError:
            return False
        if "webhook" in channels:
            account_event_deliver(user_id=due.user_id, event="reminder", data=body)
        if "stream" in channels:
            notice = {"event": "reminder", **body}
            transaction.on_commit(lambda: account_notice([due.user_id], notice))
        if "email" in channels:
            transaction.on_commit(lambda: _mail(due, email))
    return True


KEEP_SENT = timedelta(days=30)


def reminders_send(*, now: datetime | None = None) -> int:
    """Send every reminder due at ``now`` (beat's and the embedded timer's sweep); returns how many
    this call sent. Rows of deadlines long past are deleted: a deadline behind ``now`` is never due
    again, so its row no longer guards anything (they are kept a while for the admin)."""
    now = now or timezone.now()
    ReminderSent.objects.filter(deadline_at__lt=now - KEEP_SENT).delete()
    return sum(reminder_send(due=due, preferences=chosen, now=now) for due, chosen in selectors.reminders_due(now=now))
