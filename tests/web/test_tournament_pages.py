"""The tournament pages in-process: the club's list, entries and forms by role, pairings with links
to the games, standings with tiebreak columns, corrections, drawn brackets (single and double
elimination, groups then a playoff), tables of four, Japanese; and the bracket geometry itself."""

from __future__ import annotations

import re
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import translation

from games import services as game_services
from league import services
from league.models import Tournament, TournamentBoard, TournamentRound
from league.tournaments import lifecycle
from tests.web.accounts import client_of, user

pytestmark = pytest.mark.django_db


def page_of(client, tournament) -> str:
    response = client.get(f"/tournaments/{tournament.pk}/")
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def club():
    """An organiser and eight members of one club."""
    organiser = user("org")
    club = services.club_create(name="Go Club", slug="go-club", by=organiser)
    members = []
    for index in range(8):
        member = user(f"p{index}")
        services.membership_invite(club_id=club.pk, by=organiser, user=member)
        services.membership_join(club_id=club.pk, by=member)
        members.append(member)
    return club, organiser, members


def make(club, organiser, entrants, *, format="swiss", engine="nine-card", start=True, **options) -> Tournament:
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name=f"{format} cup", engine=engine, format=format, **options
    )
    for member in entrants:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member)
    if start:
        lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser)
    tournament.refresh_from_db()
    return tournament


def play_round(tournament, losers=None) -> None:
    """Every unfinished board of the current round ends with a resignation (by default the second
    seat's; ``losers`` names other losers), is recorded, and the next round is paired - what the
    game_finished task and the advance task do, which a test transaction never commits."""
    users = {u.pk: u for u in get_user_model().objects.all()}
    for board in tournament.boards.filter(round=tournament.current_round, finished_at__isnull=True):
        seats = board.seat_ids
        loser = next((pk for pk in seats if losers and users[pk].username in losers), seats[-1])
        game_services.move_submit(
            game_id=board.game_id, user=users[loser], move={"type": "resign"}, idempotency_key=uuid.uuid4().hex
        )
        game_services.game_advance(game_id=board.game_id)
        assert lifecycle.tournament_game_finished(game_id=board.game_id)
    lifecycle.tournament_advance(tournament_id=tournament.pk)
    tournament.refresh_from_db()


def test_the_club_page_lists_tournaments_and_leagues(club):
    from league.seasons import services as season_services

    club_, organiser, members = club
    tournament = make(club_, organiser, members[:2], start=False)
    league = season_services.league_create(club_id=club_.pk, by=organiser, name="Winter League", engine="nine-card")
    page = Client().get("/clubs/go-club/").content.decode()
    assert f'href="/tournaments/{tournament.pk}/"' in page and "swiss cup" in page and "taking entries" in page
    assert f'href="/leagues/{league.pk}/"' in page and "Winter League" in page
    assert Client().get("/tournaments/999999/").status_code == 404


def test_who_sees_which_form_and_entering_from_the_page(club):
    club_, organiser, (p0, p1, p2, *_) = club
    stranger = user("stranger")
    tournament = make(club_, organiser, [], start=False, settings={"check_in": True})

    anonymous = page_of(Client(), tournament)
    assert "No standings before the first round." in anonymous
    assert 'id="organise"' not in anonymous and 'id="enter"' not in anonymous and "Log in to enter" in anonymous
    assert 'id="enter"' not in page_of(client_of(stranger), tournament)  # not a member of the club
    member_page = page_of(client_of(p0), tournament)
    assert 'id="enter"' in member_page and 'id="organise"' not in member_page
    organiser_page = page_of(client_of(organiser), tournament)
    for form in ("enter-player", "check-in-player", "drop-player", "start"):
        assert f'id="{form}"' in organiser_page
    assert 'id="advance"' not in organiser_page and 'id="correct"' not in organiser_page

    # A member enters and checks in; the organiser enters another member; a stranger is refused.
    entered = client_of(p0).post(f"/tournaments/{tournament.pk}/enter", follow=True).content.decode()
    assert "p0 has entered." in entered and 'id="check-in"' in entered and 'id="withdraw"' in entered
    checked = client_of(p0).post(f"/tournaments/{tournament.pk}/check-in", follow=True).content.decode()
    assert "You are checked in." in checked
    done = client_of(organiser).post(f"/tournaments/{tournament.pk}/enter", {"username": "p1"}, follow=True)
    assert "p1 has entered." in done.content.decode()
    refused = client_of(stranger).post(f"/tournaments/{tournament.pk}/enter", follow=True).content.decode()
    assert "not_member: Only members of this club may do this" in refused
    # A member cannot start it, even by posting the form.
    refused = client_of(p2).post(f"/tournaments/{tournament.pk}/start", follow=True).content.decode()
    assert "not_organiser" in refused
    unknown = client_of(organiser).post(f"/tournaments/{tournament.pk}/enter", {"username": "nobody"}, follow=True)
    assert "no_such_player" in unknown.content.decode()
    assert client_of(organiser).post(f"/tournaments/{tournament.pk}/explode").status_code == 404

    entries = page_of(Client(), tournament).split('id="entries"')[1].split("</table>")[0]
    row = {name: entries.split(f'data-entry="{name}"')[1].split("</tr>")[0] for name in ("p0", "p1")}
    assert "✓" in row["p0"] and "not yet" in row["p1"]

    # Check-in is on: starting drops p1, who did not check in, and two entries are too few.
    refused = client_of(organiser).post(f"/tournaments/{tournament.pk}/start", follow=True).content.decode()
    assert "too_few_entries: There are too few entries to start." in refused


