"""Verdict badges as standalone SVG, in the flat style of shields.io.

Written without any network or font at hand, so text widths are estimated per
character class; the badge is a little wider than needed rather than clipped.
"""
from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

from ..views.model import badge_name

COLOURS = {
    "conformant": "#2e7d32",
    "conformant-except-should": "#a88400",
    "incomplete": "#6e6e6e",
    "not-applicable": "#9f9f9f",
    "not-conformant": "#c62828",
}


def _width(text: str) -> float:
    w = 0.0
    for ch in text:
        if ch in "ijlt.,:;!|'` ()[]-/":
            w += 3.8
        elif ch in "mwMW@%":
            w += 10.0
        elif ch.isupper() or ch.isdigit():
            w += 7.4
        else:
            w += 6.6
    return w


def svg(label: str, value: str, colour: str) -> str:
    lw = round(_width(label) + 12)
    vw = round(_width(value) + 12)
    total = lw + vw
    label_e, value_e = escape(label), escape(value)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" '
        f'aria-label="{escape(label, {chr(34): "&quot;"})}: {escape(value, {chr(34): "&quot;"})}">'
        f"<title>{label_e}: {value_e}</title>"
        f'<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/>'
        f'<stop offset="1" stop-opacity=".1"/></linearGradient>'
        f'<clipPath id="r"><rect width="{total}" height="20" rx="3" fill="#fff"/></clipPath>'
        f'<g clip-path="url(#r)"><rect width="{lw}" height="20" fill="#555"/>'
        f'<rect x="{lw}" width="{vw}" height="20" fill="{colour}"/>'
        f'<rect width="{total}" height="20" fill="url(#s)"/></g>'
        f'<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">'
        f'<text x="{lw / 2:.1f}" y="14">{label_e}</text>'
        f'<text x="{lw + vw / 2:.1f}" y="14">{value_e}</text></g></svg>'
    )


def verdict_svg(v: dict) -> str:
    spec, revision = v["spec"], v.get("spec_revision")
    # rabbitmq-address@4.0 already names its revision.
    label = f"{spec} {revision}" if revision and not spec.endswith(f"@{revision}") else spec
    return svg(label, v["verdict"], COLOURS.get(v["verdict"], "#6e6e6e"))


def write(report: dict, out: Path) -> list[Path]:
    """One badge per implementation x spec under out/badges/."""
    folder = out / "badges"
    folder.mkdir(parents=True, exist_ok=True)
    # Badges of an implementation or spec no longer reported must not linger.
    for old in folder.glob("*.svg"):
        old.unlink()
    written = []
    for v in report["verdicts"]:
        if v.get("badge") is None:     # no badge for mqconform's own code standing in (reports/views/model.py)
            continue
        path = folder / badge_name(v["implementation"], v["spec"])
        path.write_text(verdict_svg(v), encoding="utf-8")
        written.append(path)
    return written
