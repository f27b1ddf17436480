"""The pytest plugin end to end, in a throwaway project (pytester): parametrization, selection,
records, expectations, SHOULD handling, xdist, and collection errors for bad vector files."""
import json
import shutil
import textwrap

import pytest

from fixtures.verdict.row import SCHEMA_VERSION

from .paths import ROOT, VECTORS

SUITE = """
import pytest
from fixtures.kinds import codec_checks as verify

@pytest.mark.vectors("ce-amqp", kind="encode")
def test_encode(vector, codec, registry):
    verify.run_encode(vector, codec, registry)

@pytest.mark.vectors("ce-amqp", kind="decode")
def test_decode(vector, codec, registry):
    verify.run_decode(vector, codec, registry)
"""


@pytest.fixture
def project(pytester, tmp_path):
    vdir = pytester.path / "v"
    (vdir / "clauses").mkdir(parents=True)
    shutil.copy(VECTORS / "clauses" / "ce-amqp.yaml", vdir / "clauses")
    shutil.copytree(VECTORS / "ce-amqp", vdir / "ce-amqp")
    pytester.makepyfile(test_suite=SUITE)
    pytester.makeini("[pytest]\naddopts = --strict-markers\n")
    return pytester


def run(pytester, *args):
    return pytester.runpytest_subprocess("-p", "fixtures.plugin", "--vectors-dir", "v", "--expectations", "none.yaml",
                                         "--results", "r.jsonl", *args)


def records(pytester):
    return [json.loads(x) for x in (pytester.path / "r.jsonl").read_text().splitlines()]


@pytest.fixture(autouse=True)
def _pythonpath(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))


def test_vector_ids_are_test_ids_and_every_case_gets_a_record(project):
    (project.path / "none.yaml").write_text("expectations: []\n")
    result = run(project, "--impl", "mqconform-reference", "-q")
    rows = records(project)
    assert rows and all(r["implementation"]["name"] == "mqconform-reference" for r in rows)
    ids = {r["test_id"].split("[", 1)[1][:-1] for r in rows}
    assert "ce-amqp.binary.prefer-underscore::mqconform-reference" in ids
    assert {r["spec_revision"] for r in rows} == {"1.0.3-wip"}
    assert len({r["run_id"] for r in rows}) == 1
    assert all(r["schema_version"] == SCHEMA_VERSION and r["tally"] is None for r in rows)   # a tally is a fault vector's only
    assert result.ret in (0, 1)


def test_selection_by_clause_and_level(project):
    (project.path / "none.yaml").write_text("expectations: []\n")
    run(project, "--impl", "mqconform-reference", "--clause", "ce-amqp/3.1.3.1/*", "--level", "SHOULD")
    rows = records(project)
    assert rows
    assert all(r["level"] == "SHOULD" and any(c.startswith("ce-amqp/3.1.3.1/") for c in r["clause_ids"]) for r in rows)


def test_expectations_turn_failures_into_xfail(project):
    (project.path / "none.yaml").write_text(textwrap.dedent("""\
        expectations:
          - implementation: cloudevents-sdk-python
            vector: "ce-amqp.*"
            reason: everything listed
          - implementation: mqconform-reference
            vector: ce-amqp.binary.prefer-underscore
            reason: listed although it passes
        """))
    run(project)
    rows = records(project)
    sdk = [r for r in rows if r["implementation"]["name"] == "cloudevents-sdk-python"]
    judged = [r for r in sdk if r["outcome"] != "error"]
    # a listed deviation turns failures into xfail and passes into xpass; an error (the SDK cannot be
    # given what a vector needs: expectations/cloudevents-sdk-python.yaml) is never made a failure
    assert judged and {r["outcome"] for r in judged} <= {"xfail", "xpass", "unsupported"}
    assert all(r["expected_outcome"] == "fail" for r in judged)
    assert all(r["error_kind"] == "adapter" for r in sdk if r["outcome"] == "error")
    ref = [r for r in rows if r["vector_id"] == "ce-amqp.binary.prefer-underscore" and r["implementation"]["name"] == "mqconform-reference"]
    assert ref[0]["outcome"] == "xpass"


def test_xdist_run_writes_one_record_per_case_from_the_controller(project):
    (project.path / "none.yaml").write_text("expectations: []\n")
    result = run(project, "-n", "2", "--impl", "mqconform-reference", "-q")
    rows = records(project)
    assert len(rows) == len({r["test_id"] for r in rows})
    assert len({r["run_id"] for r in rows}) == 1
    result.stdout.fnmatch_lines(["*result records*"])


