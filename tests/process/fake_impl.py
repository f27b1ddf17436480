"""A tiny implementation process for the tests of fixtures/process: behaves as argv[1] says.

good      answers hello, `echo` (ok), `refuse` (refused), `fail` (error), `slow` (ok after 0.5 s)
crash     answers hello, then exits with status 3 on the first request
hang      answers hello, then never answers
garbage   answers hello, then writes a line that is not JSON
badhello  answers hello with another protocol's name
silent    never answers hello
wrongid   answers hello, then answers a request under an id nobody asked
"""
import json
import sys
import threading
import time

mode = sys.argv[1]


def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def hello(rid):
    name = "mqconform-process" if mode != "badhello" else "other-protocol"
    out({"id": rid, "status": "ok", "result": {"protocol": name, "version": 1, "role": "test",
                                                "implementation": {"name": "fake", "version": "0.1"},
                                                "offers": {"operations": ["echo", "refuse", "fail", "slow"]}}})


def answer(req):
    rid, op = req["id"], req["op"]
    if op == "echo":
        out({"id": rid, "status": "ok", "result": {"echo": req["params"]}})
    elif op == "refuse":
        out({"id": rid, "status": "refused", "code": "not-offered", "reason": "no such thing here"})
    elif op == "fail":
        out({"id": rid, "status": "error", "error": {"type": "Boom", "message": "it broke"}})
    elif op == "slow":
        time.sleep(0.5)
        out({"id": rid, "status": "ok", "result": {"slow": True}})


for line in sys.stdin:
    req = json.loads(line)
    if req["op"] == "hello":
        if mode == "silent":
            continue
        hello(req["id"])
        continue
    sys.stderr.write(f"fake: {mode} got {req['op']}\n")
    sys.stderr.flush()
    if mode == "crash":
        sys.exit(3)
    if mode == "hang":
        continue
    if mode == "garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
        continue
    if mode == "wrongid":
        out({"id": 999, "status": "ok", "result": {}})
        continue
    threading.Thread(target=answer, args=(req,)).start()
