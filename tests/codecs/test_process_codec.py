"""ProcessCodec: the Codec protocol over a codec process (tests/process/fake_codec.py stands in for
a shim), and the registry of process codecs (process_codecs.yaml, --codec)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fixtures.codecs import registry
from fixtures.codecs.base import Unsupported
from fixtures.codecs.model import AmqpBody, AmqpMessage, Attr, Event, Typed
from fixtures.codecs.process_codec import CodecCrashed, CodecRejected, ProcessCodec, ProcessCodecSpec, close_all
from fixtures.kinds import codec_checks as verify
from fixtures.vectordata.vectors import load_vectors
from fixtures.verdict.outcomes import AdapterLimitation, NotApplicable, PreconditionFailed
from fixtures.verdict.verdicts import decide
from tests.paths import VECTORS

FAKE = str(Path(__file__).resolve().parents[1] / "process" / "fake_codec.py")
EVENT = Event({"specversion": Attr("string", "1.0"), "id": Attr("string", "A1"), "source": Attr("uri-reference", "/s"),
               "type": Attr("string", "t")}, b"x")
MESSAGE = AmqpMessage(application_properties={"cloudEvents_id": Typed("string", "A1")}, body=AmqpBody.of_bytes(b"x"))


@pytest.fixture(autouse=True)
def _end_processes():
    yield
    close_all()


def codec(mode: str, binding: str = "ce-amqp", name: str = "fake-codec", **kw) -> ProcessCodec:
    spec = ProcessCodecSpec(name=name, source="test", command=(sys.executable, FAKE, mode), **kw)
    return ProcessCodec(spec, binding)


def test_encode_and_decode_through_the_process_and_the_row_identity():
    c = codec("good")
    assert c.info.version == "unknown"          # before the handshake: the registered name only
    msg = c.encode(EVENT, "binary")
    assert msg.properties == {"content-type": "text/plain"} and msg.body == AmqpBody.of_bytes(b"x")
    assert msg.application_properties == {"cloudEvents_id": Typed("string", "A1")}
    event = c.decode(MESSAGE)
    assert event.attributes["id"] == Attr("string", "A1") and event.data == b"x"
    assert c.info.name == "fake-codec" and c.info.version == "9.9"
    prov = c.info.provenance
    assert prov["via"] == "process" and prov["protocol_version"] == "1" and prov["library"] == "fake:1"
    assert prov["implementation_version"] == "9.9" and "fake_codec.py good" in prov["shim"]
    assert "codec process protocol" in c.adapter


def test_a_binding_not_offered_is_not_applicable_with_the_handshakes_list():
    with pytest.raises(NotApplicable, match=r"does not offer ce-rocketmq \(its handshake lists: ce-amqp\)"):
        codec("good", "ce-rocketmq").decode(MESSAGE)


def test_a_binding_the_registration_expects_but_the_handshake_lacks_is_an_error():
    with pytest.raises(PreconditionFailed, match="registered .* to offer ce-rabbitmq, but its handshake lists: ce-amqp"):
        codec("good", "ce-rabbitmq", bindings=("ce-amqp", "ce-rabbitmq")).encode(EVENT, "binary")


def test_a_mode_not_offered_is_unsupported():
    with pytest.raises(Unsupported, match="'structured'.*offers ce-amqp in: binary"):
        codec("good").encode(EVENT, "structured")


def test_a_name_other_than_the_registered_one_is_an_error():
    with pytest.raises(PreconditionFailed, match="registered as 'fake-codec' .* names itself 'other'"):
        codec("name=other").encode(EVENT, "binary")


def test_rejected_is_the_codecs_refusal_not_expressible_an_adapter_error():
    with pytest.raises(CodecRejected, match="no id, no event"):
        codec("reject").decode(MESSAGE)
    assert codec("reject").refusals == (CodecRejected,)
    with pytest.raises(AdapterLimitation, match="shim cannot express .*no builder for binary extensions"):
        codec("inexpress").encode(EVENT, "binary")


def test_an_unrepresentable_event_is_an_adapter_error_and_never_reaches_the_shim():
    bad = Event({**EVENT.attributes, "n": Attr("integer", "5")}, None)
    with pytest.raises(AdapterLimitation, match="JSON forms cannot carry the event: event.attributes.n"):
        codec("good").encode(bad, "binary")


@pytest.fixture(scope="module")
def vs():
    return load_vectors(VECTORS)


def row(vs, c, vector_id="ce-amqp.binary.datacontenttype-to-content-type"):
    vector = next(v for v in vs.vectors if v.id == vector_id)
    try:
        verify.run_encode(vector, c, vs.registry)
        exc = None
    except Exception as e:  # noqa: BLE001
        exc = e
    return decide(vector, vs.registry, exc)


def test_an_error_result_fails_the_vector_as_a_crash_of_the_reported_type(vs):
    v = row(vs, codec("error"))
    assert v.outcome == "fail" and "crashed: java.lang.IllegalStateException: boom" in v.message


def test_a_malformed_result_is_garbage_naming_the_field(vs):
    v = row(vs, codec("badform"))
    assert v.outcome == "fail"
    assert "crashed: Garbage: encode result: message.properties.creation-time.timestamp: timestamp must be" in v.message
    with pytest.raises(CodecCrashed, match="decode result: event.attributes.time.timestamp: .*got 12"):
        codec("badform").decode(MESSAGE)


def test_a_process_that_exits_fails_the_vector_naming_the_request_and_is_restarted(vs):
    c = codec("crash")
    v = row(vs, c)
    assert v.outcome == "fail" and "crashed: Exited: the codec's process failed during encode of" in v.message
    assert '"mode":"binary"' in v.message and "exit status 4" in v.message
    assert c.take_notes() == []
    row(vs, c)   # the next vector starts a new process, and its row says so
    notes = c.take_notes()
    assert len(notes) == 1 and "a new one was started for this vector" in notes[0]


def test_a_hang_is_bounded_and_fails_the_vector(vs):
    v = row(vs, codec("hang", request_s=0.5))
    assert v.outcome == "fail" and "crashed: Hung:" in v.message and "within 0.5 s" in v.message


def test_a_failed_start_is_an_error_for_every_vector_and_not_retried(vs):
    c = codec("nohello", handshake_s=5)
    first = row(vs, c)
    assert (first.outcome, first.error_kind) == ("error", "precondition") and "did not start" in first.message
    session = c._session
    assert session.proc is None and session.start_failure
    assert row(vs, c).message == first.message


def test_a_handshake_offering_an_unknown_mode_is_a_failed_start():
    with pytest.raises(PreconditionFailed, match="offers.bindings.ce-amqp.modes: unknown content mode 'streaming'"):
        codec("badoffer").encode(EVENT, "binary")


# ---- the registry

def test_the_declared_process_codecs_and_the_run():
    specs = registry.load_process_codecs()
    assert [s.name for s in specs] == ["cloudevents-sdk-python", "cloudevents-sdk-java", "cloudevents-sdk-go"]
    assert specs[0].bindings == ("ce-amqp", "ce-rabbitmq")
    assert specs[1].bindings == ("ce-amqp",)
    assert (specs[2].bindings, specs[2].go_shim, specs[2].command) == (("ce-amqp",), {"dir": "shims/cloudevents-go"}, ())
    assert specs[2].shown_command() == "shims/cloudevents-go (Go shim, go build)"
    names = {b: [c.info.name for c in registry.run_codecs(b)] for b in registry.BINDINGS}
    # One row per implementation and vector: each SDK runs through its shim only, over every binding
    # (its handshake makes a binding it does not offer not_applicable).
    assert names == {b: ["mqconform-reference", "cloudevents-sdk-python", "cloudevents-sdk-java", "cloudevents-sdk-go"]
                     for b in registry.BINDINGS}
    assert [c.info.provenance.get("via") for c in registry.run_codecs("ce-amqp")] == [None, "process", "process", "process"]


def test_codec_option_adds_or_replaces_a_process_codec():
    specs = registry.process_codec_specs(["my-sdk=java -jar 'my shim.jar' --x", "cloudevents-sdk-python=python other.py"])
    # the declared Java and Go SDKs stay as declared; the option replaces the Python one and adds its own
    assert [s.name for s in specs if s.source != "--codec"] == ["cloudevents-sdk-java", "cloudevents-sdk-go"]
    assert [(s.name, s.command, s.source) for s in specs if s.source == "--codec"] == [
        ("cloudevents-sdk-python", ("python", "other.py"), "--codec"),
        ("my-sdk", ("java", "-jar", "my shim.jar", "--x"), "--codec")]


@pytest.mark.parametrize("option, problem", [
    ("nocommand", "NAME=COMMAND is expected"),
    ("=cmd", "NAME=COMMAND is expected"),
    ("x=", "the command is empty"),
    ("x='unclosed", "the command cannot be split"),
    ("mqconform-reference=python x.py", "is the name of an in-process codec"),
])
def test_codec_option_errors(option, problem):
    with pytest.raises(registry.CodecRegistryError, match=problem):
        registry.process_codec_specs([option])


def test_two_codec_options_of_one_name_are_an_error():
    with pytest.raises(registry.CodecRegistryError, match="declared twice"):
        registry.process_codec_specs(["a=x", "a=y"])


@pytest.mark.parametrize("text, problem", [
    ("codecs: [{name: x}]", r"codecs\[0\]: exactly one of `command`"),
    ("codecs: [{name: x, command: python}]", r"codecs\[0\]\.command: a non-empty list"),
    ("codecs: [{name: 'a b', command: [x]}]", r"codecs\[0\]\.name: a name of letters"),
    ("codecs: [{name: x, command: [x], bindings: [ce-kafka]}]", r"codecs\[0\]\.bindings: a list of"),
    ("codecs: [{name: x, command: [x], request_s: 0}]", r"codecs\[0\]\.request_s: a positive number"),
    ("codecs: [{name: x, command: [x], shim: {}}]", r"codecs\[0\]: unknown field 'shim'"),
    ("codecs: [{name: x, java_shim: {dir: d}}]", r"codecs\[0\]\.java_shim: \{dir, main"),
    ("codecs: [{name: x, go_shim: {dir: d, main: m}}]", r"codecs\[0\]\.go_shim: \{dir\} \(the Go module's directory\)"),
    ("codecs: [{name: x, go_shim: d}]", r"codecs\[0\]\.go_shim: \{dir\}"),
    ("codecs: [{name: x, command: [x], go_shim: {dir: d}}]", r"codecs\[0\]: exactly one of `command`.*`go_shim`"),
    ("codecs: [{name: x, command: [x]}, {name: x, command: [y]}]", r"codecs\[1\]: the name 'x' is declared twice"),
    ("other: []", "a mapping with one key, `codecs`"),
    ("codecs: [x", "cannot be read"),
])
def test_process_codecs_yaml_errors_name_the_file_and_field(tmp_path, text, problem):
    f = tmp_path / "process_codecs.yaml"
    f.write_text(text)
    with pytest.raises(registry.CodecRegistryError, match=problem) as err:
        registry.load_process_codecs(f)
    assert str(err.value).startswith("process_codecs.yaml")


def test_the_python_shim_is_standalone():
    """The template (its folder) imports the SDK, the standard library, python-qpid-proton and its own
    files only, never mqconform."""
    import ast
    folder = Path(__file__).resolve().parents[2] / "shims" / "cloudevents-python"
    own = {p.stem for p in folder.glob("*.py")}
    roots = set()
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                roots.add((node.module or "").split(".")[0])
    assert roots - sys.stdlib_module_names - own == {"cloudevents", "proton"}
