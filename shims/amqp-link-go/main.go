// mqconform's second AMQP 1.0 client: go-amqp (github.com/Azure/go-amqp, the version pinned in
// go.mod) behind role `amqp10-link-client` of docs/process-protocol.md; the contract is
// docs/link-protocol.md.
//
// The rules it keeps (the shim translates, nothing more):
//   - stdout carries protocol lines only: os.Stdout is pointed at stderr before anything runs, and
//     each answer is written as one whole line under a lock;
//   - `hello` is answered before any other request is read; every other request runs on its own
//     goroutine (several may be in flight: the harness runs vectors side by side);
//   - what the broker sent is an `ok` answer that carries it (an outcome, a refusal with its scope,
//     condition and description, a message); an error of go-amqp's own is `status: error` with
//     error.type naming go-amqp, never the broker's answer; a request go-amqp's API cannot express
//     is `refused` not-expressible, naming what is missing; the shim never refuses, repairs or fills
//     in on the broker's behalf;
//   - a line that is not a request (it has no id to answer under) is logged and ends the process
//     with status 2; stdin's end ends it with status 0 after the requests in flight are answered,
//     every connection closed.
//
// Build: python -m fixtures.process.shims amqp-link-go (go build -mod=readonly, cached by digest).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
)

const (
	protocolName = "mqconform-process"
	role         = "amqp10-link-client"
	modAMQP      = "github.com/Azure/go-amqp"
	maxLine      = 64 << 20
)

// notExpressible is a `refused` answer with code not-expressible: go-amqp's API has no form for the
// request (or the request does not read under the protocol's forms).
type notExpressible struct{ reason string }

func (e *notExpressible) Error() string { return e.reason }

func cannot(format string, args ...any) error {
	return &notExpressible{fmt.Sprintf(format, args...)}
}

// clientError is go-amqp's own error (never the broker's answer): answered `status: error`.
type clientError struct{ text string }

func (e *clientError) Error() string { return e.text }

var (
	out   *os.File
	outMu sync.Mutex
)

func main() {
	out = os.Stdout
	os.Stdout = os.Stderr
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	var running sync.WaitGroup
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			id, op, params, perr := readRequest(line)
			if perr != nil {
				fmt.Fprintf(os.Stderr, "amqp-link-go: not a request (%v): %.200s\n", perr, bytes.TrimSpace(line))
				os.Exit(2)
			}
			if op == "hello" {
				answer(id, op, params)
			} else {
				running.Add(1)
				go func() {
					defer running.Done()
					answer(id, op, params)
				}()
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "amqp-link-go: reading stdin: %v\n", err)
			running.Wait()
			os.Exit(2)
		}
	}
	running.Wait()
	closeAll()
	os.Exit(0)
}

func readRequest(line []byte) (json.Number, string, map[string]any, error) {
	if len(line) > maxLine {
		return "", "", nil, fmt.Errorf("a line of %d bytes", len(line))
	}
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil {
		return "", "", nil, err
	}
	id, ok := obj["id"].(json.Number)
	if !ok {
		return "", "", nil, fmt.Errorf("no id")
	}
	if _, err := id.Int64(); err != nil {
		return "", "", nil, fmt.Errorf("id %s is not an integer", id)
	}
	op, ok := obj["op"].(string)
	if !ok {
		return "", "", nil, fmt.Errorf("no op")
	}
	params, _ := obj["params"].(map[string]any)
	if params == nil {
		params = map[string]any{}
	}
	return id, op, params, nil
}

func answer(id json.Number, op string, params map[string]any) {
	res := map[string]any{"id": id}
	result, err := run(op, params)
	switch e := err.(type) {
	case nil:
		res["status"], res["result"] = "ok", result
	case *notExpressible:
		res["status"], res["code"], res["reason"] = "refused", "not-expressible", e.reason
	case *notOffered:
		res["status"], res["code"], res["reason"] = "refused", "not-offered", e.Error()
	case *clientError:
		res["status"], res["error"] = "error", map[string]any{"type": "go-amqp", "message": "go-amqp: " + e.text}
	default:
		res["status"], res["code"] = "refused", "not-expressible"
		res["reason"] = fmt.Sprintf("the shim failed (its own code, not go-amqp, not the broker): %v", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		buf.Reset()
		_ = json.NewEncoder(&buf).Encode(map[string]any{"id": id, "status": "refused", "code": "not-expressible",
			"reason": fmt.Sprintf("the shim failed: its answer has no JSON form: %v", err)})
	}
	outMu.Lock()
	defer outMu.Unlock()
	_, _ = out.Write(buf.Bytes())
}

// run does one operation. A panic is the shim's own failure unless it came out of a go-amqp call
// (those are recovered where they are made, in client()).
func run(op string, p map[string]any) (result map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "amqp-link-go: panic in the shim during %s: %v\n%s", op, r, debug.Stack())
			result, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	switch op {
	case "hello":
		return hello(p)
	case "connect":
		return connect(p)
	case "attach":
		return attach(p)
	case "send":
		return send(p)
	case "receive":
		return receive(p)
	case "settle":
		return settle(p)
	case "detach":
		return detach(p)
	case "disconnect":
		return disconnect(p)
	}
	return nil, &notOffered{op}
}

// notOffered is answered as the refusal code not-offered (an operation the handshake did not list).
type notOffered struct{ op string }

func (e *notOffered) Error() string { return "no operation " + e.op }

func hello(p map[string]any) (map[string]any, error) {
	if versions, ok := p["versions"].([]any); ok {
		found := false
		for _, v := range versions {
			if n, ok := v.(json.Number); ok && n.String() == "1" {
				found = true
			}
		}
		if !found {
			return nil, cannot("hello: this shim speaks version 1 only; offered %v", versions)
		}
	}
	version := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == modAMQP {
				version = trimV(m.Version)
			}
		}
	}
	return map[string]any{
		"protocol": protocolName, "version": 1, "role": role,
		"implementation": map[string]any{"name": "go-amqp", "version": version},
		"offers": map[string]any{
			"operations": []string{"connect", "attach", "send", "receive", "settle", "detach", "disconnect"},
			// What this client cannot show or say (docs/link-protocol.md, "Limits"): each answer
			// affected says so too.
			"limits": goAmqpLimits,
		},
		"library": modAMQP + " " + version,
	}, nil
}

func trimV(v string) string {
	if len(v) > 1 && v[0] == 'v' {
		return v[1:]
	}
	return v
}
