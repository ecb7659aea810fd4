"""Template filters of the web pages: game names and statuses in the active language."""

from django import template
from django.utils.translation import gettext as _

from web.names import game_name as _game_name

register = template.Library()


@register.filter
def game_name(slug: str) -> str:
    return _game_name(slug)


@register.filter
def status_label(status: str) -> str:
    labels = {
        "open": _("waiting for players"),
        "running": _("running"),
        "finished": _("finished"),
        "cancelled": _("cancelled"),
    }
    return labels.get(status, status)
