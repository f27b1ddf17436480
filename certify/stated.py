"""The facts the vendor stated of their broker, on the certificate (a section of its own).

An endpoint's URL states facts of the broker's configuration (`?amqp_address_v1=denied`, the
facts of fixtures/vectordata/facts.FACT_VALUES); they decide which vectors apply. The rows keep
them in their provenance (`stated_<fact>`, fixtures/run/brokers.py), so the certificate shows them
from the rows, and `verify` finds them again there. A fact not stated is listed too, with the
vectors that were not_applicable for want of it.
"""
from __future__ import annotations

PREFIX = "stated_"


def of(rows: list[dict]) -> dict:
    """{"stated": {fact: value}, "not_stated": {fact: [vector ids not_applicable for want of it]}}."""
    from fixtures.vectordata.facts import FACT_VALUES

    stated: dict[str, str] = {}
    for r in rows:
        prov = r["implementation"].get("provenance") or {}
        stated.update({k.removeprefix(PREFIX): v for k, v in prov.items() if k.startswith(PREFIX)})
    wanting = {k: sorted({r["vector_id"] for r in rows if r["outcome"] == "not_applicable"
                          and f"the fact {k} is not known" in (r.get("message") or "")})
               for k in FACT_VALUES if k not in stated}
    return {"stated": dict(sorted(stated.items())), "not_stated": wanting}


def section(f: dict) -> list[str]:
    """CERTIFICATE.md's lines for the stated facts (none for a certificate made before they were kept)."""
    facts = f.get("stated_facts")
    if facts is None:
        return []
    lines = ["", "## Facts the vendor stated", "",
             "Stated in the endpoint's URL; they decide which vectors apply, and are taken as given.", ""]
    lines += [f"- `{k}={v}`" for k, v in facts["stated"].items()] or ["None stated."]
    if facts["not_stated"]:
        lines += ["", "Not stated: a vector that needs a fact not stated is not_applicable.", ""]
    for k, vectors in facts["not_stated"].items():
        lines.append(f"- `{k}`: " + (f"{len(vectors)} vector(s) not_applicable for want of it: "
                                      + ", ".join(f"`{v}`" for v in vectors) if vectors else "no vector needed it"))
    return lines
