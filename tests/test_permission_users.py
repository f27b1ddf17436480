"""Users a behaviour vector makes for a permission clause (fixtures/kinds/made_users.py) and the
RabbitMQ management API part that makes them (fixtures/adapters/rabbitmq_management.py): the pure
parts, and the HTTP calls against a local stand-in. On a real broker: the address suites'
target-v2.queue-with(out)-amq-default-write-permission vectors."""
import functools
import http.server
import json
import re
import threading
from types import SimpleNamespace

import pytest
import yaml

from fixtures.adapters import footprint
from fixtures.adapters.base import Refused, TransportError
from fixtures.adapters.endpoint import Endpoint
from fixtures.adapters.parts import Permissions
from fixtures.adapters.rabbitmq_management import ManagementUsers, create_requests, management_base
from fixtures.kinds.made_users import NOTHING, MadeUsers, new_login, not_allowed, refusal_to_make, render_permissions
from fixtures.run.targets import Target
from fixtures.vectordata.vectors import VectorError, load_vectors
from fixtures.verdict.outcomes import NotApplicable

# ---- names, passwords, permissions ----------------------------------------------------------

def test_a_login_is_random_and_the_suites():
    logins = [new_login() for _ in range(50)]
    assert len({n for n, _ in logins}) == 50 and len({p for _, p in logins}) == 50
    for name, password in logins:
        assert footprint.ours(name) and name not in password and len(password) >= 24


def test_a_permission_left_out_grants_nothing():
    p = render_permissions({"write": "^amq\\.default$"}, {})
    assert p == Permissions(NOTHING, "^amq\\.default$", NOTHING)
    # "^$" matches no resource: the default exchange is checked under the name amq.default
    assert not re.search(p.configure, "amq.default") and not re.search(p.read, "mqc.a.q")


def test_names_and_literals_are_escaped_for_regexes():
    names = {"q": "mqc.ab12.orders+1"}
    p = render_permissions({"configure": "^{q|re}$", "write": "^{lit:amq.default|re}$", "read": ".*"}, names)
    assert re.fullmatch(p.configure, "mqc.ab12.orders+1") and not re.fullmatch(p.configure, "mqcXab12Xorders1")
    assert p.write == "^amq\\.default$" and not re.fullmatch(p.write, "amqXdefault")
    assert p.read == ".*"


def test_a_template_naming_no_name_is_refused():
    with pytest.raises(ValueError, match="'x', not in input.names"):
        render_permissions({"write": "^{x|re}$"}, {"q": "mqc.a.q"})


def test_everything_but_amq_default_is_what_the_refusal_half_writes():
    # the refusal half's user: write on every name but amq.default (RabbitMQ's regexes are PCRE, as Python's here)
    write = "^(?!amq\\.default$).*"
    assert not re.search(write, "amq.default")
    assert all(re.search(write, n) for n in ("mqc.a.q", "amq.direct", "amq.default2", ""))


# ---- who may make users ---------------------------------------------------------------------

def _broker(endpoint=None, allowed=False, product="rabbitmq", users=None):
    target = Target("t", ("amqp10",), product, "4.0.5", endpoint=endpoint, users_allowed=allowed)
    part = users or SimpleNamespace(unusable=lambda: None)
    return SimpleNamespace(target=target, product=product, shared={}, notes=[], users=lambda: part)


def test_users_are_made_on_catalog_targets_and_endpoints_that_allow_it():
    ep = Endpoint.parse("amqp://u@127.0.0.1:1")
    assert refusal_to_make(_broker()) is None
    assert refusal_to_make(_broker(ep, allowed=True)) is None
    with pytest.raises(NotApplicable, match="--allow-users"):
        not_allowed(_broker(ep))
    assert "cannot make users on garagemq" in refusal_to_make(_broker(product="garagemq"))