def test_a_swiss_from_start_to_standings_through_the_page(club):
    club_, organiser, members = club
    tournament = make(club_, organiser, members[:5], start=False, rounds=2)
    started = client_of(organiser).post(f"/tournaments/{tournament.pk}/start", follow=True).content.decode()
    assert "The tournament has started: round 1 is paired." in started
    tournament.refresh_from_db()

    boards = list(tournament.boards.filter(round=1).order_by("number"))
    assert sorted(len(b.seat_ids) for b in boards) == [1, 2, 2]  # five players: two boards and a bye
    page = page_of(Client(), tournament)
    round_1 = page.split('data-round="1"')[1].split("</details>")[0]
    for board in boards:
        if board.is_bye:
            assert "bye" in round_1.split(f'data-board="{board.number}"')[1].split("</tr>")[0]
        else:
            assert f'href="/games/{board.game_id}/play"' in round_1
    assert "round 1 is being played" in page
    refused = client_of(organiser).post(f"/tournaments/{tournament.pk}/advance", follow=True).content.decode()
    assert "round_running: The current round still has games being played." in refused

    play_round(tournament)
    assert tournament.current_round == 2
    page = page_of(Client(), tournament)
    round_1 = page.split('data-round="1"')[1].split("</details>")[0]
    for board in boards:
        if not board.is_bye:
            assert f'href="/games/{board.game_id}/replay"' in round_1 and "1–0" in round_1
    # The standings: a column per tiebreak, in the tournament's order, and the CSV link.
    head = page.split('id="standings"')[1].split("</thead>")[0]
    assert re.findall(r'<th class="tiebreak">([^<]*)</th>', head) == [
        "Buchholz cut 1",
        "Buchholz",
        "Sonneborn-Berger",
        "direct encounter",
    ]
    assert f'href="/api/tournaments/{tournament.pk}/standings.csv"' in page
    rows = page.split('id="standings"')[1].split("</tbody>")[0].split("<tr data-player=")[1:]
    assert len(rows) == 5 and all(row.count('class="tiebreak"') == 4 for row in rows)
    # Round 2's bye is decided at once: of the two round-1 losers, the one without it is last on 0.
    last = rows[-1].split('"')[1]
    assert last in {get_user_model().objects.get(pk=b.seat_ids[1]).username for b in boards if not b.is_bye}
    assert "<td>0</td>" in rows[-1] and "<td>1</td>" in rows[0]

    # The organiser pairs nothing early, then the last round ends and the tournament finishes.
    play_round(tournament)
    assert tournament.status == "finished"
    page = page_of(client_of(organiser), tournament)
    assert "finished" in page and 'id="advance"' not in page and 'id="correct"' in page
    top = page.split('id="standings"')[1].split("<tr data-player=")[1].split('"')[1]
    assert f"Winner: {top}" in page.split('id="winner"')[1].split("</p>")[0]


