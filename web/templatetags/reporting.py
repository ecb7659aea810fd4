"""``{% reporting_form owner obj %}``: an organiser's form for how the pairings of a ladder,
tournament or season may be decided (online, table, either) and when a report counts as confirmed
(``league.reports``). The pages include it where they show organisers their forms."""

from __future__ import annotations

from django import template

from league.reports.services import reporting_of

register = template.Library()


@register.inclusion_tag("web/_reporting_form.html", takes_context=True)
def reporting_form(context, owner: str, obj) -> dict:
    settings = obj.rules if owner == "season" else obj.settings
    return {
        "owner": owner,
        "pk": obj.pk,
        "setting": reporting_of(settings),
        "modes": ("online", "table", "either"),
        "csrf_token": context.get("csrf_token"),
    }