def test_an_endpoints_users_part_is_asked_once_before_any_user_and_the_run_is_told(api):
    """--allow-users with no management API (or a login that may not make users): the vectors are
    not_applicable saying why, no user is listed for removal, and the run says so once."""
    ep = Endpoint.parse("amqp://u@127.0.0.1:1")
    asked = []
    dead = ManagementUsers("http://127.0.0.1:1", Endpoint("h", 1, "admin", "admin"), "/")
    broker = _broker(ep, allowed=True, users=SimpleNamespace(unusable=lambda: asked.append(1) or dead.unusable()))
    why = refusal_to_make(broker)
    assert why.startswith("needs a user with chosen permissions; t is an endpoint whose users cannot be made: ")
    assert "no management API answered at http://127.0.0.1:1" in why
    assert refusal_to_make(broker) == why and asked == [1]
    assert broker.notes == [f"endpoint t: --allow-users: no user can be made there ({why.split('made: ', 1)[1]}); "
                            "the vectors that make users are not_applicable"]
    assert "lacks the administrator tag (tags: management)" in \
        ManagementUsers(api, Endpoint("h", 1, "admin", "admin"), "/").unusable()
    _Api.admin = True
    assert ManagementUsers(api, Endpoint("h", 1, "admin", "admin"), "/").unusable() is None
    assert "401" in ManagementUsers(api, Endpoint("h", 1, "vendor", "pw"), "/").unusable()


def test_a_made_users_name_never_shows_in_what_the_broker_said():
    made = MadeUsers(None, [])
    made.logins["denied"] = Endpoint("h", 1, "mqc.0afbc96f15.user", "pw")
    text = "write access to exchange 'amq.default' in vhost '/' refused for user 'mqc.0afbc96f15.user'"
    assert made.redact(text) == "write access to exchange 'amq.default' in vhost '/' refused for user '<user denied>'"


# ---- the management API --------------------------------------------------------------------

def test_the_calls_that_make_a_user_keep_the_password_in_the_body():
    calls = create_requests("/", "mqc.a.user", "s3cret/?", Permissions("^$", "^amq\\.default$", "^$"))
    assert [(m, p) for m, p, _ in calls] == [("PUT", "/api/users/mqc.a.user"), ("PUT", "/api/permissions/%2F/mqc.a.user")]
    assert calls[0][2] == {"password": "s3cret/?", "tags": ""}
    assert calls[1][2] == {"configure": "^$", "write": "^amq\\.default$", "read": "^$"}
    assert all("s3cret" not in p for _, p, _ in calls)


@pytest.mark.parametrize("url, base", [
    ("amqp://u@broker:5672", "http://broker:15672"),
    ("amqps://u@broker:5671", "https://broker:15671"),
    ("amqp://u@broker:5672?management=http://admin:8080/", "http://admin:8080"),
    ("amqp://u@broker:5672?management=none", None),
])
def test_where_an_endpoints_management_api_is(url, base):
    assert management_base(Endpoint.parse(url)) == base


class _Api(http.server.BaseHTTPRequestHandler):
    """A stand-in for RabbitMQ's management API: users in a dict, one login allowed."""
    users: dict = {}
    seen: list = []
    admin = False       # whether /api/whoami says the login holds the administrator tag

    def _answer(self, code, body=None):
        self.send_response(code)
        self.end_headers()
        if body is not None:
            self.wfile.write(json.dumps(body).encode())

    def _handle(self):
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        self.seen.append((self.command, self.path, body, self.headers.get("Authorization")))
        if self.headers.get("Authorization") != "Basic YWRtaW46YWRtaW4=":     # admin:admin
            return self._answer(401, {"error": "not_authorised", "reason": "Login failed"})
        parts = self.path.split("/")
        if self.command == "GET" and self.path == "/api/whoami":
            return self._answer(200, {"name": "admin", "tags": ["administrator"] if self.admin else ["management"]})
        if self.command == "GET" and self.path == "/api/users":
            return self._answer(200, [{"name": n} for n in self.users])
        if self.command == "PUT" and parts[2] == "users":
            self.users[parts[3]] = {}
            return self._answer(201)
        if self.command == "PUT" and parts[2] == "permissions":
            self.users[parts[4]] = body
            return self._answer(204)
        if self.command == "DELETE" and parts[2] == "users":
            return self._answer(204) if self.users.pop(parts[3], None) is not None else self._answer(404, {"reason": "Not Found"})
        return self._answer(400, {"reason": "unexpected"})

    do_GET = do_PUT = do_DELETE = _handle

    def log_message(self, *args):
        pass


