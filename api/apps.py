"""Django app config for the REST API."""

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_delete, post_save
        from rest_framework.authtoken.models import Token

        from games.models import PersonalToken
        from kifu.http.params import text_is_text

        from .authentication import forget_account, forget_personal_token, forget_token

        post_delete.connect(forget_token, sender=Token, dispatch_uid="api.forget_token")
        post_delete.connect(forget_personal_token, sender=PersonalToken, dispatch_uid="api.forget_personal_token")
        post_save.connect(forget_account, sender=get_user_model(), dispatch_uid="api.forget_account")
        text_is_text()  # a JSON number is no text (kifu.http.params)
