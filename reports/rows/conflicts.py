"""Two rows of one key with different outcomes: refused by the gate and by `reports build` alike.

The rule kept: a row's key is (run_id, vector_id, implementation name, protocol): one vector, run
once in one run against one implementation over one protocol. A row without a protocol (a codec's;
a broker's written before the field, docs/results.md) has its test id there instead: such a broker
ran a vector in one test per protocol (test_amqp091, test_amqp10), and only the test tells them apart. Rows of one key with one outcome are
the same row given twice (a run's JSON Lines and a store built from them, a file concatenated
twice): they are merged. Rows of one key with different outcomes cannot both be true, and which of
them a reader kept would depend on the order of lines and files (a passing copy placed before a
failing row would hide it): the inputs are refused as an input error (exit 2), every row of the key
named by file:line (a Parquet file by its path), whatever the order.

Plain Python (the gate's reader, reports/gate/read_plain.py); the build's Spark query of the keys is
reports/engine/keys.py conflicting_keys().
"""
from __future__ import annotations


def key(rec: dict) -> tuple:
    """The key of a record or of a gate's row (which names its implementation `impl`)."""
    impl = rec.get("implementation")
    name = impl.get("name") if isinstance(impl, dict) else rec.get("impl")
    protocol = rec.get("protocol")
    return rec.get("run_id"), rec.get("vector_id"), name, protocol if protocol is not None else rec.get("test_id")


def describe(k: tuple) -> str:
    run_id, vector_id, impl, protocol = k
    over = f"test {protocol}" if protocol is not None and "::" in protocol else f"protocol {protocol}"
    return f"run {run_id}, vector {vector_id}, implementation {impl}, {over}"


class Conflicts:
    """Rows offered with where they are; problems() names those of the keys whose outcomes differ.
    `only`: the keys to keep track of (None: all)."""

    def __init__(self, only: set[tuple] | None = None):
        self.only = only
        self.rows: dict[tuple, list[tuple[str, int | None, str]]] = {}   # key -> (file, line, outcome)

    def offer(self, rec: dict, where: str, line: int | None) -> None:
        k = key(rec)
        if self.only is None or k in self.only:
            self.rows.setdefault(k, []).append((where, line, rec.get("outcome")))

    def keys(self) -> list[tuple]:
        return [k for k, rows in self.rows.items() if len({o for _, _, o in rows}) > 1]

    def problems(self) -> list[tuple[str, int | None, str]]:
        """(file, line, why) per row of a conflicting key, in the order of the keys' first rows."""
        out = []
        for k in self.keys():
            rows = self.rows[k]
            for i, (where, n, outcome) in enumerate(rows):
                others = ", ".join(f"{o} at {_at(w, m)}" for j, (w, m, o) in enumerate(rows) if j != i)
                out.append((where, n, f"outcome {outcome}, but the same key ({describe(k)}) has {others}: one run "
                                      "of a vector has one outcome; remove the wrong row(s) or fix their writer"))
        return out


def _at(where: str, line: int | None) -> str:
    shown = where[len("file:"):] if where.startswith("file:/") else where
    return f"{shown}:{line}" if line else shown


def name_rows(found: list[tuple[tuple, list[str]]], read_lines) -> list[tuple[str, int | None, str]]:
    """The build's (file, line, why) for the keys reports/engine/keys.py conflicting_keys() found: JSON Lines files are read
    again (`read_lines(file)`, text lines with their line ends) to name each row's line; a Parquet
    or Delta file is named without one."""
    from . import validate

    conflicts = Conflicts({k for k, _ in found})
    for where in sorted({f for _, files in found for f in files}):
        if where.endswith(".parquet") or "/_delta_log" in where:
            for k, files in found:
                if where in files:
                    conflicts.rows.setdefault(k, []).append((where, None, "(a Parquet record)"))
            continue
        validate.scan_lines(where, read_lines(where), validate.Problems(),
                            lambda rec, n, where=where: conflicts.offer(rec, where, n), numbered=True)
    out = conflicts.problems()
    named = set(conflicts.keys())
    for k, files in found:   # a key whose rows could not be told apart by line still stops the build
        if k not in named:
            out.append((files[0], None, f"rows of one key ({describe(k)}) with different outcomes"))
    return out