@pytest.fixture
def api():
    _Api.users, _Api.seen, _Api.admin = {}, [], False
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_user_is_made_listed_and_removed(api):
    users = ManagementUsers(api, Endpoint("h", 1, "admin", "admin"), "/")
    users.create("mqc.a.user", "pw", Permissions("^$", "^amq\\.default$", "^$"))
    assert "mqc.a.user" in users.names()
    assert _Api.users["mqc.a.user"] == {"configure": "^$", "write": "^amq\\.default$", "read": "^$"}
    assert users.delete("mqc.a.user") is True and users.delete("mqc.a.user") is False
    assert users.names() == set()


def test_a_refused_login_is_a_refusal_naming_the_tag_it_needs(api):
    users = ManagementUsers(api, Endpoint("h", 1, "vendor", "secret-pw"), "/")
    with pytest.raises(Refused) as e:
        users.create("mqc.a.user", "the-users-pw", Permissions("^$", "^$", "^$"))
    assert e.value.error.condition == "401" and "administrator tag" in str(e.value)
    assert "secret-pw" not in str(e.value) and "the-users-pw" not in str(e.value)


def test_an_api_that_does_not_answer_is_a_transport_error():
    users = ManagementUsers("http://127.0.0.1:1", Endpoint("h", 1, "admin", "admin"), "/")
    with pytest.raises(TransportError, match="no management API answered"):
        users.names()


# ---- an endpoint's users are swept at the end ------------------------------------------------

def test_a_user_left_on_an_endpoint_is_removed_at_the_end_or_named():
    ep = Endpoint.parse("amqp://u@127.0.0.1:1?management=none")
    fp = footprint.register(ep, "mine")
    removed = []

    def fails():
        raise Refused("removing a user", SimpleNamespace(__str__=lambda s: "503"))
    try:
        fp.user_made("mqc.a.user", lambda: removed.append("mqc.a.user"))
        fp.user_made("mqc.b.user", lambda: removed.append("mqc.b.user"))
        fp.user_removed("mqc.b.user")                    # the vector removed it itself
        fp.user_made("mqc.c.user", lambda: (_ for _ in ()).throw(TransportError("no API")))
        line = fp.sweep()
    finally:
        footprint.forget(ep)
    assert removed == ["mqc.a.user"]
    assert "1 user(s) the suite made could not be removed" in line and "'mqc.c.user' (no API)" in line


# ---- the vector lint ------------------------------------------------------------------------

CLAUSES = """\
spec: lint
revision: "1"
title: t
source: s.md
clauses:
  - id: lint/a/perm
    section: a
    level: MUST
    quote: "The user needs write permission."
    readings:
      - {name: attach-refused, text: the attach is refused}
      - {name: transfer-refused, text: the transfer is refused}
"""


def _tree(tmp_path, steps, users):
    (tmp_path / "clauses").mkdir(parents=True)
    (tmp_path / "clauses" / "lint.yaml").write_text(CLAUSES)
    (tmp_path / "lint").mkdir()
    vector = {"id": "lint.t.one", "clauses": ["lint/a/perm"], "kind": "behaviour", "status": "stable",
              "description": "d", "input": {"protocol": "amqp10", "names": {"q": "q"}, "users": users},
              "expect": {"steps": steps}}
    (tmp_path / "lint" / "t.yaml").write_text(yaml.safe_dump({"spec": "lint", "topic": "t", "vectors": [vector]}))
    return tmp_path


def _refusal_steps(only_under=("transfer-refused",), user="denied"):
    return [{"connect_as": user},
            {"attach_sender": "/queues/{q|pct}", "judges": ["a/perm"], "expect": {"any_of": [
                {"is": {"refused": "any"}, "reading": "attach-refused"}, {"is": "attached", "reading": "transfer-refused"}]}},
            {"send": {"body": "m"}, "only_under": list(only_under), "judges": ["a/perm"],
             "expect": {"any_of": [{"is": {"outcome": "rejected"}, "reading": "transfer-refused"},
                                   {"is": {"refused": "any"}, "reading": "transfer-refused"}]}}]


