"""--endpoint parsing and redaction (pure)."""
import pytest

from fixtures.adapters.endpoint import Endpoint, EndpointError, parse_option


def test_parse_full_url():
    ep = Endpoint.parse("amqps://alice:s3cr%40t@broker.example:5671/prod%2Fvh?protocols=amqp10&verify=0")
    assert (ep.host, ep.port, ep.username, ep.password, ep.vhost, ep.tls, ep.verify_tls) == (
        "broker.example", 5671, "alice", "s3cr@t", "prod/vh", True, False)
    assert ep.option("protocols") == "amqp10"


def test_defaults():
    ep = Endpoint.parse("amqp://h")
    assert (ep.port, ep.vhost, ep.tls, ep.username) == (5672, "/", False, None)
    assert Endpoint.parse("amqps://h").port == 5671


def test_password_never_rendered():
    ep = Endpoint.parse("amqp://bob:hunter2@h:5672")
    assert "hunter2" not in repr(ep)
    assert "hunter2" not in ep.redacted()
    assert ep.redacted() == "amqp://bob:***@h:5672"


@pytest.mark.parametrize("text, needle", [
    ("mine", "NAME=amqp"),
    ("=amqp://h", "NAME=amqp"),
    ("bad name=amqp://h", "letters, digits"),
    ("x=http://u:pw@h", "scheme must be amqp"),
    ("x=amqp://u:pw@h:notaport", "not an amqp"),
])
def test_bad_endpoint_options_say_why_without_the_password(text, needle):
    with pytest.raises(EndpointError) as exc:
        parse_option(text)
    assert needle in str(exc.value)
    assert ":pw@" not in str(exc.value)
