// mqconform's shim for the CloudEvents Go SDK's AMQP 1.0 binding
// (github.com/cloudevents/sdk-go/protocol/amqp/v2, on github.com/Azure/go-amqp): role
// `cloudevents-codec` of docs/process-protocol.md, contract docs/codec-protocol.md.
//
// The rules it keeps (a shim translates, nothing more):
//   - stdout carries protocol lines only: os.Stdout is pointed at stderr before anything else runs
//     (a library that prints goes to the log); results are written one whole line at a time;
//   - `hello` is answered in order, before any other request is read; every other request is
//     answered on its own goroutine (several may be in flight);
//   - a line that is not a request object cannot be answered (it has no id): it is logged and the
//     process exits 2, which the harness reports as the shim's failure;
//   - stdin's end ends the process, after the requests in flight are answered (exit 0);
//   - only the SDK's calls decide a row (sdk.go): an error the SDK returns is its refusal
//     (`rejected`, the SDK's own text), a panic inside the SDK is its crash (`status: error`); a
//     failure of the shim's own code is `not-expressible`, "the shim failed", never the SDK's.
//
// Build: python -m fixtures.process.shims cloudevents-go (go build -mod=readonly, cached by the
// digest of go.mod, go.sum and the .go files). The versions it reports are read from the
// binary's build information (go.mod pins them), never written here.
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
	role         = "cloudevents-codec"
	bindingID    = "ce-amqp"

	modSDK      = "github.com/cloudevents/sdk-go/v2"
	modBinding  = "github.com/cloudevents/sdk-go/protocol/amqp/v2"
	modAMQP     = "github.com/Azure/go-amqp"
	maxLineSize = 256 << 20
)

// refused is a `refused` answer: code is rejected, not-expressible or not-offered.
type refused struct {
	code   string
	reason string
}

func (r *refused) Error() string { return r.reason }

func notExpressible(format string, args ...any) *refused {
	return &refused{"not-expressible", fmt.Sprintf(format, args...)}
}

func notOffered(format string, args ...any) *refused {
	return &refused{"not-offered", fmt.Sprintf(format, args...)}
}

// bad is a request the shim cannot read (malformed against the protocol's forms).
func bad(path, what string) *refused {
	return notExpressible("request: %s: %s", path, what)
}

// crash is the SDK's panic: answered `status: error`.
type crash struct {
	typ     string
	message string
}

func (c *crash) Error() string { return c.message }

var (
	protocolOut *os.File
	outMu       sync.Mutex
)

func main() {
	protocolOut = os.Stdout
	os.Stdout = os.Stderr
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	var inflight sync.WaitGroup
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			req, perr := parseRequest(line)
			if perr != nil {
				fmt.Fprintf(os.Stderr, "cloudevents-go shim: not a request (%v): %s\n", perr, bytes.TrimSpace(line))
				os.Exit(2)
			}
			if req.op == "hello" {
				answer(req)
			} else {
				inflight.Add(1)
				go func() {
					defer inflight.Done()
					answer(req)
				}()
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "cloudevents-go shim: reading stdin: %v\n", err)
			inflight.Wait()
			os.Exit(2)
		}
	}
	inflight.Wait()
	os.Exit(0)
}

type request struct {
	id     json.Number
	op     string
	params map[string]any
}

func parseRequest(line []byte) (*request, error) {
	if len(line) > maxLineSize {
		return nil, fmt.Errorf("a line of %d bytes", len(line))
	}
	v, err := decodeJSON(line)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not an object")
	}
	id, ok := obj["id"].(json.Number)
	if !ok {
		return nil, fmt.Errorf("no integer id")
	}
	if _, err := id.Int64(); err != nil {
		return nil, fmt.Errorf("id %s is not an integer", id)
	}
	op, ok := obj["op"].(string)
	if !ok {
		return nil, fmt.Errorf("no op")
	}
	params, _ := obj["params"].(map[string]any)
	if params == nil {
		params = map[string]any{}
	}
	return &request{id: id, op: op, params: params}, nil
}

