"""`reports diff A B` (reports/engine/run_diff.py): two runs named by id, prefix or date, compared clause by
clause from a build's store, with the rows behind each change; and every way of naming a run wrongly."""
from __future__ import annotations

import io
import json
import shutil

import pytest
from historydata import C1, C2, C3, C4, REF, STEP, later_rows, latest_rows, older_rows, run_id, write

from reports.engine import run_diff

R1, R2, R3 = run_id("r1"), run_id("r2"), run_id("r3")
TEST_ID = "suites/codecs/test_ce_amqp.py::test_vector[{}-{}]"


def ev(impl, vector, clause_outcome, *, message="", step=None, expected="pass"):
    return {"vector_id": vector, "test_id": TEST_ID.format(impl, vector), "clause_outcome": clause_outcome,
            "outcome": clause_outcome, "expected_outcome": expected, "failed_step": step, "error_kind": None,
            "message": message}


def change(impl, vector, before, after):
    return {"vector_id": vector, "test_id": TEST_ID.format(impl, vector), "before": before, "after": after}


LATER_IMPLS = ["acme-2.0", "alpha", "beta", "gamma", REF, "yota-om-1.0@acme-2.0", "zeta-om-1.0@acme-2.0"]

# r1 -> r2, by hand from historydata: alpha broke C1 and C4 and fixed C2; beta's C3 became a known
# deviation; C3 of alpha (not_applicable twice) and everything else of beta did not change.
EXPECTED_R1_R2 = {
    "from": {"run_id": R1, "run_started": "2026-11-20T09:00:00Z", "implementations": ["alpha", "beta"]},
    "to": {"run_id": R2, "run_started": "2026-11-21T09:00:00Z", "implementations": LATER_IMPLS},
    "compared": ["alpha", "beta"], "only_in_from": [],
    "only_in_to": ["acme-2.0", "gamma", REF, "yota-om-1.0@acme-2.0", "zeta-om-1.0@acme-2.0"],
    "changes": [
        {"implementation": "alpha", "spec": "ce-amqp", "spec_revision": "1.0.3-wip", "clauses": [
            {"clause_id": C1, "before": "pass", "after": "fail", "rows": [
                change("alpha", "v1", ev("alpha", "v1", "pass"),
                       ev("alpha", "v1", "fail", message="v1: prefix missing", step=STEP))]},
            {"clause_id": C2, "before": "fail", "after": "pass", "rows": [
                change("alpha", "v2", ev("alpha", "v2", "fail", message="v2: type wrong",
                                         step={**STEP, "clause_ids": [C2]}), ev("alpha", "v2", "pass"))]},
            {"clause_id": C4, "before": "pass", "after": "fail", "rows": [
                change("alpha", "v4", ev("alpha", "v4", "pass"), ev("alpha", "v4", "fail", message="v4: fail"))]},
        ]},
        {"implementation": "beta", "spec": "ce-amqp", "spec_revision": "1.0.3-wip", "clauses": [
            {"clause_id": C3, "before": "pass", "after": "xfail", "rows": [
                change("beta", "v3", ev("beta", "v3", "pass"),
                       ev("beta", "v3", "xfail", message="v3: known", expected="fail"))]},
        ]},
    ],
}


@pytest.fixture(scope="module")
def store(spark, tmp_path_factory):
    """A store of three runs: r1 (2026-11-20), r2 and r3 (both 2026-11-21)."""
    from reports.engine import build

    base = tmp_path_factory.mktemp("history")
    folder = base / "in"
    write(folder, older_rows(), "r1.jsonl")
    write(folder, latest_rows(), "r2.jsonl")
    write(folder, later_rows(), "r3.jsonl")
    assert build.run([str(folder)], str(base / "out"), spark=spark, quiet=True) == 0
    return str(base / "out" / "store")


def diff(spark, store, a, b, as_json=True):
    out = io.StringIO()
    rc = run_diff.run(a, b, store, as_json=as_json, spark=spark, out=out)
    return rc, (json.loads(out.getvalue()) if as_json and rc == 0 else out.getvalue())


def test_two_runs_by_id_give_each_changed_clause_with_both_rows(spark, store):
    rc, got = diff(spark, store, R1, R2)
    assert rc == 0 and got == EXPECTED_R1_R2


