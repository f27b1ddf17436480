"""The report folder's files rendered from one report (reports/views/model.py): compliance.json, summary.md,
index.html and badges/*.svg. Plain Python: `reports build` publishes them (reports/engine/build.py), the DuckDB
baseline and certify/regen.py write the same files from their own report."""
from __future__ import annotations

import json
from pathlib import Path

from . import badges, render_html, render_md


def write_outputs(report: dict, out: Path) -> None:
    """Render every output into a local folder."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "compliance.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "summary.md").write_text(render_md.render(report), encoding="utf-8")
    (out / "index.html").write_text(render_html.render(report), encoding="utf-8")
    badges.write(report, out)
