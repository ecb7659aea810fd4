"""League API routes (clubs, ladders, matches, ratings), mounted under /api/."""

app_name = "league"

urlpatterns: list = []