def test_a_date_and_a_prefix_name_the_same_runs(spark, store):
    rc, got = diff(spark, store, "2026-11-20", R2[:6])
    assert rc == 0 and got == EXPECTED_R1_R2


def test_a_clause_only_one_run_judged_is_a_change_and_the_other_implementations_are_named(spark, store):
    rc, got = diff(spark, store, R2, R3)
    assert rc == 0
    assert got["compared"] == ["beta"] and got["only_in_to"] == []
    assert got["only_in_from"] == [i for i in LATER_IMPLS if i != "beta"]
    assert got["changes"] == [{"implementation": "beta", "spec": "ce-amqp", "spec_revision": "1.0.3-wip", "clauses": [
        {"clause_id": C3, "before": "xfail", "after": None, "rows": [
            change("beta", "v3", ev("beta", "v3", "xfail", message="v3: known", expected="fail"), None)]}]}]


def test_markdown_names_the_runs_and_each_rows_evidence(spark, store):
    rc, md = diff(spark, store, R1, R2, as_json=False)
    assert rc == 0
    assert md.startswith(f"# Run {R1} → {R2}\n")
    assert "4 clause(s) changed in 2 implementation(s) both ran." in md
    assert "## alpha: ce-amqp 1.0.3-wip" in md and "## beta: ce-amqp 1.0.3-wip" in md
    assert (f"- **{C1}**: pass → fail\n"
            "  - v1 `suites/codecs/test_ce_amqp.py::test_vector[alpha-v1]`\n"
            "    - before: **pass** (row pass, expected pass)\n"
            "    - after: **fail** (row fail, expected pass), step 2 send (check of 1 clause): v1: prefix missing\n") in md
    assert "    - after: **xfail** (row xfail, expected fail): v3: known" in md
    rc, md = diff(spark, store, R2, R3, as_json=False)
    assert "    - before: **xfail** (row xfail, expected fail): v3: known\n    - after: no row\n" in md and f"- **{C3}**: xfail → not judged" in md
    assert "Only in the first run, not compared: acme-2.0, alpha, gamma" in md


@pytest.mark.parametrize("a, b, said", [
    ("2026-11-21", R1, ["2 runs started on 2026-11-21; name one by its run id:", R2, R3]),
    (R1, "2026-11-19", ["no run started on 2026-11-19 (UTC); the store's runs, newest first:", R1, R2, R3]),
    (R1, "nosuch-run", ["no run 'nosuch-run' in the store; its runs, newest first:", R1, R2, R3]),
    (R1, "r", ["no run 'r' in the store (a prefix needs 4 characters or more)", R3]),
    ("r000", R1, []),   # a prefix no run has (each run id is r<digit>000...)
    (R1, "2026-13-01", ["'2026-13-01' is not a date (YYYY-MM-DD)"]),
    (R1, "2026-11-20", [f"'{R1}' and '2026-11-20' name the same run, {R1}"]),
], ids=["ambiguous-date", "no-run-that-day", "unknown-id", "short-prefix", "unknown-prefix", "not-a-date", "same-run"])
def test_a_run_that_cannot_be_named_is_2_and_says_why(spark, store, capsys, a, b, said):
    rc, printed = diff(spark, store, a, b)
    err = capsys.readouterr().err
    assert rc == 2 and printed == "" and err.startswith("reports diff: "), err
    for text in said:
        assert text in err, err


def test_an_ambiguous_prefix_lists_the_runs_it_matches():
    runs = run_diff.known_runs([
        {"impl": "a", "run_id": "abcd01", "run_started": "2026-11-20T09:00:00Z", "run_us": 1, "date": "2026-11-20"},
        {"impl": "b", "run_id": "abcd01", "run_started": "2026-11-20T09:00:00Z", "run_us": 1, "date": "2026-11-20"},
        {"impl": "a", "run_id": "abcd02", "run_started": "2026-11-21T09:00:00Z", "run_us": 2, "date": "2026-11-21"},
        {"impl": "a", "run_id": "ffff03", "run_started": "2026-11-22T09:00:00Z", "run_us": 3, "date": "2026-11-22"},
    ])
    assert [(r["run_id"], r["implementations"]) for r in runs] == [
        ("ffff03", ["a"]), ("abcd02", ["a"]), ("abcd01", ["a", "b"])]
    with pytest.raises(run_diff.DiffError) as exc:
        run_diff.resolve("abcd", runs)
    assert str(exc.value) == ("2 runs have ids starting with 'abcd'; name one in full:\n"
                              "  abcd02  2026-11-21T09:00:00Z  a\n  abcd01  2026-11-20T09:00:00Z  a, b")
    assert run_diff.resolve("ffff", runs)["run_id"] == "ffff03"
    many = [{"run_id": f"{i:04d}", "run_started": "", "implementations": ["a"]} for i in range(25)]
    assert run_diff.listing(many).splitlines()[-1] == "  … and 5 more"


