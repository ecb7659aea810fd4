"""Input guards for every app's API: bodies, URLs and page sizes that the store could not take.

PostgreSQL refuses some input Python accepts: a NUL character in text or JSON (``\\u0000``), a
lone UTF-16 surrogate (``\\ud800``, not encodable as UTF-8), a non-finite number in ``jsonb``
(``1e999`` parses as infinity) and integers past 64 bits in ``LIMIT``; and a deeply nested body
overflows Python's recursion limit while it is parsed. Left alone, each comes back as a 500. These
guards turn them into a 400 at the edge, before any view runs, so every endpoint answers the same
way without each serializer repeating the check. The checks themselves are ``kifu.storable``'s;
``games.records`` applies them to record files too.
"""

from __future__ import annotations

from django.http import HttpResponseBadRequest, JsonResponse
from rest_framework import parsers
from rest_framework.pagination import LimitOffsetPagination

from kifu.storable import text_problem, value_problem

# kifu.http.errors is imported inside the functions: it imports rest_framework.views, whose APIView reads
# DEFAULT_PARSER_CLASSES - this module - while it loads.


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, plus: deep nesting, NUL, lone surrogates and infinities are a 400, not a 500.

    Codes: ``too_deep``, ``bad_text``, ``bad_number`` (the message gives the JSON path, e.g.
    ``$.move.card``); anything else that does not parse stays ``bad_json``.
    """

    def parse(self, stream, media_type=None, parser_context=None):
        from .errors import ApiError

        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ApiError("too_deep", "the JSON body nests too deeply; send a flatter document") from None
        problem = value_problem(data)
        if problem:
            raise ApiError(*problem)
        return data


class Pagination(LimitOffsetPagination):
    """Limit/offset pages with a ceiling: ``?limit=99999999999999999999`` would overflow SQL's LIMIT.

    A limit above 1000 is capped; a limit that is not a whole number of at least 1 (``0``, ``-1``,
    ``abc``, an empty ``?limit=``), or an offset that is not a whole number of at least 0, is ``400 bad_parameter``
    (DRF would quietly answer a default page instead)."""

    max_limit = 1000

    def _whole(self, request, name: str, low: int) -> int | None:
        from .params import whole_number

        raw = request.query_params.get(name)
        if raw is None:  # absent; ``?limit=`` (given, empty) is refused as no whole number
            return None
        return whole_number(raw, name, low, None)

    def get_limit(self, request):
        limit = self._whole(request, self.limit_query_param, 1)
        return self.default_limit if limit is None else min(limit, self.max_limit)

    def get_offset(self, request):
        return self._whole(request, self.offset_query_param, 0) or 0

    def get_schema_operation_parameters(self, view):
        """The schema says what is refused: limit at least 1, offset at least 0."""
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["minimum"] = 1 if parameter["name"] == self.limit_query_param else 0
        return parameters


class RefuseBadUrlText:
    """Middleware: a NUL (``%00``) in the path or query string is a 400 before any view runs.

    Django decodes ``%00`` into the path and the query; PostgreSQL then refuses it in the first
    lookup (a username, a filter), which would be a 500.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        texts = [request.path]
        for key, values in request.GET.lists():
            texts.append(key)
            texts.extend(values)
        problem = next((found for found in map(text_problem, texts) if found), None)
        if problem is None:
            return self.get_response(request)
        if request.path.startswith("/api/"):
            return JsonResponse({"code": "bad_text", "message": f"the URL: {problem}"}, status=400)
        return HttpResponseBadRequest(f"Bad request: the URL: {problem}", content_type="text/plain")