def test_an_organiser_corrects_a_result_and_drops_a_player(club):
    club_, organiser, (p0, p1, p2, p3, *_) = club
    tournament = make(club_, organiser, [p0, p1, p2, p3], format="round_robin")
    board = tournament.boards.filter(round=1).order_by("number").first()
    first, second = (get_user_model().objects.get(pk=pk).username for pk in board.seat_ids)
    url = f"/tournaments/{tournament.pk}/correct"
    data = {"round": 1, "board": board.number, "ranking": f"{second} > {first}"}
    assert "not_organiser" in client_of(p0).post(url, data, follow=True).content.decode()
    bad = client_of(organiser).post(url, {"round": 1, "board": board.number, "ranking": "p0 >"}, follow=True)
    assert "invalid_ranking" in bad.content.decode()
    bad = client_of(organiser).post(url, {"round": "x", "board": 1, "ranking": "p0"}, follow=True)
    assert "invalid_board" in bad.content.decode()

    done = client_of(organiser).post(url, data, follow=True).content.decode()
    assert f"The result of round 1, board {board.number} is corrected." in done
    board.refresh_from_db()
    assert board.decided_by == "correction" and board.placements == [[board.seat_ids[1]], [board.seat_ids[0]]]
    row = done.split('data-round="1"')[1].split(f'data-board="{board.number}"')[1].split("</tr>")[0]
    assert "0–1" in row and "corrected" in row and f'<span class="won">{second}</span>' in row

    draw = {"round": 1, "board": board.number, "ranking": f"{first} = {second}"}
    assert "½–½" in client_of(organiser).post(url, draw, follow=True).content.decode()

    dropped = client_of(organiser).post(f"/tournaments/{tournament.pk}/drop", {"username": "p3"}, follow=True)
    assert "p3 has withdrawn." in dropped.content.decode()
    entries = dropped.content.decode().split('id="entries"')[1]
    assert "withdrew after round 1" in entries.split('data-entry="p3"')[1].split("</tr>")[0]
    # The player withdraws themselves from the page too.
    gone = client_of(p2).post(f"/tournaments/{tournament.pk}/drop", follow=True).content.decode()
    assert "p2 has withdrawn." in gone and "You have withdrawn from this tournament." in gone


def boxes(page: str) -> dict[str, str]:
    """Each bracket box's SVG, by match id."""
    svg = page.split('<svg class="bracket"')[1].split("</svg>")[0]
    return {
        m.group(1): m.group(0) for m in re.finditer(r'<g class="match [^"]*" data-match="([^"]+)">.*?</g>', svg, re.S)
    }


def test_single_elimination_draws_the_bracket_with_byes_and_results(club):
    club_, organiser, members = club
    tournament = make(club_, organiser, members[:6], format="single_elimination")
    drawn = boxes(page_of(Client(), tournament))
    assert sorted(drawn) == ["W1-1", "W1-2", "W1-3", "W1-4", "W2-1", "W2-2", "W3-1"]
    # Six in a bracket of eight: seeds 1 and 2 (p0, p1) have byes; 4 v 5 and 3 v 6 play.
    assert 'class="match bye' in drawn["W1-1"] and "p0" in drawn["W1-1"] and "Bye" in drawn["W1-1"]
    assert 'class="match playing' in drawn["W1-2"] and "p3" in drawn["W1-2"] and "p4" in drawn["W1-2"]
    assert "p0" in drawn["W2-1"] and "Winner of W1-2" in drawn["W2-1"]
    assert "Winner of W2-1" in drawn["W3-1"]
    game = TournamentBoard.objects.get(tournament=tournament, bracket_match="W1-2").game_id
    assert f'href="/games/{game}/play"' in drawn["W1-2"]
    page = page_of(Client(), tournament)
    assert page.count('<polyline class="link"') == 6  # every later match is fed by two lines
    assert ">Semi-finals<" in page and ">Final<" in page

    play_round(tournament, losers={"p3", "p5"})  # p4 beats p3, p2 beats p5
    drawn = boxes(page_of(Client(), tournament))
    assert re.search(r'class="slot won"[^>]*>.*?p4</text>', drawn["W1-2"])
    assert re.search(r'class="slot lost"[^>]*>.*?p3</text>', drawn["W1-2"])
    assert 'class="match done' in drawn["W1-2"] and f'href="/games/{game}/replay"' in drawn["W1-2"]
    assert "p0" in drawn["W2-1"] and "p4" in drawn["W2-1"] and "Winner of" not in drawn["W2-1"]
    play_round(tournament, losers={"p4", "p2"})
    play_round(tournament, losers={"p1"})
    assert tournament.status == "finished"
    page = page_of(Client(), tournament)
    assert re.search(r'class="slot won"[^>]*>.*?p0</text>', boxes(page)["W3-1"])
    standings = page.split('id="standings"')[1]
    assert standings.index('data-player="p0"') < standings.index('data-player="p1"')


