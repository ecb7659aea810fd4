"""Live-play API routes (streams), mounted under /api/."""

urlpatterns: list = []
