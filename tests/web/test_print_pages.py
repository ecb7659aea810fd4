"""Printable rounds and check-in by QR, in-process: the print page of a tournament round and of a
season matchday (every table with its number, as the tournament and season pages number them; one
slip per table whose QR code decodes to that pairing's report page), the PDF (one page per slip,
Japanese names, the QR image), the door poster and the one-tap check-in page, bad ids.

QR codes are decoded with zxing-cpp, a decoder that shares nothing with segno's encoder: the page's
inline SVG is drawn back into pixels from its path, the PDF's QR is its embedded image.
"""

from __future__ import annotations

import io
import os
import re

import pytest
import zxingcpp
from django.test import Client, override_settings
from django.urls import reverse
from PIL import Image, ImageDraw
from pypdf import PdfReader

from league import services
from league.models import Tournament, TournamentBoard
from league.seasons import services as season_services
from league.seasons.models import Fixture
from league.tournaments import lifecycle
from tests.web.accounts import client_of, user
from tests.web.test_tournament_pages import make
from web import print_pdf

pytestmark = pytest.mark.django_db


# ---- decoding what was printed -------------------------------------------------------------------
def svg_modules(svg: str) -> tuple[int, set[tuple[int, int]]]:
    """The dark modules drawn by a QR code's inline SVG: segno draws each row's runs as one path of
    ``M``/``m`` moves and ``h`` lines at the row's middle (y + 0.5). Returns (size, {(x, y)})."""
    size = int(re.search(r'viewBox="0 0 (\d+) \1"', svg).group(1))
    path = re.search(r'<path[^>]* d="([^"]+)"', svg).group(1)
    x = y = 0.0
    dark = set()
    for command, args in re.findall(r"([MmHh])([-\d. ]+)", path):
        numbers = [float(n) for n in args.split()]
        if command == "M":
            x, y = numbers
        elif command == "m":
            x, y = x + numbers[0], y + numbers[1]
        else:
            end = numbers[0] if command == "H" else x + numbers[0]
            dark.update((int(col), int(y)) for col in range(int(x), int(end)))
            x = end
    return size, dark


def decode_svg(svg: str) -> str:
    size, dark = svg_modules(svg)
    scale = 8
    image = Image.new("L", (size * scale, size * scale), 255)
    draw = ImageDraw.Draw(image)
    for col, row in dark:
        draw.rectangle([col * scale, row * scale, (col + 1) * scale - 1, (row + 1) * scale - 1], fill=0)
    (found,) = zxingcpp.read_barcodes(image)
    return found.text


def slips(html: str) -> dict[int, str]:
    return {
        int(m.group(1)): m.group(0)
        for m in re.finditer(r'<section class="sheet slip" data-table="(\d+)".*?</section>', html, re.S)
    }


def overview_rows(html: str) -> dict[int, str]:
    overview = re.search(r'<section class="sheet overview".*?</section>', html, re.S).group(0)
    return {int(m.group(1)): m.group(2) for m in re.finditer(r'<tr data-table="(\d+)">(.*?)</tr>', overview, re.S)}


def absolute(path: str) -> str:
    return "http://testserver" + path


# ---- data ----------------------------------------------------------------------------------------
@pytest.fixture
def club():
    """An organiser, eight members (one with a Japanese name) and a non-member of one club."""
    organiser = user("org")
    club = services.club_create(name="Go Club", slug="go-club", by=organiser)
    members = []
    for name in ["アキ", "ben", "cat", "dan", "eve", "fay", "gus", "hal"]:
        member = user(name)
        services.membership_invite(club_id=club.pk, by=organiser, user=member)
        services.membership_join(club_id=club.pk, by=member)
        members.append(member)
    return club, organiser, members


def tournament_of(club, organiser, entrants, *, start=True, **settings) -> Tournament:
    """A Swiss tournament of Nine Card ("swiss cup") with these settings."""
    return make(club, organiser, entrants, start=start, settings=settings)


def season_of(club, organiser, members):
    league = season_services.league_create(
        club_id=club.pk, by=organiser, name="Winter League", engine="nine-card", divisions=2, promote=1, relegate=1
    )
    for member in members:
        season_services.league_player_add(league_id=league.pk, by=organiser, user=member)
    return season_services.season_start(league_id=league.pk, by=organiser)


