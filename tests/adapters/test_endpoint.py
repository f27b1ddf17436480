"""--endpoint parsing, masking and option checks (pure)."""
import pytest

from fixtures.adapters.endpoint import OPTIONS, Endpoint, EndpointError, parse_option, split
from fixtures.vectordata.facts import FACT_VALUES

# A password made of distinctive pieces joined by the characters that broke the old redaction:
# no piece may ever show, whole or in part, whatever the shape of the URL around it.
PIECES = ("Zq7", "Kx9", "Wm3", "Rt5", "Pv8", "Hy4")
RAW = "Zq7/Kx9#Wm3?Rt5@Pv8%Hy4é"                       # as a user might paste it
ENC = "Zq7%2FKx9%23Wm3%3FRt5%40Pv8%25Hy4%C3%A9"        # percent-encoded, as a URL wants it

# (option text, what the message must say). 30+ shapes: malformed, hostile, and valid-but-wrong.
HOSTILE = [
    (f"mine=vendor:{ENC}@host:5672", "no scheme"),
    (f"mine=amqp:/vendor:{ENC}@host:5672", "followed by '//'"),
    (f"mine=amqp:vendor:{ENC}@host:5672", "followed by '//'"),
    (f"mine=amqp:///vendor:{ENC}@host:5672", "followed by '//'"),
    (f"mine=amqp://vendor:{RAW}@host:5672", "percent-encoded"),
    ("mine=amqp://vendor:Zq7/Kx9@host:5672", "percent-encoded"),
    ("mine=amqp://vendor:Zq7#Kx9@host:5672", "percent-encoded"),
    ("mine=amqp://vendor:Zq7?Kx9@host:5672", "percent-encoded"),
    ("mine=amqp://vendor:Zq7@Kx9@host:5672", "percent-encoded"),
    ("mine=amqp://vendor:Zq7%Kx9@host:5672", "percent-encoded"),
    ("mine=amqp://vendor:Zq7%4@host:5672", "percent-encoded"),
    (f"mine=amqp://vendor:{ENC}", "port must be a number"),
    (f"mine=amqp://vendor:{ENC}/vhost", "port must be a number"),
    ("mine=amqp://vendor:Zq7Kx9?protocols=amqp10", "port must be a number"),
    (f"mine=amqp://vendor:{ENC}@", "no host"),
    (f"mine=amqp://vendor:{ENC}@:5672", "no host"),
    (f"mine=amqp://vendor:{ENC}@host:notaport", "port must be a number"),
    (f"mine=amqp://vendor:{ENC}@host:99999", "port must be a number"),
    (f"mine=amqp://vendor:{ENC}@ho st:5672", "not a host name"),
    (f"mine=http://vendor:{ENC}@host:5672", "scheme must be amqp"),
    (f"mine=amqp+ssl://vendor:{ENC}@host:5672", "scheme must be amqp"),
    (f"mine=amqp://vendor:{ENC}@host:5672#frag", "no '#' part"),
    (f"mine=amqp://vendor:{ENC}@host:5672?protocol=amqp10", "did you mean 'protocols'"),
    (f"mine=amqp://vendor:{ENC}@host:5672?amqp_adress_v1=denied", "did you mean 'amqp_address_v1'"),
    (f"mine=amqp://vendor:{ENC}@host:5672?amqp_address_v1=denyed", "is not one of permitted, denied"),
    (f"mine=amqp://vendor:{ENC}@host:5672?protocols=amqp11", "unknown protocol"),
    (f"mine=amqp://vendor:{ENC}@host:5672?protocols=amqp10&protocols=amqp091", "given twice"),
    (f"mine=amqp://vendor:{ENC}@host:5672?product=", "needs a value"),
    (f"mine=amqp://vendor:{ENC}@host:5672?verify=0", "only amqps"),
    (f"mine=amqp://vendor:{ENC}@host:5672?amqp10_queue=/queues/x", "must contain {queue}"),
    (f"mine=amqp://vendor:{ENC}@host:5672?amqp10_topic=topic://x", "must contain {topic}"),
    (f"mine=amqp://vendor:{ENC}@host:5672?management=http://vendor:{ENC}@host:15672", "percent-encoded"),
    (f"mine=amqp://vendor:{ENC}@host:5672/v%zz", "vhost is not valid"),
    (f"vendor:{ENC}@host:5672", "NAME=amqp"),
    (f"amqp://vendor:{ENC}@host:5672", "NAME=amqp"),
    ("amqp://vendor:Zq7=Kx9@host:5672", "NAME=amqp"),
    (f"bad name=amqp://vendor:{ENC}@host", "letters, digits"),
    (f"mine=amqp://vendor:{ENC}@host\n:5672", "not a host name"),
    (f" mine=amqp://vendor:{ENC}@host", "NAME=amqp"),
]


