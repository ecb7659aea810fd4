"""The schema class of every app's API (settings ``DEFAULT_SCHEMA_CLASS``): drf-spectacular's, adjusted for generators.

Part of the HTTP kit: nothing here knows an app. What the schema says of one app's data (the games'
typed moves) is that app's own (``api/openapi.py``).
"""

from __future__ import annotations

import re

from django.core.validators import RegexValidator
from drf_spectacular import openapi
from drf_spectacular.utils import extend_schema_field
from rest_framework import permissions, serializers


class AutoSchema(openapi.AutoSchema):
    def _map_basic_serializer(self, serializer, direction):
        """A request serializer whose service refuses keys it does not know says so: ``closed = True``
        on the class gives its request body ``additionalProperties: false``."""
        schema = super()._map_basic_serializer(serializer, direction)
        if direction == "request" and getattr(serializer, "closed", False):
            schema["additionalProperties"] = False
        return schema

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        """Text a request may not leave blank says so: DRF's CharField trims with ``str.strip`` and
        then refuses an empty value, so ``minLength: 1`` alone would call "  " valid. Such a field
        gets the pattern of one character ``str.strip`` keeps, unless it declares its own shape."""
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if (
            direction == "request"
            and isinstance(field, serializers.CharField)
            and field.trim_whitespace
            and not field.allow_blank
            and schema.get("type") == "string"
            and not {"pattern", "enum", "format"} & set(schema)
            # drf-spectacular adds a RegexField's own pattern after this mapping: it says more.
            and not any(isinstance(validator, RegexValidator) for validator in field.validators)
        ):
            schema = {**schema, "pattern": NOT_PYTHON_SPACE}
        return schema

    def _get_request_for_media_type(self, serializer, direction="request"):
        """A request body given as a plain schema (``extend_schema(request={media type: schema})``)
        is required when the schema requires a property; drf-spectacular leaves every such body optional."""
        schema, required = super()._get_request_for_media_type(serializer, direction)
        return schema, required or (isinstance(serializer, dict) and bool(serializer.get("required")))

    """drf-spectacular's schema, plus: an operation anyone may call (``AllowAny``) needs no credentials.

    drf-spectacular lists the token and session schemes with an optional ``{}`` for such an
    operation; generators read any security list as "needs an authenticated client" (creating an
    account, getting a token). An empty list says what the view does: no credentials needed.
    """

    def get_operation_id(self):
        """Operation ids are identifiers (``seasons_standings_csv_retrieve``, not ``...standings.csv...``):
        generators name a function or a module after each."""
        return re.sub(r"\W", "_", super().get_operation_id())

    def get_auth(self):
        if any(isinstance(permission, permissions.AllowAny) for permission in self.view.get_permissions()):
            return []
        return super().get_auth()


def declared(field_class: type, schema: dict, name: str) -> type:
    """``field_class`` whose schema is ``schema``: what a valid value is, said where a JSON Schema
    can say it (an enum, a range), while the field still takes any value of its type and the
    service keeps its own refusal and stable code (``invalid_cycles``, ``bad_language``, ...)."""
    return extend_schema_field(schema)(type(name, (field_class,), {"__doc__": f"{field_class.__name__}: {schema}"}))


# One character that Python's str.strip() keeps (DRF's CharField trims with it): JSON Schema's \S
# disagrees both ways (it calls U+FEFF space, and U+001C-U+001F and U+0085 not), so the set is spelled out.
NOT_PYTHON_SPACE = "[^\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"


# Text that is more than white space (a CharField trims it, and blank is refused): a username to
# look up, say. Declared with a pattern, so a schema-valid request is not refused as blank.
NotBlankCharField = declared(
    serializers.CharField, {"type": "string", "pattern": NOT_PYTHON_SPACE}, "NotBlankCharField"
)
