"""A tiny codec process for the tests of fixtures/codecs/process_codec.py: behaves as argv[1] says.

good        ce-amqp binary only; encode answers a fixed message, decode a fixed event
name=N      as good, naming itself N in the handshake
reject      refuses every encode / decode `rejected`
inexpress   refuses every encode / decode `not-expressible`
error       answers every encode / decode `error` (type java.lang.IllegalStateException)
crash       exits with status 4 on the first encode / decode
hang        never answers an encode / decode
badform     answers encode with a message whose creation-time is a string, decode with a bad time
badoffer    offers ce-amqp in mode "streaming"
nohello     exits before answering hello
"""
import json
import sys

mode = sys.argv[1]
name = mode.split("=", 1)[1] if mode.startswith("name=") else "fake-codec"


def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


MESSAGE = {"protocol": "amqp10", "properties": {"content-type": {"symbol": "text/plain"}},
           "application_properties": {"cloudEvents_id": {"string": "A1"}}, "body": {"data": ["eA=="]}}
EVENT = {"attributes": {"specversion": {"string": "1.0"}, "id": {"string": "A1"}}, "data": "eA=="}

for line in sys.stdin:
    req = json.loads(line)
    rid, op = req["id"], req["op"]
    if op == "hello":
        if mode == "nohello":
            sys.exit(2)
        modes = ["streaming"] if mode == "badoffer" else ["binary"]
        out({"id": rid, "status": "ok", "result": {
            "protocol": "mqconform-process", "version": 1, "role": "cloudevents-codec",
            "implementation": {"name": name, "version": "9.9"}, "library": "fake:1",
            "offers": {"operations": ["encode", "decode"], "bindings": {"ce-amqp": {"modes": modes, "formats": ["json"]}}}}})
        continue
    sys.stderr.write(f"fake codec: {mode} got {op}\n")
    sys.stderr.flush()
    if mode == "crash":
        sys.exit(4)
    if mode == "hang":
        continue
    if mode == "reject":
        out({"id": rid, "status": "refused", "code": "rejected", "reason": "no id, no event"})
    elif mode == "inexpress":
        out({"id": rid, "status": "refused", "code": "not-expressible", "reason": "no builder for binary extensions"})
    elif mode == "error":
        out({"id": rid, "status": "error", "error": {"type": "java.lang.IllegalStateException", "message": "boom"}})
    elif mode == "badform":
        result = ({"message": {**MESSAGE, "properties": {"creation-time": {"timestamp": "now"}}}} if op == "encode"
                  else {"event": {"attributes": {"time": {"timestamp": 12}}}, "mode": "binary"})
        out({"id": rid, "status": "ok", "result": result})
    elif op == "encode":
        out({"id": rid, "status": "ok", "result": {"message": MESSAGE, "echo": req["params"]}})
    else:
        out({"id": rid, "status": "ok", "result": {"event": EVENT, "mode": "binary"}})
