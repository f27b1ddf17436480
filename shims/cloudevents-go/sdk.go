package main

// The role's encode and decode, over the SDK's AMQP binding as the SDK's own client uses it:
//   - encode: the event built with the SDK's setters (events.go), then what client.Send does
//     (sdk-go/v2 client/client.go): event.Validate, then the AMQP sender's Send, which is
//     amqp.WriteMessage(ctx, (*binding.EventMessage)(&e), &amqpMessage) (protocol/amqp/v2
//     sender.go); the content mode is chosen as the SDK documents it, binding.WithForceBinary /
//     binding.WithForceStructured on the context (structured mode writes format.JSON, the default);
//   - decode: what the receiving side does (protocol/amqp/v2 receiver.go, client/invoker.go):
//     amqp.NewMessage(received, nil), binding.ToEvent, then event.Validate; the mode is the
//     message's ReadEncoding, the SDK's own content-mode detection;
//   - the AMQP message crosses go-amqp's own codec (wire.go): what the SDK wrote is reported as
//     go-amqp's Marshal puts it on the wire, and the SDK is handed what go-amqp's Unmarshal gives a
//     receiving application.
// An error the SDK returns is its documented refusal (`rejected`, its text); a panic in it is its
// crash; nothing here refuses, repairs or completes on the SDK's behalf.

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"

	amqp "github.com/Azure/go-amqp"
	ceamqp "github.com/cloudevents/sdk-go/protocol/amqp/v2"
	"github.com/cloudevents/sdk-go/v2/binding"
	"github.com/cloudevents/sdk-go/v2/event"
)

// sdkCall runs one call into the SDK: an error it returns is its refusal (`rejected`, with the
// error's Go type and text), a panic is its crash (`status: error`). Only SDK calls go through
// here: the shim's own failures never become the SDK's answer.
func sdkCall(what string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "cloudevents-go shim: the SDK panicked in %s: %v\n%s", what, r, debug.Stack())
			err = &crash{typ: fmt.Sprintf("panic (%T)", r), message: fmt.Sprintf("%s: %v", what, r)}
		}
	}()
	if e := f(); e != nil {
		return &refused{"rejected", fmt.Sprintf("%s: %T: %v", what, e, e)}
	}
	return nil
}

func checkBinding(p map[string]any) error {
	if b, _ := p["binding"].(string); b != bindingID {
		return notOffered("this shim offers binding %s only (the Go SDK has no AMQP 0-9-1 or RocketMQ binding), asked %v",
			bindingID, p["binding"])
	}
	return nil
}

func encode(p map[string]any) (map[string]any, error) {
	if err := checkBinding(p); err != nil {
		return nil, err
	}
	ctx := context.Background()
	switch mode, _ := p["mode"].(string); mode {
	case "binary":
		ctx = binding.WithForceBinary(ctx)
	case "structured":
		ctx = binding.WithForceStructured(ctx)
	default:
		return nil, notOffered("content mode %v is not offered (offered: binary, structured)", p["mode"])
	}
	e, err := buildEvent(p["event"])
	if err != nil {
		return nil, err
	}
	if err := sdkCall("event.Validate", e.Validate); err != nil { // client.Send validates before sending
		return nil, err
	}
	var written amqp.Message
	if err := sdkCall("amqp.WriteMessage", func() error {
		return ceamqp.WriteMessage(ctx, (*binding.EventMessage)(e), &written)
	}); err != nil {
		return nil, err
	}
	msg, err := sent(&written)
	if err != nil {
		return nil, err
	}
	return map[string]any{"message": msg}, nil
}

func decode(p map[string]any) (map[string]any, error) {
	if err := checkBinding(p); err != nil {
		return nil, err
	}
	rx, err := received(p["message"])
	if err != nil {
		return nil, err
	}
	var m *ceamqp.Message
	if err := sdkCall("amqp.NewMessage", func() error { m = ceamqp.NewMessage(rx, nil); return nil }); err != nil {
		return nil, err
	}
	var enc binding.Encoding
	if err := sdkCall("Message.ReadEncoding", func() error { enc = m.ReadEncoding(); return nil }); err != nil {
		return nil, err
	}
	var e *event.Event
	if err := sdkCall("binding.ToEvent", func() (err error) {
		e, err = binding.ToEvent(context.Background(), m)
		return err
	}); err != nil {
		return nil, err
	}
	if e == nil {
		return nil, notExpressible("binding.ToEvent returned no event and no error, which the protocol's decode result has no form for")
	}
	if err := sdkCall("event.Validate", e.Validate); err != nil { // the client's receiver validates before handing it on
		return nil, err
	}
	var mode string
	switch enc {
	case binding.EncodingBinary:
		mode = "binary"
	case binding.EncodingStructured:
		mode = "structured"
	default:
		return nil, notExpressible("the SDK read the message with encoding %v, which is neither content mode the protocol's `mode` has", enc)
	}
	form, err := eventForm(e)
	if err != nil {
		return nil, err
	}
	return map[string]any{"event": form, "mode": mode}, nil
}

// wireTransit is the shim's own check, no SDK call: a MESSAGE through the shim's AMQP encoder and
// decoder, and with viaGoAMQP through go-amqp's Unmarshal and Marshal between them (what a
// go-amqp receiver holds of the message, and what a go-amqp sender writes of that).
func wireTransit(p map[string]any, viaGoAMQP bool) (map[string]any, error) {
	obj, ok := p["message"].(map[string]any)
	if !ok {
		return nil, bad("message", "an object")
	}
	raw, err := writeMessage(obj)
	if err != nil {
		return nil, err
	}
	if viaGoAMQP {
		m, err := goAMQPReceive(raw, "the request's message")
		if err != nil {
			return nil, err
		}
		if raw, err = goAMQPSend(m, "the message go-amqp received"); err != nil {
			return nil, err
		}
	}
	msg, err := readMessage(raw)
	if err != nil {
		return nil, err
	}
	return map[string]any{"message": msg}, nil
}

// ---- go-amqp's codec

// received is the *amqp.Message a go-amqp receiver hands the application for the request's MESSAGE.
func received(form any) (*amqp.Message, error) {
	obj, ok := form.(map[string]any)
	if !ok {
		return nil, bad("message", "an object")
	}
	raw, err := writeMessage(obj)
	if err != nil {
		return nil, err
	}
	return goAMQPReceive(raw, "the request's message")
}

// sent is the MESSAGE form of what a go-amqp sender puts on the wire for m.
func sent(m *amqp.Message) (map[string]any, error) {
	raw, err := goAMQPSend(m, "the SDK's message")
	if err != nil {
		return nil, err
	}
	return readMessage(raw)
}

func goAMQPReceive(raw []byte, who string) (m *amqp.Message, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, notExpressible("go-amqp cannot decode %s: Message.Unmarshal panicked: %v", who, r)
		}
	}()
	m = new(amqp.Message)
	if e := m.UnmarshalBinary(raw); e != nil {
		return nil, notExpressible("go-amqp's receiver hands no message for %s to an application: Message.Unmarshal says: %v", who, e)
	}
	return m, nil
}

func goAMQPSend(m *amqp.Message, who string) (raw []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			raw, err = nil, notExpressible("go-amqp cannot send %s: Message.Marshal panicked: %v", who, r)
		}
	}()
	raw, e := m.MarshalBinary()
	if e != nil {
		return nil, notExpressible("go-amqp cannot send %s: Message.Marshal says: %v", who, e)
	}
	return raw, nil
}
