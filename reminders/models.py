"""An account's reminder preferences, and every reminder sent (one per account, deadline and kind)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ReminderPreference(models.Model):
    """How an account wants to hear that a deadline is near. No row: the defaults
    (``services.DEFAULTS``): the account stream and webhooks on, e-mail off - an address given for
    password reset is not a consent to other mail."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, related_name="reminder_preference", on_delete=models.CASCADE)
    email = models.BooleanField(default=False)
    webhook = models.BooleanField(default=True)
    stream = models.BooleanField(default=True)
    lead_minutes = models.PositiveIntegerField(default=720, help_text="How long before a deadline to remind.")
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"reminder preferences of {self.user_id}"


class ReminderSent(models.Model):
    """One reminder of one deadline to one account. The unique key is what makes a reminder go out
    at most once per deadline: a sweep inserts the row before it sends, so a second sweep (beat
    re-run, two workers, the embedded thread beside a worker) meets the row and sends nothing. A
    deadline that moves (a new window, a new turn) is a new deadline and may be reminded again."""

    class Kind(models.TextChoices):
        YOUR_MOVE = "your_move", "a move to make before the game's deadline"
        CHALLENGE = "challenge", "a ladder challenge to accept or decline"
        REPORT = "report", "a reported result to confirm or dispute"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    subject = models.CharField(max_length=40, help_text="The game, challenge or report id.")
    deadline_at = models.DateTimeField()
    sent_at = models.DateTimeField()
    channels = models.JSONField(default=list, help_text="Where it went: stream, webhook, email.")

    class Meta:
        ordering = ["-sent_at"]
        constraints = [
            models.UniqueConstraint(fields=["user", "kind", "subject", "deadline_at"], name="reminder_once"),
        ]
        indexes = [models.Index(fields=["kind", "subject"], name="reminder_subject")]

    def __str__(self) -> str:
        return f"{self.kind} reminder of {self.subject} to {self.user_id}"