def test_no_store_is_2(spark, tmp_path, capsys):
    rc, _ = diff(spark, str(tmp_path / "nothing"), R1, R2)
    assert rc == 2 and "reports diff: no store at " in capsys.readouterr().err


def test_the_runs_are_known_from_the_records_when_the_runs_table_is_missing(spark, store, tmp_path):
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    with_table = sorted((r["run_id"], r["impl"], str(r["date"])) for r in run_diff.run_rows(spark, str(copy)))
    shutil.rmtree(copy / "runs")
    from_records = sorted((r["run_id"], r["impl"], str(r["date"])) for r in run_diff.run_rows(spark, str(copy)))
    assert from_records == with_table and len({r for r, _, _ in with_table}) == 3
    rc, got = diff(spark, str(copy), R1, R2)
    assert rc == 0 and got == EXPECTED_R1_R2


def test_the_command_line_needs_both_runs_and_the_store():
    from reports.__main__ import main

    with pytest.raises(SystemExit) as exc:
        main(["diff", R1, R2])
    assert exc.value.code == 2


# ---- labels from both runs' clause outcomes (issue: a held clause shown as not_applicable) ---------------

@pytest.fixture(scope="module")
def labelled(spark, tmp_path_factory):
    """Runs r1 and r2 of alpha, each clause's rows chosen so that a matrix cell's worst outcome and the
    clause's own state disagree:
      C1 held in both (r2 adds a not_applicable row beside the pass)       -> silent
      C2 held in r1 (pass beside not_applicable), fails in r2             -> pass → fail
      C3 only not_applicable in r1, no row in r2: judged in neither       -> silent
      C4 held in r1 (pass beside unsupported), only unsupported in r2     -> pass → unsupported
    """
    from historydata import row

    from reports.engine import build

    r1 = [row("r1", "alpha", "v1", {C1: "pass"}), row("r1", "alpha", "v2", {C2: "pass"}),
          row("r1", "alpha", "v5", {C2: "not_applicable"}), row("r1", "alpha", "v3", {C3: "not_applicable"}),
          row("r1", "alpha", "v4", {C4: "pass"}), row("r1", "alpha", "v6", {C4: "unsupported"}, level="MAY")]
    r2 = [row("r2", "alpha", "v1", {C1: "pass"}), row("r2", "alpha", "v7", {C1: "not_applicable"}),
          row("r2", "alpha", "v2", {C2: "fail"}, message="v2: type wrong"),
          row("r2", "alpha", "v5", {C2: "not_applicable"}),
          row("r2", "alpha", "v4", {C4: "unsupported"}, level="MAY"),
          row("r2", "alpha", "v6", {C4: "unsupported"}, level="MAY")]
    base = tmp_path_factory.mktemp("labels")
    write(base / "in", r1, "r1.jsonl")
    write(base / "in", r2, "r2.jsonl")
    assert build.run([str(base / "in")], str(base / "out"), spark=spark, quiet=True) == 0
    return str(base / "out" / "store")


def test_each_clause_is_labelled_by_its_own_state_and_unjudged_ones_are_silent(spark, labelled):
    rc, got = diff(spark, labelled, R1, R2)
    assert rc == 0
    [g] = got["changes"]
    assert [(c["clause_id"], c["before"], c["after"]) for c in g["clauses"]] == [
        (C2, "pass", "fail"), (C4, "pass", "unsupported")]
    rc, md = diff(spark, labelled, R1, R2, as_json=False)
    assert "not_applicable →" not in md and "→ not judged" not in md and "→ not_applicable" not in md