def test_a_refusal_half_with_a_user_loads(tmp_path):
    (v,) = load_vectors(_tree(tmp_path, _refusal_steps(), {"denied": {"write": "^(?!amq\\.default$).*"}})).vectors
    assert v.input["users"]["denied"]["write"] == "^(?!amq\\.default$).*"


def test_only_under_names_a_reading_of_the_clauses_the_step_judges(tmp_path):
    with pytest.raises(VectorError, match="reading 'never' is not a reading"):
        load_vectors(_tree(tmp_path, _refusal_steps(only_under=("never",)), {"denied": {}}))


def test_a_step_connects_only_as_a_user_the_vector_makes(tmp_path):
    with pytest.raises(VectorError, match="connects as 'other', which input.users does not make"):
        load_vectors(_tree(tmp_path, _refusal_steps(user="other"), {"denied": {}}))


# ---- the runner: a made user goes whatever happens to the vector -----------------------------

class _Users:
    def __init__(self, refuse=False):
        self.made, self.removed, self.refuse = [], [], refuse

    def create(self, user, password, permissions):
        self.made.append(user)
        if self.refuse:
            raise Refused("making a user", SimpleNamespace(condition="401", scope="admin"))

    def delete(self, user):
        self.removed.append(user)
        return True


class _Topology:
    def __getattr__(self, name):          # declare_queue, delete_queue, delete_exchange, ...
        return lambda *a, **k: None


class _Adapter:
    """An AMQP 1.0 adapter whose attach is where Ctrl-C lands."""
    topology = _Topology()
    closed = False

    def __init__(self, interrupt=False):
        self.links = SimpleNamespace(sender=self._sender)
        self.interrupt = interrupt

    def _sender(self, address):
        if self.interrupt:
            raise KeyboardInterrupt
        return SimpleNamespace(detach_before_queue_delete=lambda: None)

    def close(self):
        self.closed = True


class _Broker:
    def __init__(self, users):
        self.target = Target("rabbitmq-4.0.5", ("amqp10", "amqp091"), "rabbitmq", "4.0.5")
        self.product, self.version, self.facts, self.container = "rabbitmq", "4.0.5", {}, None
        self._users, self.own, self.as_user = users, _Adapter(), _Adapter(interrupt=True)

    def adapter(self, protocol):
        return self.own

    def users(self):
        return self._users

    def endpoint(self, protocol):
        return Endpoint("127.0.0.1", 5672, "guest", "guest")

    def adapter_as(self, protocol, login):
        assert login.username in self._users.made and login.password != "guest"
        return self.as_user


@functools.cache
def _vector_set():
    from fixtures.plugin import ROOT
    return load_vectors(ROOT / "vectors")


def _vector(vector_id):
    vs = _vector_set()
    return next(v for v in vs.vectors if v.id == vector_id), vs.registry


def test_users_made_by_an_interrupted_vector_are_removed():
    from fixtures.kinds.amqp10_links import run_behaviour
    vector, registry = _vector("rabbitmq-address@4.0.target-v2.queue-without-amq-default-write-permission")
    broker = _Broker(_Users())
    with pytest.raises(KeyboardInterrupt):
        run_behaviour(vector, broker, registry)
    assert len(broker._users.made) == 2 and broker._users.removed == broker._users.made
    assert broker.as_user.closed


def test_a_user_the_broker_will_not_make_is_a_precondition_error_and_is_still_removed():
    from fixtures.kinds.amqp10_links import run_behaviour
    from fixtures.verdict.outcomes import PreconditionFailed
    vector, registry = _vector("rabbitmq-address@4.0.target-v2.queue-with-amq-default-write-permission")
    broker = _Broker(_Users(refuse=True))
    with pytest.raises(PreconditionFailed, match="input.users granted: the user could not be made"):
        run_behaviour(vector, broker, registry)
    assert broker._users.removed == broker._users.made     # a half-made user (permissions refused) goes too
