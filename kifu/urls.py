"""Top-level URLs: every app routes its own URLs and is included here - the API apps under /api/
(games, webhooks, league, seasonal leagues), the schema of them all, the admin, and the web pages."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

urlpatterns = [
    path("api/", include("api.urls")),  # games, accounts, records, checkpoints, moderation, streams (api/)
    path("api/", include("hooks.urls")),  # webhooks (hooks/)
    path("api/", include("league.urls")),  # players, clubs, ladders, challenges, matches, tournaments (league/)
    path("api/", include("league.seasons.urls")),  # seasonal leagues (league/seasons/)
    path("api/schema", SpectacularAPIView.as_view(), name="schema"),  # OpenAPI: every app's API above
    path("api/docs", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/redoc", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the web pages' language switch
    path("", include("web.urls")),
]

handler404 = "kifu.http.errors.handler404"
handler500 = "kifu.http.errors.handler500"
