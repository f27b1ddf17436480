"""The audit's rows, breaches and context (reports/gate/audit.py says the invariants)."""
from __future__ import annotations

from dataclasses import dataclass, field

FAILED = ("fail", "xfail")


@dataclass(frozen=True)
class Row:
    rec: dict
    where: str                                # FILE:LINE

    @property
    def impl(self) -> str:
        return self.rec["implementation"]["name"]

    def shown(self) -> str:
        proto = self.rec.get("protocol")
        return f"{self.where} {self.impl}{f' over {proto}' if proto else ''} {self.rec['vector_id']} " \
               f"({self.rec['outcome']})"


@dataclass(frozen=True)
class Breach:
    invariant: str
    rows: tuple[str, ...]
    why: str

    def shown(self) -> str:
        return f"{self.invariant}: {self.why}\n" + "".join(f"    {r}\n" for r in self.rows)


@dataclass
class Context:
    """What the invariants read beside the rows: vectors by id, the clause registry, and the facts
    each target states (target name -> {fact: value}, the catalog's)."""
    vectors: dict
    registry: object
    catalog_facts: dict = field(default_factory=dict)
    observations: dict = field(default_factory=dict)   # (run_id, test_id) -> an OpenMessaging row's record

    @property
    def features(self) -> frozenset:
        """The optional features some vector binds only where they are offered (its optional_feature):
        the only MAY clauses whose rows say "offered" or "not offered" of an implementation. A vector
        of another party that cites such a clause (a receiver reading what a sender MAY include) says
        nothing of it."""
        return frozenset(v.optional_feature for v in self.vectors.values() if v.optional_feature)
