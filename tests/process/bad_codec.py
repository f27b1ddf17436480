"""A codec shim (role cloudevents-codec) that misbehaves as argv[1] says, for the tests of
codec-check and `certify --codec`.

    bad_codec.py MODE [--once FILE]                 its own tiny codec (ce-amqp, binary only; enough for codec-check)
    bad_codec.py MODE [--once FILE] COMMAND...      a proxy in front of a good shim COMMAND, misbehaving on top of it

--once FILE: a mid-run misbehaviour (hang, crash-on-encode, exit-mid-run, garbage-mid-run) happens
once across processes: only while FILE does not exist, and FILE is made when it happens (the
processes started after it behave).

MODE:
  good             behaves
  silent           never answers hello (and stays)
  wrong-role       answers hello as an openmessaging-provider
  wrong-version    answers hello with protocol version 99
  garbage          answers hello with a log line instead of JSON
  hang             answers hello, then never answers anything
  crash-on-encode  answers hello, then dies (a traceback on stderr, exit status 1) on any encode
  exit-mid-run     answers hello and two requests, then exits (status 0) on the third
  garbage-mid-run  answers hello and two requests, then writes a line that is not JSON for the third
  chatty           behaves, but writes a log line on stdout after hello
  no-exit          behaves, but does not exit when its stdin ends (sleeps 60 s)
  accept-all       behaves, but decodes any message (no refusal; own codec only)
  unknown-ok       behaves, but answers an unknown op ok (own codec only)
  error-dies       behaves, but exits on a request it cannot read instead of answering error
"""
import json
import subprocess
import sys
import threading
import time

MODE = sys.argv[1]
ONCE = sys.argv[3] if sys.argv[2:3] == ["--once"] else None
PROXIED = sys.argv[4:] if ONCE else sys.argv[2:]
out_lock = threading.Lock()


def write(text: str) -> None:
    with out_lock:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def out(obj) -> None:
    write(json.dumps(obj))


def hello_result(result: dict) -> dict:
    """hello's result as MODE spoils it."""
    if MODE == "wrong-role":
        result = {**result, "role": "openmessaging-provider"}
    if MODE == "wrong-version":
        result = {**result, "version": 99}
    return result


# ---- its own tiny codec -------------------------------------------------------------------------

OWN_HELLO = {"protocol": "mqconform-process", "version": 1, "role": "cloudevents-codec",
             "implementation": {"name": "bad-codec", "version": "0.1"},
             "offers": {"operations": ["encode", "decode"], "bindings": {"ce-amqp": {"modes": ["binary"]}}}}


def own_answer(req) -> dict:
    rid, op, params = req["id"], req["op"], req.get("params") or {}
    if op == "encode":
        event = params.get("event")
        attrs = event["attributes"]   # TypeError for an event that is not an object: answered error below
        props = {f"cloudEvents_{k}": {"string": str(next(iter(v.values())))} for k, v in attrs.items()}
        msg = {"protocol": "amqp10", "application_properties": props, "body": {"data": [event.get("data") or ""]}}
        return {"id": rid, "status": "ok", "result": {"message": msg}}
    if op == "decode":
        props = params["message"].get("application_properties") or {}
        attrs = {k[len("cloudEvents_"):]: v for k, v in props.items() if k.startswith("cloudEvents_")}
        if MODE != "accept-all":
            if "id" not in attrs:
                return {"id": rid, "status": "refused", "code": "rejected", "reason": "missing required attribute id"}
            if attrs.get("specversion") != {"string": "1.0"}:
                return {"id": rid, "status": "refused", "code": "rejected", "reason": "unknown specversion"}
        return {"id": rid, "status": "ok", "result": {"event": {"attributes": attrs, "data": None}, "mode": "binary"}}
    if MODE == "unknown-ok":
        return {"id": rid, "status": "ok", "result": {}}
    return {"id": rid, "status": "refused", "code": "not-offered", "reason": f"no op {op!r} here"}


def own(req) -> None:
    if req["op"] == "hello":
        out({"id": req["id"], "status": "ok", "result": hello_result(OWN_HELLO)})
        return
    try:
        out(own_answer(req))
    except Exception as exc:   # the implementation threw: status error, the process goes on
        if MODE == "error-dies":
            sys.exit(2)
        out({"id": req["id"], "status": "error", "error": {"type": type(exc).__name__, "message": str(exc)}})


# ---- a proxy in front of a good shim ------------------------------------------------------------

child = None
hello_ids: set = set()


def start_child():
    global child
    child = subprocess.Popen(PROXIED, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)

    def copy():
        for line in iter(child.stdout.readline, b""):
            obj = json.loads(line)
            if obj.get("id") in hello_ids and obj.get("status") == "ok":
                obj["result"] = hello_result(obj["result"])
            out(obj)
    threading.Thread(target=copy, daemon=True).start()


def proxied(req) -> None:
    if req["op"] == "hello":
        hello_ids.add(req["id"])
    child.stdin.write((json.dumps(req) + "\n").encode())
    child.stdin.flush()


# ---- the loop -----------------------------------------------------------------------------------

def now() -> bool:
    """Whether to misbehave on this request: always, or with --once only the first time across processes."""
    if ONCE is None:
        return True
    try:
        with open(ONCE, "x"):
            return True
    except FileExistsError:
        return False


def main() -> None:
    if PROXIED:
        start_child()
    handled = 0
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "hello":
            if MODE == "silent":
                continue
            if MODE == "garbage":
                write("INFO starting codec shim, please wait")
                continue
        else:
            handled += 1
            sys.stderr.write(f"bad_codec {MODE}: request {handled}: {req['op']}\n")
            sys.stderr.flush()
            if MODE == "hang" and now():
                continue
            if MODE == "crash-on-encode" and req["op"] == "encode" and now():
                sys.stderr.write("Traceback (most recent call last):\n  ...\nRuntimeError: the codec crashed\n")
                sys.stderr.flush()
                sys.exit(1)
            if MODE == "exit-mid-run" and handled == 3 and now():
                sys.exit(0)
            if MODE == "garbage-mid-run" and handled == 3 and now():
                write("DEBUG encoding event ...")
                continue
        (proxied if PROXIED else own)(req)
        if MODE == "chatty" and req["op"] == "hello":
            write("codec shim ready")
    if MODE == "no-exit":
        time.sleep(60)
    if child is not None:
        child.stdin.close()
        child.wait(timeout=10)


if __name__ == "__main__":
    try:
        main()
    finally:
        if child is not None and child.poll() is None:
            child.kill()