def _leaks(text: str) -> list[str]:
    return [p for p in (*PIECES, RAW, ENC, "Zq7Kx9", "Zq7=Kx9") if p in text]


def test_there_are_enough_hostile_shapes():
    assert len(HOSTILE) >= 30


@pytest.mark.parametrize("text, needle", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_endpoints_are_refused_saying_why_and_never_the_password(text, needle):
    with pytest.raises(EndpointError) as exc:
        parse_option(text)
    message = str(exc.value)
    assert needle in message, message
    assert _leaks(message) == [], message
    assert "***" in message or "NAME=" in message or needle in ("no scheme",), message


@pytest.mark.parametrize("text", [t for t, _ in HOSTILE])
def test_any_text_split_and_masked_hides_the_password(text):
    assert _leaks(split(text).masked()) == []


def test_parse_full_url():
    ep = Endpoint.parse("amqps://alice:s3cr%40t@broker.example:5671/prod%2Fvh?protocols=amqp10&verify=0")
    assert (ep.host, ep.port, ep.username, ep.password, ep.vhost, ep.tls, ep.verify_tls) == (
        "broker.example", 5671, "alice", "s3cr@t", "prod/vh", True, False)
    assert ep.option("protocols") == "amqp10"
    assert ep.options == (("protocols", "amqp10"),)      # verify is not kept as an option
    assert ep.password_source == "the URL"


def test_percent_encoded_hostile_password_is_decoded_and_never_rendered():
    ep = Endpoint.parse(f"amqp://vendor:{ENC}@[::1]:5672/vh?amqp_address_v1=denied")
    assert ep.password == "Zq7/Kx9#Wm3?Rt5@Pv8%Hy4é" and ep.host == "::1"
    assert ep.redacted() == "amqp://vendor:***@[::1]:5672/vh"
    assert _leaks(repr(ep) + ep.redacted()) == []


def test_defaults():
    ep = Endpoint.parse("amqp://h")
    assert (ep.port, ep.vhost, ep.tls, ep.username, ep.password) == (5672, "/", False, None, None)
    assert Endpoint.parse("amqps://h").port == 5671
    assert Endpoint.parse("AMQP://h").tls is False


def test_password_never_rendered():
    ep = Endpoint.parse("amqp://bob:hunter2@h:5672")
    assert "hunter2" not in repr(ep)
    assert "hunter2" not in ep.redacted()
    assert ep.redacted() == "amqp://bob:***@h:5672"


def test_every_option_is_known_and_checked():
    assert set(FACT_VALUES) <= set(OPTIONS)
    ep = Endpoint.parse("amqp://h?protocols=amqp10,amqp091&product=rabbitmq&amqp_address_v1=denied"
                        "&amqp10_queue=/queues/{queue_pct}&management=none&amqp10_auto_create=true"
                        "&amqp10_topic=topic://{topic}")
    assert dict(ep.options)["amqp_address_v1"] == "denied"
    with pytest.raises(EndpointError, match="known options: protocols, product"):
        Endpoint.parse("amqp://h?nosuch=1")


@pytest.mark.parametrize("text, needle", [
    ("mine", "NAME=amqp"),
    ("=amqp://h", "NAME=amqp"),
    ("bad name=amqp://h", "letters, digits"),
    ("x=http://u:pw@h", "scheme must be amqp"),
    ("x=amqp://u:pw@h:notaport", "port must be a number"),
])
def test_bad_endpoint_options_say_why_without_the_password(text, needle):
    with pytest.raises(EndpointError) as exc:
        parse_option(text)
    assert needle in str(exc.value)
    assert ":pw@" not in str(exc.value)
