"""Which vectors a rerun must reproduce, and which depend on timing: decided from the vectors' data.

A vector depends on timing when what it judges can change with how fast the broker and the machine
are, which its data shows in one of these ways (each reason is recorded):
  - it names a duration: a key ending in `_ms` or `_s` in its input or expectation (a delay, an
    expiry, a margin, a timeout, a tolerance, a skew), or a subject measured in time (`latency_ms`);
  - it sets a time relative to the send: a header value `+N` (milliseconds after the message is
    built), or a `delayTime` / `expireTime` header (OpenMessaging's timed headers);
  - it watches for something that must not come (`expect: none`): the wait is a quiet period measured
    from the broker's round trip (fixtures/verdict/waits.py), so a slow broker can pass what a fast one fails;
  - a scenario observes a redelivery or a delivery happening again (an `observe.` subject naming
    `redeliver`, `again` or `late`), or an absence at the end of a drain (`observe.X` expected
    `false` or `0`): both end on a quiet period too.
Every other vector is reproducible: a rerun of the same vectors against the same product and version
must give the same outcome, or the rows did not come from that product.

Timing belongs to a step, not to a vector as a whole (`strict_part`): a vector of steps
(`expect.steps`) depends on timing from its first step whose data shows one of the signs above;
the steps before it (an attach, a declare, a send) and its setup (`input.setup`, unless the setup
itself shows one) are reproducible. A rerun row that failed or could not be judged at such a step,
or a bundle row that says so, is compared strictly: a vector that fails at its attach cannot be
flipped to pass under the cover of a quiet period that comes later. Timing anywhere else in the
vector's data (its input, an expectation outside the steps) makes the whole vector timing-dependent.
"""
from __future__ import annotations

import re

_DURATION = re.compile(r"_(ms|s)$")
_TIMED_HEADERS = ("delayTime", "expireTime")
# a word of the subject's name (split at `.` and `_`)
_AGAIN = re.compile(r"(?:^|[._])(?:redeliver\w*|again|late)(?:[._]|$)")


def reasons(vector) -> list[str]:
    """Why a vector's outcome depends on timing; empty when it does not."""
    return _reasons(vector.input, vector.expect)


def strict_part(vector) -> tuple[bool, int]:
    """(whether its setup is reproducible, how many of its first steps are): the part of a
    timing-dependent vector that comes before any timing, compared strictly by a rerun."""
    inp = dict(vector.input) if isinstance(vector.input, dict) else {}
    setup = inp.pop("setup", None)
    exp = dict(vector.expect) if isinstance(vector.expect, dict) else {}
    steps = exp.pop("steps", None)
    # Only a vector's own `input.setup` is a strict part: another step booked as setup (a delivery the
    # scenario needed, a connect) may be where its timing shows.
    whole = bool(_reasons(inp, exp))
    setup_ok = setup is not None and not _reasons(setup, None) and not whole
    if whole or not isinstance(steps, list):
        return setup_ok, 0
    n = 0
    for step in steps:
        if _reasons(None, step):
            break
        n += 1
    return setup_ok, n


def before_timing(step: dict | None, part: tuple[bool, int]) -> bool:
    """Whether a row's `failed_step` is in the strict part (setup, or a step before the first timed one)."""
    if not step:
        return False
    setup_ok, n = part
    index = step.get("index")
    if index is None:
        return step.get("role") == "setup" and setup_ok and str(step.get("action", "")).startswith(("input.setup", "setup "))
    return 1 <= index <= n


def _reasons(inp, expect) -> list[str]:
    found: set[str] = set()

    def walk(node, key: str | None = None) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                k = str(k)
                if _DURATION.search(k):
                    found.add(f"names a duration ({k})")
                if k in _TIMED_HEADERS:
                    found.add(f"sets a timed header ({k})")
                if k == "expect" and v == "none":
                    found.add("watches for something that must not come (a quiet period)")
                if k == "of" and isinstance(v, str):
                    if _DURATION.search(v):
                        found.add(f"judges a time ({v})")
                    if v.startswith("observe.") and _AGAIN.search(v):
                        found.add(f"observes a delivery happening again ({v})")
                    if v.startswith("observe.") and node.get("is") in ({"equals": False}, {"equals": 0}):
                        found.add(f"observes an absence at the end of a drain ({v})")
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, str) and re.fullmatch(r"\+\d+", node):
            found.add(f"sets a time relative to the send ({key}: {node})")

    walk(inp)
    walk(expect)
    return sorted(found)


def split(vector_ids, vectors_dir=None) -> dict:
    """{"timing_dependent": {vector id: [reasons]}, "reproducible": n, "strict": {vector id: strict_part}}
    over the given vector ids, with this checkout's vectors (verify has checked that their digest is the
    certificate's)."""
    from pathlib import Path

    from fixtures.vectordata.vectors import load_vectors

    root = Path(vectors_dir) if vectors_dir else Path(__file__).resolve().parent.parent / "vectors"
    by_id = {v.id: v for v in load_vectors(root).vectors}
    timed, strict, plain = {}, {}, 0
    for vid in sorted(set(vector_ids)):
        why = reasons(by_id[vid]) if vid in by_id else ["not in this checkout's vectors"]
        if why:
            timed[vid] = why
            if vid in by_id:
                strict[vid] = strict_part(by_id[vid])
        else:
            plain += 1
    return {"timing_dependent": timed, "reproducible": plain, "strict": strict}


def plan(rows: list[dict]) -> dict:
    """What a certificate says a rerun must reproduce (certificate.json `rerun`): the reproducible
    vectors, and of each timing-dependent one why, and which of its part is compared strictly."""
    s = split(r["vector_id"] for r in rows)
    return {"rule": "certify/timing.py", "reproducible_vectors": s["reproducible"],
            "timing_dependent": s["timing_dependent"],
            "strict_part": {vid: {"setup": setup, "steps": n} for vid, (setup, n) in s["strict"].items()
                            if setup or n}}