def test_double_elimination_draws_both_brackets_and_the_grand_final(club):
    club_, organiser, members = club
    tournament = make(club_, organiser, members[:4], format="double_elimination")
    page = page_of(Client(), tournament)
    drawn = boxes(page)
    assert sorted(drawn) == ["GF", "GF2", "L1-1", "L2-1", "W1-1", "W1-2", "W2-1"]
    assert "Loser of W1-1" in drawn["L1-1"] and "Loser of W2-1" in drawn["L2-1"]
    for heading in ("Winners round 1", "Losers round 1", "Grand final", "Grand final reset"):
        assert f">{heading}<" in page
    y = {mid: int(re.search(r'<rect x="\d+" y="(\d+)"', svg).group(1)) for mid, svg in drawn.items()}
    x = {mid: int(re.search(r'<rect x="(\d+)"', svg).group(1)) for mid, svg in drawn.items()}
    assert y["L1-1"] > y["W1-2"]  # the losers bracket is drawn under the winners bracket
    assert x["GF"] > max(x["W2-1"], x["L2-1"]) and x["GF2"] > x["GF"]
    assert min(y["W2-1"], y["L2-1"]) < y["GF"] < max(y["W2-1"], y["L2-1"])  # level with its feeders

    play_round(tournament, losers={"p3", "p2"})  # p0 and p1 win the first round
    drawn = boxes(page_of(Client(), tournament))
    assert "p3" in drawn["L1-1"] and "p2" in drawn["L1-1"] and 'class="match playing' in drawn["L1-1"]


def test_groups_then_a_playoff(club):
    club_, organiser, members = club
    tournament = make(club_, organiser, members, format="groups_playoff", settings={"groups": 2, "advance": 2})
    page = page_of(Client(), tournament)
    groups = page.split('id="groups"')[1].split("</div>")[0]
    assert groups.count("<caption>") == 2 and "Group A" in groups and "Group B" in groups
    assert groups.count('class="advances"') == 4
    drawn = boxes(page)
    assert sorted(drawn) == ["W1-1", "W1-2", "W2-1"]
    assert "Group A #1" in drawn["W1-1"] and "Group B #2" in drawn["W1-1"]  # a group winner meets the other's runner-up
    entries = page.split('id="entries"')[1]
    assert "group A" in entries and "group B" in entries

    while tournament.bracket.get("stage") == "groups":
        play_round(tournament)
    drawn = boxes(page_of(Client(), tournament))
    assert "Group A" not in drawn["W1-1"] and 'class="match playing' in drawn["W1-1"]


def test_tables_of_four_list_their_seats(club):
    club_, organiser, members = club
    tournament = make(club_, organiser, members, format="multi_swiss", engine="turn-thief", rounds=1)
    play_round(tournament)
    page = page_of(Client(), tournament)
    round_1 = page.split('data-round="1"')[1].split("</details>")[0]
    assert round_1.count('<ol class="table-seats">') == 2 and round_1.count("<li") == 8
    assert "Players, in seat order" in round_1
    assert "place 1" in round_1 and "place 4" in round_1
    assert "game points" in page.split('id="standings"')[1].split("</thead>")[0]


def test_the_tournament_page_in_japanese(club):
    club_, organiser, members = club
    tournament = make(club_, organiser, members[:4], format="single_elimination")
    page = page_of(client_of(organiser, "ja"), tournament)
    assert '<html lang="ja">' in page
    for words in ("順位表", "ラウンド", "決勝", "次のラウンドを組む", "結果を訂正"):
        assert words in page, words


