"""The games API's routes, mounted under /api/ by kifu/urls.py."""

from django.urls import include, path

from . import checkpoints, invitations, moderation, table, tokens, views

app_name = "api"

urlpatterns = [
    path("accounts", views.AccountCreateView.as_view(), name="account-create"),
    path("token", views.TokenView.as_view(), name="token"),
    path("me", views.MeView.as_view(), name="me"),
    path("me/tokens", tokens.PersonalTokenListView.as_view(), name="personal-tokens"),
    path("me/tokens/<int:token_id>", tokens.PersonalTokenDetailView.as_view(), name="personal-token"),
    path("me/email", views.AccountEmailView.as_view(), name="account-email"),
    path("me/mature-consent", views.MatureConsentView.as_view(), name="mature-consent"),
    path("engines", views.EngineListView.as_view(), name="engine-list"),
    path("engines/<str:slug>", views.EngineDetailView.as_view(), name="engine-detail"),
    path("games", views.GameListView.as_view(), name="game-list"),
    path("games/<uuid:pk>", views.GameDetailView.as_view(), name="game-detail"),
    path("games/<uuid:pk>/join", views.GameJoinView.as_view(), name="game-join"),
    path("games/<uuid:pk>/accept", views.GameAcceptView.as_view(), name="game-accept"),
    path("games/<uuid:pk>/decline", invitations.GameDeclineView.as_view(), name="game-decline"),
    path("me/invitations", invitations.InvitationListView.as_view(), name="invitations"),
    path("me/turns", views.TurnListView.as_view(), name="turns"),
    path("games/<uuid:pk>/state", views.GameStateView.as_view(), name="game-state"),
    path("games/<uuid:pk>/events", views.GameEventsView.as_view(), name="game-events"),
    path("games/<uuid:pk>/legal-moves", views.GameLegalMovesView.as_view(), name="game-legal-moves"),
    path("games/<uuid:pk>/moves", views.GameMovesView.as_view(), name="game-moves"),
    path("games/<uuid:pk>/submissions/<uuid:sid>", views.SubmissionDetailView.as_view(), name="submission-detail"),
    path("games/<uuid:pk>/record", views.GameRecordView.as_view(), name="game-record"),
    path("games/<uuid:pk>/verification", views.GameVerificationView.as_view(), name="game-verification"),
    path("records", views.RecordImportView.as_view(), name="record-import"),
    # the signed checkpoint log (issue 15 part 5)
    path("checkpoints", checkpoints.CheckpointListView.as_view(), name="checkpoint-list"),
    path("checkpoints/public-key", checkpoints.CheckpointPublicKeyView.as_view(), name="checkpoint-public-key"),
    path("games/<uuid:pk>/checkpoint", checkpoints.GameCheckpointView.as_view(), name="game-checkpoint"),
    path("games/<uuid:pk>/signed-head", checkpoints.GameSignedHeadView.as_view(), name="game-signed-head"),
    # moderation of storytelling contributions (issue 6)
    path("games/<uuid:pk>/events/<int:seq>/report", moderation.ContributionReportView.as_view(), name="event-report"),
    path("games/<uuid:pk>/events/<int:seq>/hide", moderation.ContributionHideView.as_view(), name="event-hide"),
    path("games/<uuid:pk>/reports", moderation.ContributionReportListView.as_view(), name="game-reports"),
    # the table recorder (issue 17)
    path("table-games", table.TableGameCreateView.as_view(), name="table-game-create"),
    path("table-games/<uuid:pk>", table.TableSheetView.as_view(), name="table-sheet"),
    path("table-games/<uuid:pk>/entries", table.TableEntryView.as_view(), name="table-entries"),
    path("", include("api.stream_urls")),
]
