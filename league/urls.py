"""League API routes (players, clubs, ladders, challenges, matches, tournaments), mounted under /api/
by kifu/urls.py."""

from django.urls import path

from . import api
from .reports import api as api_reports
from .tournaments import api as api_tournaments

app_name = "league"

urlpatterns = [
    path("profile", api.ProfileView.as_view(), name="profile"),
    path("profile/calendar", api.ProfileCalendarView.as_view(), name="profile-calendar"),
    path("players/<str:username>", api.PlayerView.as_view(), name="player"),
    path("players/<str:username>/calendar.ics", api.PlayerCalendarView.as_view(), name="player-calendar"),
    path("clubs", api.ClubListView.as_view(), name="club-list"),
    path("clubs/<slug:slug>", api.ClubDetailView.as_view(), name="club-detail"),
    path("clubs/<slug:slug>/join", api.ClubJoinView.as_view(), name="club-join"),
    path("clubs/<slug:slug>/members", api.MemberListView.as_view(), name="member-list"),
    path("clubs/<slug:slug>/members/<str:username>", api.MemberDetailView.as_view(), name="member-detail"),
    path("clubs/<slug:slug>/members/<str:username>/approve", api.MemberApproveView.as_view(), name="member-approve"),
    path("clubs/<slug:slug>/ladders", api.ClubLadderListView.as_view(), name="club-ladders"),
    path("ladders/<int:pk>", api.LadderDetailView.as_view(), name="ladder-detail"),
    path("ladders/<int:pk>/standings", api.StandingsView.as_view(), name="ladder-standings"),
    path("ladders/<int:pk>/standings.csv", api.LadderStandingsCsvView.as_view(), name="ladder-standings-csv"),
    path("ladders/<int:pk>/calendar.ics", api.LadderCalendarView.as_view(), name="ladder-calendar"),
    path("ladders/<int:pk>/events", api.LadderEventsView.as_view(), name="ladder-events"),
    path("ladders/<int:pk>/verification", api.LadderVerificationView.as_view(), name="ladder-verification"),
    path("ladders/<int:pk>/join", api.LadderJoinView.as_view(), name="ladder-join"),
    path("ladders/<int:pk>/withdraw", api.LadderWithdrawView.as_view(), name="ladder-withdraw"),
    path("ladders/<int:pk>/players/<str:username>/ratings", api.RatingHistoryView.as_view(), name="rating-history"),
    path("ladders/<int:pk>/challenges", api.ChallengeListView.as_view(), name="challenge-list"),
    path("ladders/<int:pk>/games", api.RatedGameView.as_view(), name="rated-game"),
    path("ladders/<int:pk>/corrections", api.CorrectionView.as_view(), name="correction"),
    path("challenges/<uuid:pk>", api.ChallengeDetailView.as_view(), name="challenge-detail"),
    path("challenges/<uuid:pk>/accept", api.ChallengeAcceptView.as_view(), name="challenge-accept"),
    path("challenges/<uuid:pk>/decline", api.ChallengeDeclineView.as_view(), name="challenge-decline"),
    path("challenges/<uuid:pk>/withdraw", api.ChallengeWithdrawView.as_view(), name="challenge-withdraw"),
    path("challenges/<uuid:pk>/result", api.ChallengeResultView.as_view(), name="challenge-result"),
    path("matches", api.MatchListView.as_view(), name="match-list"),
    path("matches/<uuid:pk>", api.MatchDetailView.as_view(), name="match-detail"),
    path("matches/<uuid:pk>/current-game", api.MatchCurrentGameView.as_view(), name="match-current-game"),
    # reported results (issue 17)
    path("pairings/<str:kind>/<str:pk>", api_reports.PairingView.as_view(), name="pairing"),
    path("pairings/<str:kind>/<str:pk>/report", api_reports.ReportView.as_view(), name="pairing-report"),
    path("pairings/<str:kind>/<str:pk>/confirm", api_reports.ConfirmView.as_view(), name="pairing-confirm"),
    path("pairings/<str:kind>/<str:pk>/dispute", api_reports.DisputeView.as_view(), name="pairing-dispute"),
    path("pairings/<str:kind>/<str:pk>/settle", api_reports.SettleView.as_view(), name="pairing-settle"),
    path("pairings/<str:kind>/<str:pk>/table", api_reports.TableView.as_view(), name="pairing-table"),
    path("me/reports", api_reports.MyReportsView.as_view(), name="my-reports"),
    path("ladders/<int:pk>/reporting", api_reports.LadderReportingView.as_view(), name="ladder-reporting"),
    path("tournaments/<int:pk>/reporting", api_reports.TournamentReportingView.as_view(), name="tournament-reporting"),
    path("seasons/<int:pk>/reporting", api_reports.SeasonReportingView.as_view(), name="season-reporting"),
    path("ladders/<int:pk>/reports", api_reports.LadderReportsView.as_view(), name="ladder-reports"),
    path("tournaments/<int:pk>/reports", api_reports.TournamentReportsView.as_view(), name="tournament-reports"),
    path("seasons/<int:pk>/reports", api_reports.SeasonReportsView.as_view(), name="season-reports"),
    # tournaments (issue 8)
    path("clubs/<slug:slug>/tournaments", api_tournaments.ClubTournamentListView.as_view(), name="club-tournaments"),
    path("tournaments/<int:pk>", api_tournaments.TournamentDetailView.as_view(), name="tournament-detail"),
    path("tournaments/<int:pk>/entries", api_tournaments.TournamentEntryView.as_view(), name="tournament-entries"),
    path("tournaments/<int:pk>/start", api_tournaments.TournamentStartView.as_view(), name="tournament-start"),
    path("tournaments/<int:pk>/rounds", api_tournaments.TournamentRoundsView.as_view(), name="tournament-rounds"),
    path(
        "tournaments/<int:pk>/rounds/<int:number>",
        api_tournaments.TournamentRoundDetailView.as_view(),
        name="tournament-round",
    ),
    path("tournaments/<int:pk>/check-in", api_tournaments.TournamentCheckInView.as_view(), name="tournament-check-in"),
    path("tournaments/<int:pk>/drop", api_tournaments.TournamentDropView.as_view(), name="tournament-drop"),
    path("tournaments/<int:pk>/pairings", api_tournaments.TournamentPairingView.as_view(), name="tournament-pairings"),
    path("tournaments/<int:pk>/results", api_tournaments.TournamentResultView.as_view(), name="tournament-results"),
    path(
        "tournaments/<int:pk>/standings",
        api_tournaments.TournamentStandingsView.as_view(),
        name="tournament-standings",
    ),
    path(
        "tournaments/<int:pk>/standings.csv",
        api_tournaments.TournamentStandingsCsvView.as_view(),
        name="tournament-standings-csv",
    ),
    path(
        "tournaments/<int:pk>/calendar.ics",
        api_tournaments.TournamentCalendarView.as_view(),
        name="tournament-calendar",
    ),
]
