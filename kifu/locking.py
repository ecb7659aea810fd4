"""Row locks by key: the one ``SELECT ... FOR UPDATE`` of a single row that every service takes.

Every app's services lock the row they are about to change (a game, a ladder, a club, a season,
a fixture, ...) with the same idiom; this is that idiom written once. It sits in the project
package, below every app, so any app may import it; it knows nothing of any app's models or errors.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from django.db import models

Row = TypeVar("Row", bound=models.Model)


def lock_by_id(
    model: type[Row],
    key,
    *,
    by: str = "pk",
    related: Iterable[str] = (),
    of: Iterable[str] = (),
    missing: Exception | None = None,
) -> Row:
    """The row of ``model`` whose ``by`` field is ``key``, locked (``SELECT ... FOR UPDATE``).

    Precondition: the caller is inside ``transaction.atomic()`` - the lock lasts until its commit.
    ``related`` is passed to ``select_related``; without ``of`` PostgreSQL then locks the joined rows
    too, so pass ``of=("self",)`` to lock only this one. ``missing`` is raised (``from None``) when
    no row has that key or the key is not a valid value for the field (``ValueError``/``TypeError``);
    without it ``model.DoesNotExist`` propagates: use that where the row is known to exist.
    """
    rows = model.objects.select_for_update(of=tuple(of))
    related = tuple(related)
    if related:
        rows = rows.select_related(*related)
    if missing is None:
        return rows.get(**{by: key})
    try:
        return rows.get(**{by: key})
    except (model.DoesNotExist, ValueError, TypeError):
        raise missing from None