// decodeJSON reads one JSON value, numbers kept as their text (json.Number: a ulong fits).
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	return v, nil
}

func answer(req *request) {
	out := map[string]any{"id": req.id}
	result, err := dispatch(req.op, req.params)
	switch e := err.(type) {
	case nil:
		out["status"], out["result"] = "ok", result
	case *refused:
		out["status"], out["code"], out["reason"] = "refused", e.code, e.reason
	case *crash:
		fmt.Fprintf(os.Stderr, "cloudevents-go shim: the SDK panicked during %s: %s: %s\n", req.op, e.typ, e.message)
		out["status"], out["error"] = "error", map[string]any{"type": e.typ, "message": e.message}
	default:
		out["status"], out["code"] = "refused", "not-expressible"
		out["reason"] = fmt.Sprintf("the shim failed (its own code, not the SDK): %v", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		buf.Reset()
		fmt.Fprintf(os.Stderr, "cloudevents-go shim: cannot write the answer to %s: %v\n", req.op, err)
		_ = json.NewEncoder(&buf).Encode(map[string]any{"id": req.id, "status": "refused", "code": "not-expressible",
			"reason": fmt.Sprintf("the shim failed (its own code, not the SDK): the answer has no JSON form: %v", err)})
	}
	outMu.Lock()
	defer outMu.Unlock()
	_, _ = protocolOut.Write(buf.Bytes()) // Encode ends the line with "\n"
}

// dispatch runs one operation; a panic of the shim's own code is its failure (never the SDK's:
// the SDK's calls recover their own panics in sdkCall).
func dispatch(op string, p map[string]any) (result map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "cloudevents-go shim: panic in its own code during %s: %v\n%s", op, r, debug.Stack())
			result, err = nil, notExpressible("the shim failed (its own code, not the SDK): panic: %v", r)
		}
	}()
	switch op {
	case "hello":
		return hello(p)
	case "encode":
		return encode(p)
	case "decode":
		return decode(p)
	case "wire-transit":
		return wireTransit(p, false)
	case "go-amqp-transit":
		return wireTransit(p, true)
	}
	return nil, notOffered("no operation %q (this shim offers encode, decode, wire-transit, go-amqp-transit)", op)
}

// moduleVersion is a dependency's version as the build recorded it (go.mod's pin).
func moduleVersion(path string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		panic("the binary has no build information")
	}
	for _, d := range info.Deps {
		if d.Path == path {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	panic("the build information names no module " + path)
}

func goVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return info.GoVersion
}

func hello(p map[string]any) (map[string]any, error) {
	if r, _ := p["role"].(string); r != role {
		return nil, notOffered("this shim runs as role %s only, asked %v", role, p["role"])
	}
	v1 := false
	if vs, ok := p["versions"].([]any); ok {
		for _, v := range vs {
			if n, ok := v.(json.Number); ok && n.String() == "1" {
				v1 = true
			}
		}
	}
	if !v1 {
		return nil, notOffered("this shim speaks protocol version 1 only, offered %v", p["versions"])
	}
	version := moduleVersion(modBinding)
	if len(version) > 0 && version[0] == 'v' {
		version = version[1:]
	}
	// The Go SDK's AMQP binding writes and reads both content modes; its structured mode writes
	// the JSON event format (format.JSON, the only single-event format it registers).
	return map[string]any{
		"protocol": protocolName, "version": 1, "role": role,
		"implementation": map[string]any{"name": "cloudevents-sdk-go", "version": version},
		"offers": map[string]any{
			"operations": []string{"encode", "decode", "wire-transit", "go-amqp-transit"},
			"bindings":   map[string]any{bindingID: map[string]any{"modes": []string{"binary", "structured"}, "formats": []string{"json"}}},
		},
		"library":     modBinding + "@" + moduleVersion(modBinding),
		"sdk":         modSDK + "@" + moduleVersion(modSDK),
		"amqp_client": modAMQP + "@" + moduleVersion(modAMQP),
		"go":          goVersion(),
	}, nil
}
