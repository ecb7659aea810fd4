"""Top-level URLs: every app routes its own URLs and is included here - the API apps under /api/
(games, webhooks, league, seasonal leagues, lobby), the schema of them all, the admin, and the web pages."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from kifu.security import csp_extend

urlpatterns = [
    path("api/", include("api.urls")),  # games, accounts, records, checkpoints, moderation, streams (api/)
    path("api/", include("hooks.urls")),  # webhooks (hooks/)
    path("api/", include("league.urls")),  # players, clubs, ladders, challenges, matches, tournaments (league/)
    path("api/", include("league.seasons.urls")),  # seasonal leagues (league/seasons/)
    path("api/", include("reminders.urls")),  # deadline reminder preferences (reminders/)
    path("api/", include("lobby.urls")),  # open seeks, quick pairing, rematches, site ratings (lobby/)
    path("api/schema", SpectacularAPIView.as_view(), name="schema"),  # OpenAPI: every app's API above
    # The docs pages are third-party: Swagger UI's script comes as a file (the split view), but both
    # pages carry inline styles, and Redoc searches in a blob: worker and shows its maker's logo from
    # its CDN (kifu/security.py); Redoc's page is drf-spectacular's without its Google Fonts links
    # (web/templates/web/redoc.html).
    path(
        "api/docs",
        csp_extend(style_src=["'unsafe-inline'"])(SpectacularSwaggerSplitView.as_view(url_name="schema")),
        name="docs",
    ),
    path(
        "api/redoc",
        csp_extend(style_src=["'unsafe-inline'"], worker_src=["'self'", "blob:"], img_src=["https://cdn.redoc.ly"])(
            SpectacularRedocView.as_view(url_name="schema", template_name="web/redoc.html")
        ),
        name="redoc",
    ),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the web pages' language switch
    path("", include("web.urls")),
]

handler404 = "kifu.http.errors.handler404"
handler500 = "kifu.http.errors.handler500"
