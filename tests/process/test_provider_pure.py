"""The provider binding's pure parts: providers.yaml is checked, the provider's mapping keeps the
base mapping's constraints with the provider's own fields, a header the API cannot express is an
adapter limitation, and a received message is read with who set each header."""
import re

import pytest

from fixtures.openmessaging.mapping import NoNativeField, default_mapping
from fixtures.openmessaging.model import OMMessage, OMValue
from fixtures.openmessaging.process_binding import ProviderBinding, provider_mapping
from fixtures.process import providers
from fixtures.verdict.outcomes import Unsupported


@pytest.fixture(scope="module")
def pv():
    return next(p for p in providers.load() if p.name == "rocketmq-openmessaging")


def test_declared_provider(pv, monkeypatch):
    assert pv.row_name("rocketmq-5.5.0") == "rocketmq-openmessaging-5.5.0@rocketmq-5.5.0"
    assert pv.runs_on("rocketmq-5.5.0")
    monkeypatch.delenv(providers.DEV_ENV, raising=False)
    assert not pv.runs_on("rocketmq-5.3.3")
    monkeypatch.setenv(providers.DEV_ENV, "1")
    assert pv.runs_on("rocketmq-5.3.3")


def test_a_providers_regroup_is_read_and_a_bad_one_named(pv, tmp_path):
    """`regroup` (how long its consumers may wait for their queues after a broker comes back) is read
    with its reason; one without a reason, or with another field, is refused naming the field."""
    assert pv.regroup_s >= 150 and "120 s" in pv.regroup_why
    text = providers.PATH.read_text(encoding="utf-8")
    for bad in ("    regroup: {s: 160}\n", "    regroup: {s: 0, why: x}\n", "    regroup: {s: 9, why: x, y: 1}\n"):
        f = tmp_path / "providers.yaml"
        f.write_text(re.sub(r"    regroup:\n( {6}.*\n)+", bad, text, count=1), encoding="utf-8")
        with pytest.raises(providers.ProvidersError, match=r"providers\[0\]: regroup: needs s"):
            providers.load(f)


def test_identity_is_the_providers(pv):
    class T:
        name, product, version = "rocketmq-5.5.0", "rocketmq", "5.5.0"
    ident = pv.identity(T())
    assert (ident["kind"], ident["role"], ident["version"]) == ("provider", "product", "5.5.0")
    prov = ident["provenance"]
    assert prov["maven"] == "org.apache.rocketmq:rocketmq-openmessaging:5.5.0"
    assert (prov["broker"], prov["broker_product"], prov["broker_version"], prov["protocol"]) == \
        ("rocketmq-5.5.0", "rocketmq", "5.5.0", "rocketmq-remoting")


def test_every_header_of_the_base_mapping_has_a_provider_field(pv):
    base = default_mapping()
    m = provider_mapping(pv, base)
    for h in base.headers:
        fm = m.header(h, pv.key)
        assert fm.constraint == base.constraints.get(h) and fm.responsible == base.responsibles.get(h)
    assert m.header("messageId", pv.key).set_by == "provider"
    assert m.header("storeHost", pv.key).set_by == "broker"
    # What the provider's own API has no way to express is the product's lack, never our adapter's:
    # an OPTIONAL header is not offered, a REQUIRED part (the version) fails, a type it cannot hold fails.
    corr = m.header("correlationId", pv.key)
    assert isinstance(corr.missing(corr.support("rocketmq"), "rocketmq"), Unsupported)
    version = m.feature("version", pv.key)
    assert isinstance(version.missing(version.support("rocketmq"), "rocketmq"), NoNativeField)
    assert not m.feature("settled-delivery", pv.key).adapter_limit
    assert not m.property_type("Binary", pv.key).adapter_limit
    # A header the text asks the provider to act on is earned by behaviour, as for every provider.
    assert m.header("priority", pv.key).honoured_by is not None
    assert m.property_type("Integer", pv.key).native == ("int",)


def test_provider_values_are_credited(pv):
    m = provider_mapping(pv)
    # The product provider's row: its own value counts, one mqconform's code wrote beside it never does.
    assert ProviderBinding.provider_role == "product"
    assert m.header("messageId", pv.key).credited("provider", "product")
    assert not m.header("messageId", pv.key).credited("mapping", "product")


def _binding(pv):
    b = ProviderBinding.__new__(ProviderBinding)     # no process: encode and decode only
    b.pv, b.protocol, b.mapping, b.product = pv, pv.key, provider_mapping(pv), "rocketmq"
    return b


def test_encode_maps_headers_to_api_keys(pv):
    b = _binding(pv)

    class D:
        topic = "t1"
    om = OMMessage(headers={"priority": 7, "delayTime": 3000}, properties={"n": OMValue("Integer", 5)}, body=b"x")
    out = b.encode(om, D(), now=1_000_000)
    assert out["destination"] == "t1" and out["body_b64"] == "eA=="
    assert out["sys_headers"]["PRIORITY"] == {"type": "int", "value": 7}
    assert out["sys_headers"]["START_TIME"] == {"type": "long", "value": 1_003_000}   # a point in time
    assert out["user_headers"]["n"] == {"type": "int", "value": 5}
    with pytest.raises(Unsupported):         # OPTIONAL, and the provider's API has no key for it
        b.encode(OMMessage(headers={"correlationId": "c"}), D())
    with pytest.raises(NoNativeField):       # a type of the text the provider's KeyValue cannot hold
        b.encode(OMMessage(properties={"b": OMValue("Binary", b"\x00")}), D())


def test_decode_reads_api_keys_and_who_set_them(pv):
    b = _binding(pv)
    om, meta = b.decode({"sys_headers": {"MESSAGE_ID": "AB", "DESTINATION": "t1", "BORN_TIMESTAMP": "1700000000000",
                                         "STORE_HOST": "/10.88.0.5:10911", "SEARCH_KEYS": "null"},
                         "user_headers": {"a": "5", "UNIQ_KEY": "AB"}, "body_b64": "aGk="})
    assert om.headers["messageId"] == "AB" and om.headers["topic"] == om.headers["queue"] == "t1"
    assert om.headers["bornTimestamp"] == 1700000000000
    assert om.headers["searchKey"] == "null"           # the provider's own text, judged as it is
    assert meta["set_by"]["bornTimestamp"] == "provider" and meta["set_by"]["storeHost"] == "broker"
    assert om.properties["UNIQ_KEY"] == OMValue("String", "AB")   # what the provider hands over, unfiltered
    assert om.body == b"hi"
    assert b.property_as_sent(OMValue("String", "5"), OMValue("Integer", 5)) == OMValue("Integer", 5)
