"""Charts as inline SVG strings: no script library, no network, prints well.

Every label goes through escape(); implementation names come from result files
and are not trusted to be markup-free.
"""
from __future__ import annotations

from html import escape

from fixtures.verdict.levels import GROUPS

from ..rows import timeutil

PALETTE = ("#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f",
           "#ad1457", "#4e342e", "#558b2f", "#283593", "#f9a825", "#37474f")
LEVEL_COLOURS = {"MUST": "#1565c0", "SHOULD": "#00838f", "MAY": "#9e9e9e"}


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate * 100:.1f}%"


def _frame(width: int, height: int, title: str, body: list[str], left: int, top: int, plot_h: int, plot_w: int) -> str:
    grid = []
    for i in range(0, 5):
        y = top + plot_h - plot_h * i / 4
        grid.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#ddd"/>'
                    f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{25 * i}%</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">'
            f"<title>{escape(title)}</title>" + "".join(grid) + "".join(body) + "</svg>")


def level_bars(level_pass_rates: dict[str, dict[str, float | None]]) -> str:
    """Grouped bars: for each implementation, pass rate at MUST, SHOULD, MAY."""
    impls = list(level_pass_rates)
    groups = GROUPS
    bar, gap = 14, 18
    left, top, plot_h, bottom = 48, 28, 180, 90
    group_w = bar * len(groups) + gap
    plot_w = max(group_w * len(impls), 200)
    width, height = left + plot_w + 110, top + plot_h + bottom  # room for the last slanted name
    body = []
    for i, g in enumerate(groups):  # legend
        x = left + i * 90
        body.append(f'<rect x="{x}" y="6" width="10" height="10" fill="{LEVEL_COLOURS[g]}"/>'
                    f'<text x="{x + 14}" y="15" font-size="11">{g}</text>')
    for i, impl in enumerate(impls):
        x0 = left + i * group_w + gap / 2
        for j, g in enumerate(groups):
            rate = level_pass_rates[impl].get(g)
            # A 0 % bar stays visible as a sliver, unlike a level with nothing judged.
            h = 0 if rate is None else max(plot_h * rate, 2)
            x = x0 + j * bar
            tip = escape(f"{impl} {g}: {_pct(rate)}")
            if rate is None:
                body.append(f'<text x="{x + bar / 2:.1f}" y="{top + plot_h - 3}" font-size="9" '
                            f'text-anchor="middle" fill="#999"><title>{tip}</title>–</text>')
            else:
                body.append(f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{bar - 2}" height="{h:.1f}" '
                            f'fill="{LEVEL_COLOURS[g]}"><title>{tip}</title></rect>')
        cx = x0 + bar * len(groups) / 2
        body.append(f'<text transform="translate({cx:.1f},{top + plot_h + 12}) rotate(35)" font-size="11">'
                    f"{escape(impl)}</text>")
    return _frame(width, height, "Pass rate per level, latest run", body, left, top, plot_h, plot_w)


def history_lines(history: list[dict]) -> str:
    """Pass rate per run over time, one line per implementation."""
    points = [(h["implementation"], r) for h in history for r in h["runs"] if r["pass_rate"] is not None]
    left, top, plot_h, plot_w = 48, 28, 180, 560
    legend_rows = (len(history) + 2) // 3
    width, height = left + plot_w + 30, top + plot_h + 30 + 16 * legend_rows
    body = []
    if not points:
        body.append(f'<text x="{left + 10}" y="{top + plot_h / 2}" font-size="12">no judged runs</text>')
        return _frame(width, height, "Pass rate per run", body, left, top, plot_h, plot_w)
    # Runs are placed by start time, on a linear time axis.
    stamps = {r["run_started"]: timeutil.parse(r["run_started"]) for _, r in points}
    known = [t for t in stamps.values() if t is not None]
    t0 = min(known) if known else None
    span = ((max(known) - t0).total_seconds() if known else 0) or 1.0
    times = sorted(stamps, key=lambda s: (stamps[s] is None, stamps[s] or t0, s))

    def xy(r):
        t = stamps[r["run_started"]]
        frac = 0.5 if t is None or len(known) < 2 else (t - t0).total_seconds() / span
        return left + plot_w * frac, top + plot_h - plot_h * r["pass_rate"]

    body.append(f'<text x="{left}" y="{top + plot_h + 16}" font-size="11">{escape(times[0])}</text>')
    if len(times) > 1:
        body.append(f'<text x="{left + plot_w}" y="{top + plot_h + 16}" font-size="11" text-anchor="end">'
                    f"{escape(times[-1])}</text>")
    for i, h in enumerate(history):
        colour = PALETTE[i % len(PALETTE)]
        runs = [r for r in h["runs"] if r["pass_rate"] is not None]
        coords = [xy(r) for r in runs]
        if len(coords) > 1:
            pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
            body.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2"/>')
        # Circles carry the tooltips; past a few hundred runs they only add weight.
        if len(coords) <= 400:
            for (x, y), r in zip(coords, runs, strict=True):
                tip = escape(f"{h['implementation']} {r['version'] or ''} {r['run_started']}: {_pct(r['pass_rate'])}")
                body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"><title>{tip}</title></circle>')
        lx, ly = left + (i % 3) * 190, top + plot_h + 34 + 16 * (i // 3)
        body.append(f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill="{colour}"/>'
                    f'<text x="{lx + 14}" y="{ly}" font-size="11">{escape(h["implementation"])}</text>')
    return _frame(width, height, "Pass rate per run", body, left, top, plot_h, plot_w)