def test_bracket_geometry():
    from types import SimpleNamespace

    from league.scoring.elimination import single_elimination
    from web.brackets import BOX_H, COL_W, draw, points_text

    assert [points_text(v) for v in (1.0, 0.5, 0.0, 2.5, None, 2 / 3, 0.25, 3)] == [
        "1", "½", "0", "2½", "", "0.67", "0.25", "3",
    ]  # fmt: skip
    names = {1: "ann", 2: "bob", 3: "cy", 4: "dee"}
    done = SimpleNamespace(
        seat_ids=[1, 4], placements=[[4], [1]], points={"1": 0.0, "4": 1.0}, finished_at=1, decided_by="game",
        game_id="g", game=None,
    )  # fmt: skip
    with translation.override("en"):
        bracket = draw(single_elimination(4), [1, 2, 3, 4], name=names.get, boards={"W1-1": done})
    by_id = {box.id: box for box in bracket.boxes}
    semis, final = (by_id["W1-1"], by_id["W1-2"]), by_id["W2-1"]
    assert final.x == COL_W and final.y == (semis[0].y + semis[1].y) // 2  # centred on its feeders
    assert semis[1].y - semis[0].y > BOX_H  # no overlap
    assert [s.text for s in final.slots] == ["dee", "Winner of W1-2"] and final.slots[0].seed == 4
    assert by_id["W1-1"].slots[1].won and by_id["W1-1"].slots[0].lost and by_id["W1-1"].slots[1].score == "1"
    assert by_id["W1-1"].state == "done" and by_id["W1-2"].state == "waiting"
    assert len(bracket.lines) == 2 and bracket.width >= final.right


def test_match_boards_link_to_their_match(club):
    club_, organiser, members = club
    settings = {"match": {"format": "best_of", "target": 3}}
    tournament = make(club_, organiser, members[:4], format="single_elimination", settings=settings)
    board = TournamentBoard.objects.get(tournament=tournament, bracket_match="W1-1")
    assert board.match_id is not None and board.game_id is None
    page = page_of(Client(), tournament)
    assert f'href="/api/matches/{board.match_id}"' in boxes(page)["W1-1"]
    row = page.split('data-round="1"')[1].split(f'data-board="{board.number}"')[1].split("</tr>")[0]
    assert f'href="/api/matches/{board.match_id}"' in row and "the match" in row


def test_the_organiser_seeds_the_bracket_at_the_start(club):
    club_, organiser, members = club
    tournament = make(club_, organiser, members[:4], format="single_elimination", start=False)
    url = f"/tournaments/{tournament.pk}/start"
    missing = client_of(organiser).post(url, {"seeding": "p3, p2"}, follow=True).content.decode()
    assert "invalid_seeding" in missing  # every entrant, once
    unknown = client_of(organiser).post(url, {"seeding": "p3\nnobody"}, follow=True).content.decode()
    assert "no_such_player" in unknown
    started = client_of(organiser).post(url, {"seeding": "p3\np2, p1\np0"}, follow=True).content.decode()
    assert "round 1 is paired" in started
    drawn = boxes(started)
    assert re.search(r'class="seed">1</tspan> p3<', drawn["W1-1"]) and "p0" in drawn["W1-1"]  # 1 v 4
    assert "p2" in drawn["W1-2"] and "p1" in drawn["W1-2"]


def test_the_player_page_lists_tournaments_and_seasons(club):
    from league.seasons import services as season_services

    club_, organiser, members = club
    tournament = make(club_, organiser, members[:2], start=False)
    league = season_services.league_create(club_id=club_.pk, by=organiser, name="Winter League", engine="nine-card")
    for member in members[:2]:
        season_services.league_player_add(league_id=league.pk, by=organiser, user=member)
    season = season_services.season_start(league_id=league.pk, by=organiser)
    page = Client().get("/players/p0/").content.decode()
    assert f'href="/tournaments/{tournament.pk}/"' in page.split('id="player-tournaments"')[1]
    assert f'href="/seasons/{season.pk}/"' in page.split('id="player-seasons"')[1] and "Division 1" in page
    assert 'id="player-tournaments"' not in Client().get("/players/org/").content.decode()


