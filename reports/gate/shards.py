"""A run split across machines is judged whole or not at all (fixtures/run/shards.py makes the split).

The rules:
- every sharded run that a judged row belongs to (the latest run of an implementation, whose `shard`
  names a split run) must have each of its shards among ALL the rows read, superseded ones included
  (a later run of some implementations does not unmake the split run that ran them): a share none
  of whose rows is there is an input error naming the run and the share;
- the shards of one run must agree on how many there are and on the split (its digest): shards run
  with different selections, or on machines that split differently, are refused, never merged;
- rows of no split run are judged as ever.
"""
from __future__ import annotations


class Seen:
    """The shards of every split run among the rows read: run -> counts, indices, splits."""

    def __init__(self):
        self.runs: dict[str, dict[str, set]] = {}

    def add(self, shard) -> None:
        if not isinstance(shard, dict) or not shard.get("run"):
            return
        run = self.runs.setdefault(shard["run"], {"counts": set(), "indices": set(), "splits": set()})
        run["counts"].add(shard.get("count"))
        run["indices"].add(shard.get("index"))
        run["splits"].add(shard.get("split"))


def problems(rows: list[dict], seen: Seen | None = None) -> list[str]:
    """A line for each split run of the judged `rows` that is not whole among what was read (`seen`,
    by default the rows themselves)."""
    if seen is None:
        seen = Seen()
        for r in rows:
            seen.add(r.get("shard"))
    judged = sorted({r["shard"]["run"] for r in rows if isinstance(r.get("shard"), dict) and r["shard"].get("run")})
    out = []
    for name in judged:
        run = seen.runs.get(name, {"counts": set(), "indices": set(), "splits": set()})
        counts, indices, splits = run["counts"], run["indices"], run["splits"]
        if len(counts) != 1:
            out.append(f"sharded run {name}: its shards disagree on how many there are "
                       f"({', '.join(str(c) for c in sorted(counts, key=str))}); run every shard with the same "
                       "--shard I/N count")
            continue
        if len(splits) > 1:
            out.append(f"sharded run {name}: its shards were split differently (split digests "
                       f"{', '.join(sorted(str(s) for s in splits))}): each shard must be run with the same options "
                       "and suite, or targets run twice and others never")
            continue
        count = next(iter(counts))
        missing = [i for i in range(1, count + 1) if i not in indices]
        if missing:
            out.append(f"sharded run {name}: shard {', '.join(f'{i}/{count}' for i in missing)} missing (no row of it "
                       f"among the results given); give every shard's results file (or the store they were built into)")
    return out


def alone(rows: list[dict]) -> list[str]:
    """What `gate --one-shard` says of the shards it judges alone."""
    shares = sorted({(r["shard"]["run"], r["shard"]["index"], r["shard"]["count"]) for r in rows
                     if isinstance(r.get("shard"), dict)})
    if not shares:
        return ["--one-shard: these rows are of no split run; judged as a whole run"]
    return [f"shard {i}/{c} of sharded run {run} judged alone; the run is judged by a gate given every shard's results"
            for run, i, c in shares]