def test_results_complete_marks_the_rows_complete_before_the_session_ends(project):
    """--results-complete: the marker exists as the controller's session finishes (before brokers
    are removed), and no row is written after it."""
    (project.path / "none.yaml").write_text("expectations: []\n")
    project.makeconftest(textwrap.dedent("""\
        import json, os, pytest

        @pytest.hookimpl(trylast=True)
        def pytest_sessionfinish(session):
            if not hasattr(session.config, "workerinput"):
                rows = sum(1 for _ in open("r.jsonl"))
                open("seen.json", "w").write(json.dumps({"marker": os.path.exists("done"), "rows": rows}))
        """))
    run(project, "-n", "2", "--impl", "mqconform-reference", "-q", "--results-complete", "done")
    seen = json.loads((project.path / "seen.json").read_text())
    assert seen == {"marker": True, "rows": len(records(project))} and seen["rows"] > 0


def test_malformed_vector_file_is_one_collection_error(project):
    (project.path / "none.yaml").write_text("expectations: []\n")
    bad = project.path / "v" / "ce-amqp" / "binary-mode.yaml"
    bad.write_text(bad.read_text().replace("    kind: encode\n", "    kind: [encode\n", 1))
    result = run(project)
    assert result.ret == 2
    result.stdout.fnmatch_lines(["*invalid vector set: v/ce-amqp/binary-mode.yaml:*malformed YAML*"])
    assert result.stdout.str().count("invalid vector set:") == 1


def test_unknown_clause_id_is_one_collection_error(project):
    (project.path / "none.yaml").write_text("expectations: []\n")
    f = project.path / "v" / "ce-amqp" / "structured-mode.yaml"
    f.write_text(f.read_text().replace("ce-amqp/3.2.3/binary-headers-in-structured]", "ce-amqp/3.2.3/no-such-clause]", 1))
    result = run(project)
    assert result.ret == 2
    result.stdout.fnmatch_lines(["*structured-mode.yaml:*vector 'ce-amqp.structured.*field vectors[[]*[]].clauses[[]*[]]: unknown clause id 'ce-amqp/3.2.3/no-such-clause'*"])


def test_unknown_clause_marker_is_rejected(project):
    (project.path / "none.yaml").write_text("expectations: []\n")
    project.makepyfile(test_marker="import pytest\n\n@pytest.mark.clause('ce-amqp/0/nope')\ndef test_x():\n    pass\n")
    result = run(project, "test_marker.py")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*unknown clause id 'ce-amqp/0/nope'*"])


UNJUDGED = """
import pytest
from fixtures.verdict.outcomes import PreconditionFailed, Step

@pytest.mark.vectors("ce-amqp", kind="encode")
def test_encode(vector, codec, registry):
    if vector.id == "ce-amqp.binary.prefer-underscore":
        raise PreconditionFailed("setup refused", step=Step("setup declare", "setup", (), 1))

@pytest.mark.vectors("ce-amqp", kind="decode")   # every vector file of a collected spec is collected
def test_decode(vector, codec, registry):
    pass
"""


def test_errors_carry_their_kind_and_only_a_not_judged_entry_accounts_for_them(project):
    """An `error` row names its kind and step and blames no clause; an `outcome: error` entry makes it expected
    (shown skipped), a deviation entry never does (it stays a failing test)."""
    project.makepyfile(test_suite=UNJUDGED)
    (project.path / "none.yaml").write_text(textwrap.dedent("""\
        expectations:
          - {implementation: mqconform-reference, vector: ce-amqp.binary.prefer-underscore, outcome: error,
             error_kind: precondition, reason: known not to be judged}
          - {implementation: cloudevents-sdk-python, vector: ce-amqp.binary.prefer-underscore, reason: a deviation}
        """))
    result = run(project, "-k", "prefer-underscore", "-rs")
    rows = {r["implementation"]["name"]: r for r in records(project)}
    ref, sdk = rows["mqconform-reference"], rows["cloudevents-sdk-python"]
    for r in (ref, sdk):
        assert (r["outcome"], r["error_kind"]) == ("error", "precondition")
        assert r["failed_step"] == {"index": 1, "action": "setup declare", "role": "setup", "clause_ids": []}
        assert set(r["clause_outcomes"].values()) == {"error"}
    assert ref["expected_outcome"] == "error" and sdk["expected_outcome"] == "pass"
    result.stdout.fnmatch_lines(["*not judged (listed in expectations): precondition: setup refused*"])
    assert result.ret == 1   # the SDK's error is not accounted for


