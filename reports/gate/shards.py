"""A run split across machines is judged whole or not at all (fixtures/run/shards.py makes the split).

The rule: every shard of a sharded run (rows whose `shard` names one run id) must be among the latest
runs the gate reads; a share none of whose rows is there, or shards that disagree on how many there
are, is an input error naming the run and the shares, never a smaller run passed as a whole one.
"""
from __future__ import annotations


def problems(rows: list[dict]) -> list[str]:
    """A line for each sharded run whose shards are not all among `rows` (the latest runs' rows)."""
    seen: dict[str, dict] = {}
    for r in rows:
        s = r.get("shard")
        if not s:
            continue
        run = seen.setdefault(s["run"], {"counts": set(), "indices": set()})
        run["counts"].add(s["count"])
        run["indices"].add(s["index"])
    out = []
    for name in sorted(seen):
        counts, indices = seen[name]["counts"], seen[name]["indices"]
        if len(counts) > 1:
            out.append(f"sharded run {name}: its shards disagree on how many there are "
                       f"({', '.join(str(c) for c in sorted(counts))}); run every shard with the same --shard I/N count")
            continue
        count = counts.pop()
        missing = [i for i in range(1, count + 1) if i not in indices]
        if missing:
            out.append(f"sharded run {name}: shard {', '.join(f'{i}/{count}' for i in missing)} missing (no row of it "
                       f"among the results given, or every one superseded by a later run); give every shard's "
                       f"results file (or the store they were built into)")
    return out


def alone(rows: list[dict]) -> list[str]:
    """What `gate --one-shard` says of the shards it judges alone."""
    shares = sorted({(r["shard"]["run"], r["shard"]["index"], r["shard"]["count"]) for r in rows if r.get("shard")})
    if not shares:
        return ["--one-shard: these rows are of no split run; judged as a whole run"]
    return [f"shard {i}/{c} of sharded run {run} judged alone; the run is judged by a gate given every shard's results"
            for run, i, c in shares]