# ---- a tournament round --------------------------------------------------------------------------
def test_a_tournament_round_prints_every_board_with_its_number_and_a_slip_each(club):
    club_, organiser, members = club
    tournament = tournament_of(club_, organiser, members[:7])  # 7 players: three boards and a bye
    boards = list(TournamentBoard.objects.filter(tournament=tournament, round=1).order_by("number"))
    assert len(boards) == 4 and sum(board.is_bye for board in boards) == 1
    names = {member.pk: member.username for member in members}

    response = Client().get(f"/tournaments/{tournament.pk}/rounds/1/print")  # anyone who may see the page
    assert response.status_code == 200
    html = response.content.decode()
    assert 'href="/static/web/print.css"' in html or "print.css" in html
    assert '<header class="site">' not in html  # no site navigation on the sheets
    rows, printed = overview_rows(html), slips(html)
    assert sorted(rows) == [board.number for board in boards]
    page = Client().get(f"/tournaments/{tournament.pk}/").content.decode()
    for board in boards:
        seated = [names[pk] for pk in board.seat_ids]
        assert " – ".join(seated) in rows[board.number] or (board.is_bye and "bye" in rows[board.number])
        assert f'<tr data-board="{board.number}"' in page  # the tournament page's numbering
        if board.is_bye:
            assert board.number not in printed  # nothing to report at a bye
            continue
        slip = printed[board.number]
        assert f"Table {board.number}</h2>" in slip and f'data-kind="board" data-pk="{board.pk}"' in slip
        assert re.findall(r'<td class="player">([^<]+)</td>', slip) == seated  # seat order
    assert len(printed) == 3
    assert 'id="online-only"' in html  # the default "results": "online" refuses what the slips report
    assert f'href="/tournaments/{tournament.pk}/rounds/1/print"' in page  # the page links to it


def test_a_table_of_four_gets_one_slip_with_every_seat(club):
    club_, organiser, members = club
    tournament = make(club_, organiser, members, format="multi_swiss", engine="turn-thief", rounds=1)
    names = {member.pk: member.username for member in members}
    html = Client().get(f"/tournaments/{tournament.pk}/rounds/1/print").content.decode()
    printed = slips(html)
    boards = TournamentBoard.objects.filter(tournament=tournament, round=1).order_by("number")
    assert sorted(printed) == [board.number for board in boards] == [1, 2]
    for board in boards:
        seated = [names[pk] for pk in board.seat_ids]
        assert len(seated) == 4 and re.findall(r'<td class="player">([^<]+)</td>', printed[board.number]) == seated


def test_each_tournament_slip_qr_decodes_to_its_boards_report_page(club):
    club_, organiser, members = club
    tournament = tournament_of(club_, organiser, members, results="either")
    html = Client().get(f"/tournaments/{tournament.pk}/rounds/1/print").content.decode()
    assert 'id="online-only"' not in html
    for board in TournamentBoard.objects.filter(tournament=tournament, round=1):
        slip = slips(html)[board.number]
        svg = re.search(r"<svg.*?</svg>", slip, re.S).group(0)
        expected = absolute(reverse("web:pairing-report", kwargs={"kind": "board", "pk": board.pk}))
        assert decode_svg(svg) == expected
        assert expected in slip  # printed under the code too, for a phone without a camera


def test_the_print_page_in_japanese(club):
    club_, organiser, members = club
    tournament = tournament_of(club_, organiser, members)
    html = client_of(members[1], "ja").get(f"/tournaments/{tournament.pk}/rounds/1/print").content.decode()
    assert '<html lang="ja">' in html
    assert "テーブル 1</h2>" in html and "第 1 ラウンド" in html and "署名" in html and "アキ" in html


# ---- a season matchday ---------------------------------------------------------------------------
def test_a_season_matchday_prints_every_division_with_the_season_pages_table_numbers(club):
    club_, organiser, members = club
    season = season_of(club_, organiser, members)  # two divisions of four: two fixtures each a round
    fixtures = list(Fixture.objects.filter(season=season, round=2).order_by("division__tier", "board"))
    assert len(fixtures) == 4
    page = Client().get(f"/seasons/{season.pk}/").content.decode()
    shown = {int(f): int(t) for f, t in re.findall(r'<tr data-fixture="(\d+)" data-table="(\d+)">', page)}

    html = Client().get(f"/seasons/{season.pk}/rounds/2/print").content.decode()
    rows, printed = overview_rows(html), slips(html)
    assert sorted(rows) == sorted(printed) == [1, 2, 3, 4]
    for number, fixture in enumerate(fixtures, start=1):  # tier 1 first, then by board
        assert shown[fixture.pk] == number
        slip = printed[number]
        assert f'data-kind="fixture" data-pk="{fixture.pk}"' in slip
        assert re.findall(r'<td class="player">([^<]+)</td>', slip) == [fixture.home.username, fixture.away.username]
        assert f"Division {fixture.division.tier}" in slip and f"Division {fixture.division.tier}" in rows[number]
    assert f'href="/seasons/{season.pk}/rounds/2/print"' in page


