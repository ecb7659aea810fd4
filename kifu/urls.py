"""Top-level URLs: the API under /api/, the admin, and the web pages."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("api/", include("api.urls")),
    path("api/", include("league.urls")),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the web pages' language switch
    path("", include("web.urls")),
]

handler404 = "api.errors.handler404"
handler500 = "api.errors.handler500"
