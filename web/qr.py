"""QR codes for the venue: a result slip's link to the report page of its pairing, and the door
poster's link to the tournament's check-in page. segno encodes them (pure Python, no image library
needed): inline SVG for the print page (vector, sharp at any print size), PNG for the PDF."""

from __future__ import annotations

import io

import segno

# Level M restores up to 15% of the code: a slip gets folded, creased and pencilled on.
ERROR_LEVEL = "m"


def encode(url: str) -> segno.QRCode:
    """The QR code of ``url``: a full QR code (phones read no Micro QR), at least level M."""
    return segno.make(url, error=ERROR_LEVEL, micro=False)


def svg(url: str, title: str) -> str:
    """Inline SVG (a viewBox, no fixed size: the print CSS sizes it) with ``title`` for screen
    readers; segno escapes the title. No style attributes, so the site's CSP is happy."""
    return encode(url).svg_inline(omitsize=True, svgclass="qr", lineclass=None, title=title)


def png(url: str, *, scale: int = 10) -> bytes:
    """A 1-bit PNG, ``scale`` pixels a module, with the standard quiet zone of 4 modules."""
    out = io.BytesIO()
    encode(url).save(out, kind="png", scale=scale, border=4)
    return out.getvalue()