def test_each_season_slip_qr_decodes_to_its_fixtures_report_page(club):
    club_, organiser, members = club
    season = season_of(club_, organiser, members)
    html = Client().get(f"/seasons/{season.pk}/rounds/1/print").content.decode()
    for slip in slips(html).values():
        pk = int(re.search(r'data-pk="(\d+)"', slip).group(1))
        expected = absolute(reverse("web:pairing-report", kwargs={"kind": "fixture", "pk": pk}))
        assert decode_svg(re.search(r"<svg.*?</svg>", slip, re.S).group(0)) == expected


# ---- the PDF -------------------------------------------------------------------------------------
@pytest.fixture
def pdf_font():
    """The PDF's font with Japanese glyphs (bin/test installs Debian's fonts-ipafont-gothic): without
    it these tests skip on a laptop and fail in CI, as the browser tests do without Chromium."""
    try:
        return print_pdf.font_path()
    except print_pdf.FontMissing as missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the PDF tests cannot run in CI: {missing}")
        pytest.skip(str(missing))


def pdf_of(response) -> PdfReader:
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-")
    return PdfReader(io.BytesIO(response.content))


def test_the_pdf_has_the_overview_then_one_page_per_slip_with_japanese_names(club, pdf_font):
    club_, organiser, members = club
    tournament = tournament_of(club_, organiser, members[:7])
    boards = list(TournamentBoard.objects.filter(tournament=tournament, round=1).order_by("number"))
    names = {member.pk: member.username for member in members}
    reader = pdf_of(Client().get(f"/tournaments/{tournament.pk}/rounds/1/print.pdf"))
    played = [board for board in boards if not board.is_bye]
    assert len(reader.pages) == 1 + len(played)
    overview = reader.pages[0].extract_text()
    assert "swiss cup" in overview and "Round 1" in overview
    for board in boards:
        assert all(names[pk] in overview for pk in board.seat_ids)
    for page, board in zip(reader.pages[1:], played, strict=True):
        text = page.extract_text()
        assert f"Table {board.number}" in text and text.count("Table ") == 1
        assert all(names[pk] in text for pk in board.seat_ids)
    assert "アキ" in reader.pages[0].extract_text()  # a Japanese username, drawn in IPA Gothic

    japanese = pdf_of(client_of(members[1], "ja").get(f"/tournaments/{tournament.pk}/rounds/1/print.pdf"))
    assert "テーブル 1" in japanese.pages[1].extract_text()


def test_the_pdf_qr_images_decode_to_the_report_pages(club, pdf_font):
    club_, organiser, members = club
    season = season_of(club_, organiser, members)
    fixtures = list(Fixture.objects.filter(season=season, round=1).order_by("division__tier", "board"))
    reader = pdf_of(Client().get(f"/seasons/{season.pk}/rounds/1/print.pdf"))
    assert len(reader.pages) == 1 + len(fixtures)
    for page, fixture in zip(reader.pages[1:], fixtures, strict=True):
        (image,) = page.images
        (found,) = zxingcpp.read_barcodes(image.image)
        assert found.text == absolute(reverse("web:pairing-report", kwargs={"kind": "fixture", "pk": fixture.pk}))


def test_without_a_font_for_japanese_the_pdf_is_refused_with_a_clear_503(club):
    club_, organiser, members = club
    tournament = tournament_of(club_, organiser, members)
    with override_settings(KIFU_PDF_FONT="/nowhere/font.ttf"):
        response = Client().get(f"/tournaments/{tournament.pk}/rounds/1/print.pdf")
    assert response.status_code == 503
    assert response.json()["code"] == "pdf_font_missing" and "KIFU_PDF_FONT" in response.json()["detail"]


