"""Loading vectors: the real tree loads; every kind of bad input gets one clear error naming file, line and field."""
import shutil
import textwrap

import pytest

from fixtures.vectordata.registry import RegistryError
from fixtures.vectordata.vectors import VectorError, load_vectors

from .paths import VECTORS

GOOD = """\
spec: ce-amqp
topic: tiny
vectors:
  - id: ce-amqp.tiny.one
    clauses: [ce-amqp/3.1.2/data-as-application-data]
    kind: encode
    status: stable
    description: d
    readings: [one-data-section, data-sections]
    input:
      mode: binary
      event: {attributes: {specversion: "1.0", id: a, source: /s, type: t}, data: {hex: "00"}}
    expect:
      message: {body: {hex: "00"}}
"""


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "clauses").mkdir()
    shutil.copy(VECTORS / "clauses" / "ce-amqp.yaml", tmp_path / "clauses")
    (tmp_path / "ce-amqp").mkdir()
    return tmp_path


def write(tree, text, name="tiny.yaml"):
    (tree / "ce-amqp" / name).write_text(textwrap.dedent(text))


def test_repository_vectors_load():
    vs = load_vectors(VECTORS)
    assert len(vs.vectors) > 50
    assert vs.digest.startswith("sha256:")
    assert len({v.id for v in vs.vectors}) == len(vs.vectors)


def test_good_file_loads_with_level_and_line(tree):
    write(tree, GOOD)
    (v,) = load_vectors(tree).vectors
    assert (v.id, v.level, v.line) == ("ce-amqp.tiny.one", "MUST", 4)


def test_malformed_yaml_names_file_and_line(tree):
    write(tree, GOOD.replace("    kind: encode", "    kind: [encode"))
    with pytest.raises(VectorError) as e:
        load_vectors(tree)
    assert "tiny.yaml:" in str(e.value) and "malformed YAML" in str(e.value)


def test_unknown_clause_id_names_vector_and_field(tree):
    write(tree, GOOD.replace("ce-amqp/3.1.2/data-as-application-data", "ce-amqp/9.9/no-such-clause"))
    with pytest.raises(VectorError) as e:
        load_vectors(tree)
    msg = str(e.value)
    assert "tiny.yaml:5:" in msg and "'ce-amqp.tiny.one'" in msg and "clauses[0]" in msg and "ce-amqp/9.9/no-such-clause" in msg


def test_schema_violation_names_field(tree):
    write(tree, GOOD.replace("status: stable", "status: maybe"))
    with pytest.raises(VectorError) as e:
        load_vectors(tree)
    assert "vectors[0].status" in str(e.value) and "'ce-amqp.tiny.one'" in str(e.value)


def test_bad_hex_payload_is_a_schema_error(tree):
    write(tree, GOOD.replace('message: {body: {hex: "00"}}', 'message: {body: {hex: "0g"}}'))
    with pytest.raises(VectorError, match=r"expect\.message\.body\.hex"):
        load_vectors(tree)


def test_duplicate_vector_id_across_files(tree):
    write(tree, GOOD)
    write(tree, GOOD.replace("topic: tiny", "topic: other"), "other.yaml")
    with pytest.raises(VectorError, match="duplicate vector id"):
        load_vectors(tree)


def test_clause_of_another_spec_is_refused(tree):
    shutil.copy(VECTORS / "clauses" / "ce-rabbitmq.yaml", tree / "clauses")
    write(tree, GOOD.replace("ce-amqp/3.1.2/data-as-application-data", "ce-rabbitmq/3.1.2/data-as-body"))
    with pytest.raises(VectorError, match="belongs to spec 'ce-rabbitmq'"):
        load_vectors(tree)


def test_bad_clause_file_is_named(tree):
    (tree / "clauses" / "ce-amqp.yaml").write_text("spec: ce-amqp\nrevision: x\ntitle: t\nsource: s\nclauses:\n  - id: ce-amqp/1/a\n    section: '1'\n    level: MUSTN'T\n    quote: q\n")
    with pytest.raises(RegistryError) as e:
        load_vectors(tree)
    assert "ce-amqp.yaml:8" in str(e.value) and "clauses[0].level" in str(e.value)


def test_the_digest_does_not_depend_on_where_the_tree_is(tmp_path):
    """A certificate names the vector set by its digest: two checkouts of one tree agree on it, and
    an edit of one byte changes it."""
    import shutil

    from fixtures.vectordata.vectors import load_vectors
    from tests.paths import VECTORS

    a, b = tmp_path / "one" / "vectors", tmp_path / "x" / "y" / "vectors"
    shutil.copytree(VECTORS, a)
    shutil.copytree(VECTORS, b)
    assert load_vectors(a).digest == load_vectors(b).digest == load_vectors(VECTORS).digest
    f = next(b.glob("clauses/*.yaml"))
    f.write_text(f.read_text() + "\n")
    assert load_vectors(b).digest != load_vectors(a).digest


def test_a_vector_file_no_test_collects_is_an_error():
    from types import SimpleNamespace

    from fixtures.plugin.collect import uncollected

    vs = load_vectors(VECTORS)
    # the suites' tests: one per kind of each spec, every file of the spec
    collected: dict[str, set[str]] = {}
    for v in vs.vectors:
        collected.setdefault(v.spec, set()).add(v.kind)
    assert uncollected(vs.vectors, collected) == []
    stray = SimpleNamespace(spec="ce-amqp", kind="behaviour", file="vectors/ce-amqp/new-topic.yaml")
    assert uncollected([*vs.vectors, stray], collected) == [
        "vectors/ce-amqp/new-topic.yaml: collected by no test (its kinds: behaviour; the tests of ce-amqp take: "
        "decode, encode)"]
    assert uncollected([stray], {"openmessaging": {"om-message"}}) == []   # ce-amqp's tests were not collected


def test_a_tree_read_again_in_a_process_is_its_current_content_each_caller_with_a_copy_of_its_own(tree):
    """load_vectors keeps a tree it read (by folder and content): a second call gives the same set, as a
    copy of its own; a changed file is read again; a file that cannot be read is named, as on a first read."""
    write(tree, GOOD)
    a, b = load_vectors(tree), load_vectors(tree)
    assert a.vectors == b.vectors and a.digest == b.digest and a.vectors[0].input is not b.vectors[0].input
    a.vectors[0].input["mode"] = "changed by a caller"
    assert load_vectors(tree).vectors[0].input["mode"] == "binary"
    write(tree, GOOD.replace("description: d", "description: edited"))
    c = load_vectors(tree)
    assert c.vectors[0].description == "edited" and c.digest != a.digest
    (tree / "ce-amqp" / "gone.yaml").symlink_to(tree / "nowhere.yaml")
    with pytest.raises(VectorError, match="gone.yaml: cannot read"):
        load_vectors(tree)