NESTED = """
import pytest

def test_0_inner_session(tmp_path):
    (tmp_path / "test_x.py").write_text("def test_x():\\n    pass\\n")
    assert pytest.main(["-p", "no:cacheprovider", "-p", "fixtures.plugin", "--no-results", "-q", str(tmp_path)]) == 0
"""


def test_a_session_inside_the_session_leaves_its_records_alone(project):
    """State is per config: an in-process session run by a test (here with --no-results) does not take over
    the outer session's writer, which goes on writing every record."""
    (project.path / "none.yaml").write_text("expectations: []\n")
    project.makepyfile(test_0_nested=NESTED)
    result = run(project, "--impl", "mqconform-reference", "-q", "-p", "no:cacheprovider")
    rows = records(project)
    assert rows and len(rows) == len({r["test_id"] for r in rows})
    result.stdout.fnmatch_lines([f"mqconform: {len(rows)} result records -> r.jsonl*"])


def test_the_root_conftest_registers_what_p_fixtures_plugin_registers():
    import ast

    import fixtures.plugin

    tree = ast.parse((ROOT / "conftest.py").read_text())
    listed = next(ast.literal_eval(n.value) for n in tree.body
                  if isinstance(n, ast.Assign) and n.targets[0].id == "pytest_plugins")
    assert listed[:len(fixtures.plugin.pytest_plugins)] == fixtures.plugin.pytest_plugins


def test_codec_option_adds_a_process_codec_with_its_rows_named_and_provenanced(project):
    """--codec NAME=COMMAND: a codec run as a process for this run; its rows carry its name, the
    handshake's version and the shim command; a binding its handshake lacks would be not_applicable."""
    (project.path / "none.yaml").write_text("expectations: []\n")
    fake = ROOT / "tests" / "process" / "fake_codec.py"
    result = run(project, "--codec", f"fake-codec=python {fake} good", "--impl", "fake-codec", "-q")
    rows = records(project)
    assert rows and {r["implementation"]["name"] for r in rows} == {"fake-codec"}
    impl = rows[0]["implementation"]
    assert impl["version"] == "9.9" and impl["provenance"]["via"] == "process"
    assert impl["provenance"]["shim"].endswith("fake_codec.py good") and impl["provenance"]["library"] == "fake:1"
    assert "codec process protocol" in rows[0]["adapter"]
    (structured,) = [r for r in rows if r["vector_id"] == "ce-amqp.structured.encode-content-type"]
    assert structured["outcome"] == "not_applicable" and "offers ce-amqp in: binary" in structured["message"]
    assert result.ret in (0, 1)


def test_a_bad_codec_option_is_a_usage_error(project):
    (project.path / "none.yaml").write_text("expectations: []\n")
    result = run(project, "--codec", "no command")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--codec 'no command': NAME=COMMAND is expected*"])


def test_a_bad_shard_is_a_usage_error(project, monkeypatch):
    (project.path / "none.yaml").write_text("expectations: []\n")
    result = run(project, "--impl", "mqconform-reference", "--shard", "1/2")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--sharded-run ID*"])
    result = run(project, "--impl", "mqconform-reference", "--shard", "3/3", "--sharded-run", "x")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*1 unit(s) to share out (mqconform-reference), fewer than 3 shards*"])
    # under xdist a worker cannot refuse: it keeps nothing, the controller says why, nothing is run
    result = run(project, "-n", "2", "--impl", "mqconform-reference", "--shard", "1/3", "--sharded-run", "x")
    rows = project.path / "r.jsonl"
    assert result.ret == 5 and (not rows.exists() or not rows.read_text())
    result.stderr.fnmatch_lines(["*--shard 1/3: this selection has fewer units*than 3 shards*"])
    # the environment's id alone (a CI exporting it for every job) does not make a run a shard
    monkeypatch.setenv("MQCONFORM_SHARDED_RUN", "ci-9")
    result = run(project, "--impl", "mqconform-reference", "-q")
    assert result.ret in (0, 1)
