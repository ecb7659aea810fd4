"""The printable round as a PDF (fpdf2, pure Python): the overview of the tables, then one A4 page
per result slip with its QR code - the same content as the print page (web/print_views.py), for a
venue whose printer is driven from a file rather than a browser.

Every word is set in one TrueType font with the Japanese glyphs (usernames and the Japanese page
are not Latin-1, which the PDF core fonts cannot show): ``settings.KIFU_PDF_FONT``, else Debian's
IPA Gothic (package fonts-ipafont-gothic; bin/test and the Dockerfile install it). Without one the
PDF is refused with ``FontMissing`` (503 ``pdf_font_missing``); the print page needs no font here.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from fpdf import FPDF, XPos, YPos
from fpdf.enums import WrapMode

from . import qr

# Where Debian's fonts-ipafont-gothic puts IPA Gothic (the second is its alternatives link).
DEBIAN_FONTS = (
    Path("/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf"),
    Path("/usr/share/fonts/truetype/fonts-japanese-gothic.ttf"),
)
FAMILY = "kifu"
MARGIN = 15  # mm, on A4 (210 x 297)
QR_SIZE = 60  # mm: readable by a phone held at arm's length across a table
QR_PIXELS = 6  # a module's pixels in the embedded PNG: whole pixels, 1-bit, enough for a sharp print


class FontMissing(Exception):
    code = "pdf_font_missing"


def font_path() -> Path:
    configured = getattr(settings, "KIFU_PDF_FONT", "")
    for path in [Path(configured)] if configured else DEBIAN_FONTS:
        if path.is_file():
            return path
    raise FontMissing(
        f"no font for the PDF at {configured}: set KIFU_PDF_FONT to a TrueType file with Japanese glyphs"
        if configured
        else "no font with Japanese glyphs: install Debian's fonts-ipafont-gothic or set KIFU_PDF_FONT to a TTF file"
    )


@dataclass(frozen=True)
class Slip:
    """What one result slip says; the print page renders the same fields."""

    number: int
    players: tuple[str, ...]
    detail: str  # "Division 2" or "W1-2", or ""
    url: str  # the report page of the pairing


def _paragraph(pdf: FPDF, height: float, text: str) -> None:
    """A left-aligned paragraph; Japanese has no spaces between words, so it may break at any character."""
    wrap = WrapMode.CHAR if (get_language() or "").startswith("ja") else WrapMode.WORD
    pdf.multi_cell(0, height, text, align="L", wrapmode=wrap, new_x=XPos.LMARGIN, new_y=YPos.NEXT)


def _start(title: str) -> FPDF:
    pdf = FPDF(orientation="P", unit="mm", format="A4")
    pdf.set_title(title)
    pdf.set_creator("Kifu")
    pdf.set_margins(MARGIN, MARGIN, MARGIN)
    pdf.set_auto_page_break(True, margin=MARGIN)
    pdf.add_font(FAMILY, fname=str(font_path()))
    return pdf


def _overview(pdf: FPDF, *, title: str, heading: str, tables: list[tuple[int, str, str]], detail_label: str) -> None:
    pdf.add_page()
    pdf.set_font(FAMILY, size=18)
    _paragraph(pdf, 9, title)
    pdf.set_font(FAMILY, size=12)
    _paragraph(pdf, 7, heading)
    pdf.ln(4)
    widths = (22, 128, 30) if detail_label else (22, 158, 0)
    pdf.set_font(FAMILY, size=11)
    pdf.set_fill_color(235, 235, 235)
    for text, width in zip((_("Table"), _("Players"), detail_label), widths, strict=True):
        if width:
            pdf.cell(width, 8, text, border=1, fill=True)
    pdf.ln()
    for number, players, detail in tables:
        pdf.cell(widths[0], 8, str(number), border=1)
        pdf.cell(widths[1], 8, players, border=1)
        if widths[2]:
            pdf.cell(widths[2], 8, detail, border=1)
        pdf.ln()


def _slip(pdf: FPDF, *, title: str, heading: str, slip: Slip) -> None:
    pdf.add_page()
    width = pdf.w - 2 * MARGIN
    pdf.set_font(FAMILY, size=11)
    head = " · ".join(part for part in (title, heading, slip.detail) if part)
    _paragraph(pdf, 6, head)
    pdf.set_font(FAMILY, size=40)
    pdf.cell(0, 20, _("Table %(number)s") % {"number": slip.number}, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.ln(4)
    columns = ((_("Seat"), 18), (_("Player"), 72), (_("Place"), 22), (_("Score"), 22), (_("Signature"), width - 134))
    pdf.set_font(FAMILY, size=11)
    pdf.set_fill_color(235, 235, 235)
    for text, w in columns:
        pdf.cell(w, 9, text, border=1, fill=True)
    pdf.ln()
    pdf.set_font(FAMILY, size=14)
    for seat, name in enumerate(slip.players, start=1):
        pdf.cell(columns[0][1], 14, str(seat), border=1, align="C")
        pdf.cell(columns[1][1], 14, name, border=1)
        for _label, w in columns[2:]:
            pdf.cell(w, 14, "", border=1)
        pdf.ln()
    pdf.ln(6)
    pdf.set_font(FAMILY, size=10)
    words = _(
        "Write each player's place (1 = won, equal places for a tie) and the score if the game keeps one; all sign."
    )
    _paragraph(pdf, 5, words)
    top = max(pdf.get_y() + 8, pdf.h - MARGIN - QR_SIZE - 22)
    left = (pdf.w - QR_SIZE) / 2
    code = io.BytesIO(qr.png(slip.url, scale=QR_PIXELS))
    pdf.image(code, x=left, y=top, w=QR_SIZE, h=QR_SIZE, link=slip.url, alt_text=slip.url)
    pdf.set_xy(MARGIN, top + QR_SIZE + 2)
    pdf.set_font(FAMILY, size=12)
    pdf.cell(0, 7, _("Scan to report the result"), align="C", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_font(FAMILY, size=8)
    pdf.cell(0, 5, slip.url, align="C", link=slip.url)


def round_pdf(
    *, title: str, heading: str, slips: list[Slip], overview: list[tuple[int, str, str]], detail_label: str = ""
) -> bytes:
    """The overview (every table, byes included) on the first page(s), then one page per slip."""
    pdf = _start(f"{title} · {heading}")
    _overview(pdf, title=title, heading=heading, tables=overview, detail_label=detail_label)
    for slip in slips:
        _slip(pdf, title=title, heading=heading, slip=slip)
    return bytes(pdf.output())