@pytest.mark.parametrize("double", [False, True])
def test_every_bracket_size_draws_without_overlaps_as_it_is_played(double):
    """Brackets of 2-17 entrants played to the end with random winners (B's bracket_state decides
    what is playable): every step draws, no two boxes overlap, the lines join boxes, and the drawn
    winners are the results."""
    import random
    from types import SimpleNamespace

    from league.scoring.elimination import bracket_state, double_elimination, single_elimination
    from web.brackets import BOX_H, draw

    rng = random.Random(7)
    for entrants in range(2, 18):
        matches = double_elimination(entrants) if double else single_elimination(entrants, third_place=True)
        seeds = list(range(100, 100 + entrants))
        results: dict[str, int] = {}
        boards: dict[str, SimpleNamespace] = {}
        while True:
            state = bracket_state(matches, seeds, results)
            with translation.override("en"):
                bracket = draw(matches, seeds, name=str, boards=boards)
            drawn = {box.id: box for box in bracket.boxes}
            assert set(drawn) == {m.id for m in matches}
            boxes_ = sorted(bracket.boxes, key=lambda b: (b.x, b.y))
            for a, b in zip(boxes_, boxes_[1:], strict=False):
                assert a.x != b.x or b.y - a.y >= BOX_H, (entrants, a.id, b.id)  # a column never overlaps
            assert all(0 <= box.x and box.right <= bracket.width and box.y + BOX_H <= bracket.height for box in boxes_)
            for match_id, first, second in state.ready:
                assert [s.text for s in drawn[match_id].slots] == [str(first), str(second)]
            for match_id, player in state.byes:
                assert drawn[match_id].state == "bye" and str(player) in [s.text for s in drawn[match_id].slots]
            if state.finished:
                break
            for match_id, first, second in state.ready:
                slot = rng.randrange(2)
                results[match_id] = slot
                winner, loser = (first, second) if slot == 0 else (second, first)
                points = {str(winner): 1.0, str(loser): 0.0}
                boards[match_id] = SimpleNamespace(
                    seat_ids=[first, second], placements=[[winner], [loser]], points=points,
                    finished_at=1, decided_by="game", game_id=None,
                )  # fmt: skip
        for match_id, slot in results.items():
            won = [s for s in drawn[match_id].slots if s.won]
            assert drawn[match_id].state == "done" and len(won) == 1 and drawn[match_id].slots[slot].won


