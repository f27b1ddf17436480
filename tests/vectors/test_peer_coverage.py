"""docs/peer-coverage.md: every vector id it cites exists, every id it proposes does not yet, and its
summary counts what its tables say.

A citation is a backticked token that starts with a spec id of vectors/ and a dot
(`ce-amqp.binary.decode-colon`); clause ids use '/' and are not citations. A token written right after
"proposed id:" is a proposal, not a citation.
"""
from __future__ import annotations

import re
from collections import Counter

import pytest

from fixtures.vectordata.vectors import load_vectors
from tests.paths import ROOT, VECTORS

DOC = ROOT / "docs" / "peer-coverage.md"
SPECS = sorted(p.name for p in VECTORS.iterdir() if p.is_dir() and p.name != "clauses")
TOKEN = re.compile(r"`([^`\n]+)`")
PROPOSED = re.compile(r"proposed id:\s*`([^`\n]+)`")
ID_CHARS = re.compile(r"[A-Za-z0-9@._-]+")
STATUSES = ("covered", "not normative", "open reading", "uncovered")


def is_vector_id(token: str) -> bool:
    return bool(ID_CHARS.fullmatch(token)) and any(
        token.startswith(spec + ".") and len(token) > len(spec) + 1 for spec in SPECS)


def citations(text: str) -> list[tuple[int, str, bool]]:
    """(line, id, proposed) for every vector-like token, in order."""
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        proposed = set(PROPOSED.findall(line))
        found += [(n, tok, tok in proposed) for tok in TOKEN.findall(line) if is_vector_id(tok)]
    return found


def missing(text: str, ids: set[str], name: str = "docs/peer-coverage.md") -> list[str]:
    return [f"{name}:{n}: `{v}` is no vector in vectors/" for n, v, proposed in citations(text)
            if not proposed and v not in ids]


def not_new(text: str, ids: set[str], name: str = "docs/peer-coverage.md") -> list[str]:
    return [f"{name}:{n}: proposed id `{v}` is a vector now: cite it in its table and drop the proposal"
            for n, v, proposed in citations(text) if proposed and v in ids]


def cells(line: str) -> list[str]:
    """The cells of a markdown table row; a '|' inside backticks is text."""
    out, cur, code = [], "", False
    for ch in line.strip().strip("|"):
        if ch == "`":
            code = not code
        if ch == "|" and not code:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [*out, cur.strip()]


def sections(text: str) -> dict[str, list[str]]:
    """Lines under each '## ' heading, keyed by the heading's number ('1') or its text ('Summary')."""
    out: dict[str, list[str]] = {}
    key = None
    for line in text.splitlines():
        if line.startswith("## "):
            head = line[3:].strip()
            key = head.split(".", 1)[0] if head[:1].isdigit() else head
            out[key] = []
        elif key is not None:
            out[key].append(line)
    return out


def case_rows(lines: list[str]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the table whose header starts with 'case'."""
    header, rows = None, []
    for line in lines:
        if not line.startswith("|"):
            continue
        row = cells(line)
        if row[0] == "case":
            header = row
        elif header is not None and not set(row[0]) <= {"-"}:
            rows.append(row)
    assert header is not None, "no table with a 'case' column"
    return header, rows


def counts(header: list[str], rows: list[list[str]], tag: str) -> Counter:
    tags = header.index("tags · groups") if "tags · groups" in header else None
    c: Counter = Counter()
    for row in rows:
        if tags is not None and row[tags].split(" · ")[0] not in ("both", tag):
            continue
        c["cases"] += 1
        c[row[-1]] += 1
    return c


@pytest.fixture(scope="module")
def vector_ids() -> set[str]:
    return {v.id for v in load_vectors(VECTORS).vectors}


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def test_every_cited_vector_exists(doc, vector_ids):
    problems = missing(doc, vector_ids)
    assert not problems, "\n".join(problems)


def test_proposed_ids_are_not_vectors_yet(doc, vector_ids):
    problems = not_new(doc, vector_ids)
    assert not problems, "\n".join(problems)


def test_the_doc_cites_vectors_of_each_peer_spec(doc):
    cited = {v for _, v, proposed in citations(doc) if not proposed}
    for spec in ("rabbitmq-address@4.0", "ce-amqp", "ce-rabbitmq"):
        assert any(v.startswith(spec + ".") for v in cited), f"no `{spec}.` vector cited"


def test_a_missing_id_is_named_with_its_line():
    text = "# t\n\n| a | `ce-amqp.binary.decode-colon` | `ce-amqp.binary.no-such` |\n" \
           "- proposed id: `ce-amqp.binary.new-one`\n- clause `ce-amqp/3.1.2/data-as-application-data`\n"
    ids = {"ce-amqp.binary.decode-colon"}
    assert missing(text, ids, "d.md") == ["d.md:3: `ce-amqp.binary.no-such` is no vector in vectors/"]
    assert not_new(text, ids, "d.md") == []
    assert not_new(text, ids | {"ce-amqp.binary.new-one"}, "d.md") == [
        "d.md:4: proposed id `ce-amqp.binary.new-one` is a vector now: cite it in its table and drop the proposal"]


def test_every_case_has_a_status_and_the_summary_counts_the_tables(doc):
    parts = sections(doc)
    summary = [cells(line) for line in parts["Summary"] if line.startswith("|")]
    head, body = summary[0], [r for r in summary[2:]]
    assert body, "empty summary"
    for row in body:
        section, read_at = row[head.index("§")], row[head.index("read at")]
        header, rows = case_rows(parts[section])
        for r in rows:
            assert r[-1] in STATUSES, f"section {section}, case {r[0]}: status {r[-1]!r} is none of {STATUSES}"
        got = counts(header, rows, read_at)
        want = {k: int(row[head.index(k)]) for k in ("cases", *STATUSES)}
        assert {k: got[k] for k in want} == want, f"summary row for section {section} at {read_at}"