# ---- check-in by QR at the venue -----------------------------------------------------------------
def test_the_door_poster_qr_opens_the_check_in_page(club):
    club_, organiser, members = club
    tournament = tournament_of(club_, organiser, members[:4], start=False, check_in=True)
    page = client_of(organiser).get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f'href="/tournaments/{tournament.pk}/check-in/poster"' in page
    html = Client().get(f"/tournaments/{tournament.pk}/check-in/poster").content.decode()
    svg = re.search(r"<svg viewBox.*?</svg>", html, re.S).group(0)
    assert decode_svg(svg) == absolute(f"/tournaments/{tournament.pk}/check-in/here")
    assert "Check in here" in html and '<header class="site">' not in html


def test_an_entrant_checks_in_with_one_tap(club):
    club_, organiser, (aki, ben, *_) = club
    tournament = tournament_of(club_, organiser, [aki, ben], start=False, check_in=True)
    here = f"/tournaments/{tournament.pk}/check-in/here"
    client = client_of(ben)
    page = client.get(here).content.decode()
    assert 'id="check-in-form"' in page and "Check in as ben" in page
    response = client.post(here, follow=True)
    assert response.redirect_chain == [(here, 302)]
    page = response.content.decode()
    assert "ben, you are checked in." in page and 'id="checked-in"' in page and 'id="check-in-form"' not in page
    assert tournament.entries.get(user=ben).checked_in_at is not None
    assert tournament.entries.get(user=aki).checked_in_at is None
    assert "チェックイン" in client_of(aki, "ja").get(here).content.decode()


def test_check_in_refuses_others_with_clear_messages(club):
    club_, organiser, members = club
    aki, ben, cat, dan = members[:4]
    tournament = tournament_of(club_, organiser, [aki, ben, dan], start=False, check_in=True)
    here = f"/tournaments/{tournament.pk}/check-in/here"

    # Not logged in: the page says so and links to the log-in; a POST goes to the log-in.
    page = Client().get(here).content.decode()
    assert 'id="log-in-first"' in page and f"/accounts/login/?next={here}" in page
    response = Client().post(here)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")

    # Not entered: no button, and a POST is refused in words; nothing is written.
    page = client_of(cat).get(here).content.decode()
    assert 'id="not-entered"' in page and 'id="check-in-form"' not in page
    page = client_of(cat).post(here, follow=True).content.decode()
    assert "not_entered: You have not entered this tournament" in page
    assert not tournament.entries.filter(user=cat).exists()

    # Check-in closed once the tournament has started.
    client_of(aki).post(here)
    client_of(dan).post(here)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser)
    page = client_of(ben).get(here).content.decode()
    assert "Check-in is closed: the tournament has started." in page and 'id="check-in-form"' not in page
    page = client_of(ben).post(here, follow=True).content.decode()
    assert "tournament_started: Check-in is closed: the tournament has started." in page
    assert tournament.entries.get(user=ben).checked_in_at is None
    poster = Client().get(f"/tournaments/{tournament.pk}/check-in/poster").content.decode()
    assert 'id="check-in-closed"' in poster and "<svg" not in poster

    # A tournament without check-in says so.
    plain = tournament_of(club_, organiser, [aki], start=False)
    page = client_of(aki).get(f"/tournaments/{plain.pk}/check-in/here").content.decode()
    assert "This tournament has no check-in" in page and 'id="check-in-form"' not in page
    page = client_of(aki).post(f"/tournaments/{plain.pk}/check-in/here", follow=True).content.decode()
    assert "check_in_off: This tournament has no check-in" in page


# ---- bad ids -------------------------------------------------------------------------------------
def test_bad_ids_are_404(club):
    club_, organiser, members = club
    tournament = tournament_of(club_, organiser, members)
    season = season_of(club_, organiser, members)
    client = client_of(organiser)
    for path in [
        "/tournaments/999999/rounds/1/print",
        "/tournaments/999999/rounds/1/print.pdf",
        f"/tournaments/{tournament.pk}/rounds/9/print",  # not paired yet
        f"/tournaments/{tournament.pk}/rounds/0/print.pdf",
        "/seasons/999999/rounds/1/print",
        f"/seasons/{season.pk}/rounds/99/print",
        f"/seasons/{season.pk}/rounds/99/print.pdf",
        "/tournaments/999999/check-in/poster",
        "/tournaments/999999/check-in/here",
    ]:
        assert client.get(path).status_code == 404, path
    assert client.get(f"/tournaments/{tournament.pk}/rounds/x/print").status_code == 404
    assert client.post(f"/tournaments/{tournament.pk}/rounds/1/print").status_code == 405
