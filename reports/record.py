"""The result record (docs/results.md), typed once: Spark's schema (reports/schema.py), the bench's
Arrow schema and every reader of the report take the fields from here. Plain Python.

A type is "string", "int", "double", ("array", T), ("map", K, V) or ("struct", FIELDS), FIELDS being
(name, type) pairs. Fields that a row of an older schema lacks read as null; `with_defaults` and the
engines' readers (reports/read.py, reports/baseline_duckdb.py) give them the values schema 4 means
(fixtures/verdict/records.py `role_of`: role `product`, except mqconform's reference codecs and mappings; no
profile: an empty one; no tally: null).
"""
from __future__ import annotations

from fixtures.verdict.records import (  # noqa: F401
    REFERENCE_PROVIDER_PREFIX,
    ROLES,
    SCHEMA_VERSION,
    TALLY_COUNTS,
    TALLY_IDS,
    reference_names,
    role_of,
)

STR_MAP = ("map", "string", "string")

IMPLEMENTATION = ("struct", (
    ("name", "string"),
    ("kind", "string"),         # codec | broker | provider
    ("version", "string"),
    ("provenance", STR_MAP),    # a provider's: broker, broker_product, broker_version, protocol, ...
    ("role", "string"),         # product | reference (schema 3)
))

FAILED_STEP = ("struct", (
    ("index", "int"),
    ("action", "string"),
    ("role", "string"),
    ("clause_ids", ("array", "string")),
))

# requirement id (vectors/openmessaging/profile.yaml) -> what the row observed (schema 3)
PROFILE_ENTRY = ("struct", (("status", "string"), ("evidence", "string")))
PROFILE = ("map", "string", PROFILE_ENTRY)
PROFILE_STATUSES = ("native", "emulated", "absent", "unknown")   # strongest first

# a fault vector's count (schema 4): the fault, what was sent, confirmed, delivered, lost, duplicated
TALLY = ("struct", (
    ("fault", "string"),
    *((n, "int") for n in TALLY_COUNTS),
    *((n, ("array", "string")) for n in TALLY_IDS),
))

FIELDS = (
    ("schema_version", "int"),
    ("run_id", "string"),
    ("run_started", "string"),
    ("suite_version", "string"),
    ("vectors_digest", "string"),
    ("spec", "string"),
    ("spec_revision", "string"),
    ("clause_ids", ("array", "string")),
    ("level", "string"),
    ("clause_outcomes", STR_MAP),
    ("failed_step", FAILED_STEP),
    ("error_kind", "string"),
    ("notes", ("array", "string")),
    ("set_by", STR_MAP),
    ("profile", PROFILE),
    ("tally", TALLY),
    ("test_id", "string"),
    ("vector_id", "string"),
    ("vector_status", "string"),
    ("implementation", IMPLEMENTATION),
    ("adapter", "string"),
    ("protocol", "string"),
    ("outcome", "string"),
    ("expected_outcome", "string"),
    ("message", "string"),
    ("started", "string"),
    ("duration_s", "double"),
)

FIELD_NAMES = [name for name, _ in FIELDS]
IMPLEMENTATION_FIELDS = [name for name, _ in IMPLEMENTATION[1]]


def implementation_of(row: dict) -> dict:
    """A row's implementation as schema 3 and later have it: role set (fixtures/verdict/records.py `role_of`), provenance a dict."""
    impl = dict(row.get("implementation") or {})
    impl["role"] = role_of(impl)
    prov = impl.get("provenance")
    impl["provenance"] = dict(prov) if isinstance(prov, (dict, list)) else {}
    return impl


def profile_of(row: dict) -> dict[str, dict]:
    """A row's profile: requirement id -> {status, evidence}; {} for rows without one. A status outside
    PROFILE_STATUSES reads as `unknown` (nothing a reader can credit)."""
    prof = row.get("profile")
    items = prof.items() if isinstance(prof, dict) else (prof or [])
    out = {}
    for req, entry in items:
        entry = dict(entry or {})
        status = entry.get("status") if entry.get("status") in PROFILE_STATUSES else "unknown"
        out[req] = {"status": status, "evidence": entry.get("evidence") or ""}
    return out


def tally_of(row: dict) -> dict | None:
    """A row's tally as plain Python (an engine hands arrays as lists or tuples, absent ones as None), or
    None for a row without one (every row but a fault vector's, and every row before schema 4)."""
    t = row.get("tally")
    if t is None:
        return None
    t = t.asDict(recursive=True) if hasattr(t, "asDict") else dict(t)
    out = {"fault": t.get("fault")}
    out.update({n: int(t.get(n) or 0) for n in TALLY_COUNTS})
    out.update({n: [str(i) for i in (t.get(n) or [])] for n in TALLY_IDS})
    return out