@pytest.mark.parametrize("format", ["swiss", "double_elimination"])
def test_the_page_reads_a_fixed_number_of_queries(club, format):
    """Four or eight players, one round played or two: the same queries (no read per board or row)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    club_, organiser, members = club
    counts = []
    for entrants, rounds in ((4, 1), (8, 2)):
        options = {"rounds": 3} if format == "swiss" else {}
        tournament = make(club_, organiser, members[:entrants], format=format, **options)
        for _ in range(rounds):
            play_round(tournament)
        with CaptureQueriesContext(connection) as queries:
            assert Client().get(f"/tournaments/{tournament.pk}/").status_code == 200
        counts.append(len(queries.captured_queries))
    assert counts[0] == counts[1] <= 12, counts


# ---- the organiser's "New tournament" form on the club page ----------------------------------------
def club_messages(client) -> str:
    return client.get("/clubs/go-club/").content.decode()


def test_new_tournament_form_only_for_organisers(club):
    _, organiser, members = club
    page = client_of(organiser).get("/clubs/go-club/").content.decode()
    form = re.search(r'<section class="panel" id="new-tournament">.*?</section>', page, re.S).group(0)
    assert 'action="/clubs/go-club/tournaments/new"' in form
    for format in ("round_robin", "swiss", "multi_swiss", "single_elimination", "double_elimination", "groups_playoff"):
        assert f'value="{format}"' in form
    assert 'value="nine-card"' in form and 'value="turn-thief"' in form  # two-player and multiplayer engines
    assert 'value="kazekami-kyoko"' not in form  # mature: only the API opens one (with opt-in)
    for field in ("rounds", "cycles", "round_deadline_hours", "third_place", "grand_final_reset", "groups"):
        assert f'name="{field}"' in form
    assert 'name="allow_bots"' in form and 'name="check_in"' in form and 'name="advance"' in form
    assert 'name="seeding"' in form and 'value="rating"' in form and 'value="random"' in form
    member_page = client_of(members[0]).get("/clubs/go-club/").content.decode()
    assert 'id="new-tournament"' not in member_page and "tournaments/new" not in member_page
    assert 'id="new-tournament"' not in Client().get("/clubs/go-club/").content.decode()


def test_new_swiss_tournament_through_the_service(club):
    club_, organiser, _ = club
    client = client_of(organiser)
    response = client.post(
        "/clubs/go-club/tournaments/new",
        {
            "name": "Autumn Swiss",
            "engine": "nine-card",
            "format": "swiss",
            "rounds": "4",
            "cycles": "1",
            "round_deadline_hours": "48",
            "grand_final_reset": "on",  # ticked by default; a Swiss does not take it and leaves it out
            "allow_bots": "on",
        },
    )
    tournament = Tournament.objects.get(club=club_, name="Autumn Swiss")
    assert response.status_code == 302 and response["Location"] == f"/tournaments/{tournament.pk}/"
    assert (tournament.format, tournament.engine, tournament.rounds, tournament.cycles) == ("swiss", "nine-card", 4, 1)
    assert tournament.created_by == organiser and tournament.status == "open"
    assert tournament.settings["round_deadline_seconds"] == 48 * 3600
    assert tournament.settings["allow_bots"] is True and tournament.settings["check_in"] is False
    assert "grand_final_reset" not in tournament.settings and "third_place" not in tournament.settings


def test_new_elimination_tournaments_take_their_settings(club):
    club_, organiser, _ = club
    client = client_of(organiser)
    base = {"engine": "nine-card", "cycles": "1"}
    client.post(
        "/clubs/go-club/tournaments/new", {**base, "name": "KO", "format": "single_elimination", "third_place": "on"}
    )
    client.post(
        "/clubs/go-club/tournaments/new", {**base, "name": "DE", "format": "double_elimination", "check_in": "on"}
    )
    client.post(
        "/clubs/go-club/tournaments/new",
        {**base, "name": "GP", "format": "groups_playoff", "groups": "3", "advance": "1", "third_place": "on"},
    )
    client.post("/clubs/go-club/tournaments/new", {**base, "name": "RR", "format": "round_robin", "cycles": "2"})
    made = {t.name: t for t in Tournament.objects.filter(club=club_)}
    assert made["KO"].settings["third_place"] is True
    assert made["DE"].settings["grand_final_reset"] is False and made["DE"].settings["check_in"] is True
    assert (made["GP"].settings["groups"], made["GP"].settings["advance"], made["GP"].settings["third_place"]) == (
        3,
        1,
        True,
    )
    assert made["RR"].cycles == 2 and made["RR"].format == "round_robin"


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"engine": "no-such-game"}, "unknown_game"),
        ({"rounds": "0"}, "invalid_rounds"),
        ({"format": "knockout"}, "invalid_format"),
        ({"format": "round_robin", "rounds": "3"}, "invalid_rounds"),
        ({"format": "swiss", "cycles": "2"}, "invalid_cycles"),
        ({"format": "swiss", "groups": "2"}, "invalid_settings"),
        ({"round_deadline_hours": "9999"}, "invalid_settings"),
        ({"rounds": "many"}, "invalid_rounds"),
        ({"engine": "kazekami-kyoko"}, "mature_opt_in_required"),
        ({"seeding": "rating"}, "no_rating_ladder"),
        ({"seeding": "best"}, "invalid_seeding"),
    ],
)
def test_new_tournament_refusals_come_back_with_their_code(club, fields, code):
    club_, organiser, _ = club
    client = client_of(organiser)
    post = {"name": "Bad", "engine": "nine-card", "format": "swiss", "cycles": "1", **fields}
    response = client.post("/clubs/go-club/tournaments/new", post)
    assert response.status_code == 302 and response["Location"] == "/clubs/go-club/"
    assert f"{code}: " in club_messages(client)
    assert not Tournament.objects.filter(club=club_).exists()


def test_new_tournament_seeded_by_rating_says_so(club):
    club_, organiser, members = club
    services.ladder_create(club_id=club_.pk, by=organiser, engine="nine-card", kind="rating")
    client = client_of(organiser)
    post = {"name": "Rated", "engine": "nine-card", "format": "single_elimination", "cycles": "1"}
    client.post("/clubs/go-club/tournaments/new", {**post, "seeding": "rating"})
    client.post("/clubs/go-club/tournaments/new", {**post, "name": "Plain", "seeding": "entry"})
    rated, plain = Tournament.objects.get(name="Rated"), Tournament.objects.get(name="Plain")
    assert rated.settings["seeding"] == "rating" and "seeding" not in plain.settings
    page = page_of(client, rated)
    assert '<span id="seeding">seeded by rating</span>' in page and "seeded by the club's rating ladder" in page
    assert 'id="seeding"' not in page_of(client, plain)


def test_new_tournament_refused_to_a_member(club):
    club_, _, members = club
    client = client_of(members[0])
    response = client.post(
        "/clubs/go-club/tournaments/new", {"name": "Mine", "engine": "nine-card", "format": "swiss", "cycles": "1"}
    )
    assert response["Location"] == "/clubs/go-club/"
    assert "not_organiser: Only an organiser of this club may do this." in club_messages(client)
    assert not Tournament.objects.filter(club=club_).exists()
    assert Client().post("/clubs/go-club/tournaments/new", {"name": "x"}).status_code == 302  # to the login
    assert client.get("/clubs/go-club/tournaments/new").status_code == 405
    assert client.post("/clubs/no-club/tournaments/new", {}).status_code == 404


def test_new_tournament_form_in_japanese(club):
    _, organiser, _ = club
    client = client_of(organiser, "ja")
    page = client.get("/clubs/go-club/").content.decode()
    form = re.search(r'<section class="panel" id="new-tournament">.*?</section>', page, re.S).group(0)
    assert "新しい大会" in form and "スイス式" in form and "9(ナイン)カード" in form
    assert "New tournament" not in form and "Rounds" not in form
    client.post(
        "/clubs/go-club/tournaments/new", {"name": "x", "engine": "nine-card", "format": "swiss", "rounds": "0"}
    )
    assert "invalid_rounds" in client.get("/clubs/go-club/").content.decode()


# ---- the organiser's manual pairing form (Swiss formats) ---------------------------------------------
def boards_of(tournament, number: int) -> list[list[str]]:
    names = {u.pk: u.username for u in get_user_model().objects.all()}
    return [[names[pk] for pk in b.seat_ids] for b in tournament.boards.filter(round=number).order_by("number")]


def test_manual_pairing_re_pairs_the_current_round_and_plans_the_next(club):
    club_, organiser, members = club
    tournament = make(club_, organiser, members[:5])
    client = client_of(organiser)
    form = re.search(r'<form [^>]*id="pairings">.*?</form>', page_of(client, tournament), re.S).group(0)
    assert 'name="tables"' in form and 'value="2"' in form  # the next round by default
    action = f"/tournaments/{tournament.pk}/pairings"
    client.post(action, {"round": "1", "tables": "p0 p1\np2   p3\n\np4\n"})
    assert sorted(boards_of(tournament, 1)) == [["p0", "p1"], ["p2", "p3"], ["p4"]]
    assert "Round 1 is paired again as you wrote it." in page_of(client, tournament)
    client.post(action, {"round": "2", "tables": "p0, p2\np1 p4\np3"})
    assert "Round 2 will be paired as you wrote it." in page_of(client, tournament)
    play_round(tournament)
    assert tournament.current_round == 2
    assert sorted(boards_of(tournament, 2)) == [["p0", "p2"], ["p1", "p4"], ["p3"]]


@pytest.mark.parametrize(
    ("tables", "code"),
    [
        ("p0 p1\np2 p3\nnobody", "no_such_player"),
        ("p0 p1\np2 p3\np0", "invalid_pairing"),  # p0 twice, p4 missing
        ("p0 p1\np2\np3\np4", "invalid_pairing"),  # three byes
        ("\n \n", "invalid_pairing"),
        ("p0 p1\np2 p3\np5", "unknown_player"),  # p5 has not entered
    ],
)
def test_manual_pairing_refusals_come_back_with_their_code(club, tables, code):
    club_, organiser, members = club
    tournament = make(club_, organiser, members[:5])
    client = client_of(organiser)
    client.post(f"/tournaments/{tournament.pk}/pairings", {"round": "2", "tables": tables})
    assert f"{code}: " in page_of(client, tournament)
    assert not TournamentRound.objects.filter(tournament=tournament, number=2).exists()


def test_manual_pairing_only_for_organisers_of_swiss(club):
    club_, organiser, members = club
    swiss = make(club_, organiser, members[:4])
    assert 'id="pairings"' not in page_of(client_of(members[0]), swiss)
    client = client_of(members[0])
    client.post(f"/tournaments/{swiss.pk}/pairings", {"round": "2", "tables": "p0 p1\np2 p3"})
    assert "not_organiser: " in page_of(client, swiss)
    robin = make(club_, organiser, members[:4], format="round_robin")
    assert 'id="pairings"' not in page_of(client_of(organiser), robin)
    client = client_of(organiser)
    client.post(f"/tournaments/{robin.pk}/pairings", {"round": "2", "tables": "p0 p1\np2 p3"})
    assert "manual_pairing_not_supported: " in page_of(client, robin)
    page = page_of(client_of(organiser, "ja"), swiss)
    assert "ラウンドを手動で組み合わせる" in page and "Pair a round by hand" not in page
