"""Text inside Markdown (summary.md, certificates): table cells, inline code, one-line shortening."""
from __future__ import annotations


def md_cell(value) -> str:
    """Text safe inside a Markdown table cell."""
    text = "" if value is None else str(value)
    for ch in "\\|`*_<>[]":
        text = text.replace(ch, "\\" + ch)
    return text.replace("\r", " ").replace("\n", " ")


def shorten(text, limit: int) -> str:
    """`text` on one line, at most `limit` characters: cut at the last word boundary that fits, with "…"
    (a word is never cut in two; a single word longer than the limit is cut and marked)."""
    text = " ".join(str(text or "").split())
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    if text[limit - 1] != " " and " " in cut:
        cut = cut[:cut.rindex(" ")]
    return cut.rstrip(" ,;:.") + "…"


def code_cell(value) -> str:
    """Text as inline code inside a Markdown table cell (a backtick cannot be escaped there: it becomes ')."""
    text = " ".join(("" if value is None else str(value)).split()).replace("`", "'").replace("|", "\\|")
    return f"`{text}`" if text else "—"

def decided_by(v: dict) -> str:
    """The step that decided a row, in words: "step 2 send (check of 1 clause)", "setup failed: step 1
    attach_sender", "observation broke: step 3 queue_get", "adapter: not judged"."""
    step, kind = v.get("failed_step"), v.get("error_kind")
    where = ""
    if step:
        where = f"step {step['index']} {step['action']}" if step.get("index") else step.get("action") or ""
    if kind:
        return f"{kind}: {where}".rstrip(": ") if where else f"{kind}: not judged"
    if step:
        n = len(step.get("clause_ids") or [])
        return f"{where} ({step.get('role')} of {n} clause{'s' if n != 1 else ''})"
    return ""
