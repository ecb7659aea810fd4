"""Web page routes: games, replay, play, the lobby, the rules of each game, the league pages (clubs,
ladders, players, tournaments, seasonal leagues) and the account pages."""

from django.contrib.auth import views as auth_views
from django.urls import path

from . import (
    league_views,
    lobby_views,
    login,
    moderation_views,
    password_reset,
    print_urls,
    reminder_views,
    report_views,
    rules_views,
    season_views,
    table_views,
    token_views,
    tournament_views,
    views,
)

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("games/new", views.game_new, name="game-new"),
    path("games/<uuid:pk>", views.game_page, name="game"),
    path("games/<uuid:pk>/join", views.game_join, name="join"),
    path("games/<uuid:pk>/answer/<str:answer>", views.game_answer, name="answer"),
    path("games/<uuid:pk>/replay", views.replay_page, name="replay"),
    path("games/<uuid:pk>/replay.json", views.replay_json, name="replay-json"),
    path("games/<uuid:pk>/play", views.play_page, name="play"),
    path("games/<uuid:pk>/log.json", views.play_log, name="play-log"),
    path(
        "games/<uuid:pk>/events/<int:seq>/<str:action>",
        moderation_views.contribution_action,
        name="contribution",
    ),
    # the rules of each game (web/rules_views.py)
    path("rules/", rules_views.rules_index, name="rules"),
    path("rules/<str:slug>/", rules_views.rules_page, name="rules-game"),
    # the lobby (web/lobby_views.py)
    path("lobby/", lobby_views.lobby_page, name="lobby"),
    path("lobby/seek", lobby_views.seek_new, name="lobby-seek"),
    path("lobby/quick", lobby_views.quick, name="lobby-quick"),
    path("lobby/seeks/<uuid:pk>/<str:step>", lobby_views.seek_step, name="lobby-step"),
    path("games/<uuid:pk>/rematch", lobby_views.rematch, name="rematch"),
    # the table recorder (web/table_views.py)
    path("table/new", table_views.table_new, name="table-new"),
    path("games/<uuid:pk>/table", table_views.table_page, name="table"),
    # league pages (web/league_views.py)
    path("clubs/", league_views.club_list, name="clubs"),
    path("clubs/<slug:slug>/", league_views.club_page, name="club"),
    path("clubs/<slug:slug>/join", league_views.club_join, name="club-join"),
    path("clubs/<slug:slug>/invite", league_views.club_invite, name="club-invite"),
    path("clubs/<slug:slug>/settings", league_views.club_settings, name="club-settings"),
    path("clubs/<slug:slug>/tournaments/new", tournament_views.tournament_new, name="tournament-new"),
    path("clubs/<slug:slug>/leagues/new", season_views.league_new, name="league-new"),
    path("ladders/<int:pk>/", league_views.ladder_page, name="ladder"),
    path("ladders/<int:pk>/join", league_views.ladder_join, name="ladder-join"),
    path("ladders/<int:pk>/settings", league_views.ladder_settings, name="ladder-settings"),
    path("ladders/<int:pk>/challenge", league_views.challenge_new, name="challenge-new"),
    path("challenges/<uuid:pk>/<str:step>", league_views.challenge_step, name="challenge-step"),
    path("players/<str:username>/", league_views.player_page, name="player"),
    # tournaments and seasonal leagues (web/tournament_views.py, web/season_views.py)
    path("tournaments/<int:pk>/", tournament_views.tournament_page, name="tournament"),
    *print_urls.urlpatterns,  # printable rounds and check-in by QR at the venue
    path("tournaments/<int:pk>/<str:action>", tournament_views.tournament_action, name="tournament-action"),
    path("leagues/<int:pk>/", season_views.league_page, name="league"),
    path("leagues/<int:pk>/<str:action>", season_views.league_action, name="league-action"),
    path("seasons/<int:pk>/", season_views.season_page, name="season"),
    path("seasons/<int:pk>/<str:action>", season_views.season_action, name="season-action"),
    # reported results (issue 17): the printed result slips' QR codes open this page
    path("pairings/<str:kind>/<str:pk>/report", report_views.pairing_report, name="pairing-report"),
    path("reporting/<str:owner>/<int:pk>", report_views.reporting_set, name="reporting-set"),
    path("accounts/login/", login.LoginView.as_view(), name="login"),  # throttled (web/login.py)
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="/"), name="logout"),
    path("accounts/signup/", views.signup, name="signup"),
    # password reset by e-mail, throttled (web/password_reset.py)
    path("accounts/password-reset/", password_reset.PasswordResetView.as_view(), name="password-reset"),
    path("accounts/password-reset/sent", password_reset.password_reset_done, name="password-reset-done"),
    path(
        "accounts/reset/<uidb64>/<token>/",
        password_reset.PasswordResetConfirmView.as_view(),
        name="password-reset-confirm",
    ),
    path("accounts/reset/done", password_reset.password_reset_complete, name="password-reset-complete"),
    path("accounts/email/", password_reset.account_email, name="account-email"),
    path("accounts/reminders/", reminder_views.account_reminders, name="account-reminders"),
    path("accounts/tokens/", token_views.personal_tokens, name="personal-tokens"),
    path("accounts/tokens/<int:token_id>/revoke", token_views.personal_token_revoke, name="personal-token-revoke"),
]
