// Messages between the protocol's MESSAGE form (docs/codec-protocol.md, "MESSAGE", AMQP 1.0) and
// go-amqp's Message, and the request's parameters.
//
// The rules kept here:
//   - a value is handed to go-amqp as the Go type go-amqp encodes as the form's wire type; a wire
//     type go-amqp 0.17.0 has no Go type for (a symbol value, a decimal, an amqp-sequence body) is
//     not-expressible, naming it;
//   - a received value is reported by the Go type go-amqp decoded it into (a long is an int64, a
//     symbol go-amqp's Symbol), never by what the shim expected; a type outside the form is
//     not-expressible (the shim cannot report it);
//   - a header go-amqp holds is reported whole: go-amqp 0.17.0 does not say which of its fields
//     were on the wire.
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"

	amqp "github.com/Azure/go-amqp"
)

func messageFromForm(form map[string]any) (*amqp.Message, error) {
	if proto, ok := form["protocol"]; ok && proto != "amqp10" {
		return nil, cannot("message.protocol %v: this client speaks amqp10", proto)
	}
	msg := &amqp.Message{}
	if err := propertiesFromForm(msg, mapOf(form, "properties")); err != nil {
		return nil, err
	}
	if app := mapOf(form, "application_properties"); len(app) > 0 {
		msg.ApplicationProperties = map[string]any{}
		for k, v := range app {
			gv, err := goValue(v, "message.application_properties."+k)
			if err != nil {
				return nil, err
			}
			msg.ApplicationProperties[k] = gv
		}
	}
	if ann := mapOf(form, "message_annotations"); len(ann) > 0 {
		msg.Annotations = amqp.Annotations{}
		for k, v := range ann {
			gv, err := goValue(v, "message.message_annotations."+k)
			if err != nil {
				return nil, err
			}
			msg.Annotations[k] = gv // go-amqp writes a string key as a symbol
		}
	}
	if h := mapOf(form, "header"); len(h) > 0 {
		header, err := headerFromForm(h)
		if err != nil {
			return nil, err
		}
		msg.Header = header
	}
	body := mapOf(form, "body")
	switch {
	case body["sequence"] != nil:
		return nil, cannot("message.body.sequence: go-amqp 0.17.0's Message has no amqp-sequence body")
	case body["value"] != nil:
		v, err := goValue(body["value"], "message.body.value")
		if err != nil {
			return nil, err
		}
		msg.Value = v
	default:
		list, _ := body["data"].([]any)
		for i, s := range list {
			b, err := b64(s, fmt.Sprintf("message.body.data[%d]", i))
			if err != nil {
				return nil, err
			}
			msg.Data = append(msg.Data, b)
		}
	}
	return msg, nil
}

// headerFromForm: the header's fields as go-amqp 0.17.0's MessageHeader, which writes a field only
// where it differs from the AMQP 1.0 default (priority 4, the others false / 0): a field given at
// its default is not written, which AMQP 1.0 (3.2.1) reads the same.
func headerFromForm(h map[string]any) (*amqp.MessageHeader, error) {
	out := &amqp.MessageHeader{Priority: 4}
	for name, v := range h {
		gv, err := goValue(v, "message.header."+name)
		if err != nil {
			return nil, err
		}
		ok := true
		switch name {
		case "durable":
			out.Durable, ok = gv.(bool)
		case "first-acquirer":
			out.FirstAcquirer, ok = gv.(bool)
		case "priority":
			out.Priority, ok = gv.(uint8)
		case "delivery-count":
			out.DeliveryCount, ok = gv.(uint32)
		case "ttl":
			var ms uint32
			ms, ok = gv.(uint32)
			out.TTL = time.Duration(ms) * time.Millisecond
		default:
			return nil, cannot("message.header.%s: not an AMQP 1.0 header field", name)
		}
		if !ok {
			return nil, cannot("message.header.%s: %v is not of the field's AMQP type", name, v)
		}
	}
	return out, nil
}

func propertiesFromForm(msg *amqp.Message, props map[string]any) error {
	if len(props) == 0 {
		return nil
	}
	p := &amqp.MessageProperties{}
	for name, v := range props {
		typ, val, err := oneKey(v, "message.properties."+name)
		if err != nil {
			return err
		}
		s, isStr := val.(string)
		switch {
		case (name == "to" || name == "subject" || name == "reply-to" || name == "group-id" ||
			name == "reply-to-group-id") && typ == "string":
			field := map[string]**string{"to": &p.To, "subject": &p.Subject, "reply-to": &p.ReplyTo,
				"group-id": &p.GroupID, "reply-to-group-id": &p.ReplyToGroupID}[name]
			*field = &s
		case (name == "content-type" || name == "content-encoding") && typ == "symbol" && isStr:
			if name == "content-type" {
				p.ContentType = &s
			} else {
				p.ContentEncoding = &s
			}
		case (name == "creation-time" || name == "absolute-expiry-time") && typ == "timestamp":
			gv, err := goValue(v, "message.properties."+name)
			if err != nil {
				return err
			}
			t := gv.(time.Time)
			if name == "creation-time" {
				p.CreationTime = &t
			} else {
				p.AbsoluteExpiryTime = &t
			}
		case name == "message-id" || name == "correlation-id":
			gv, err := goValue(v, "message.properties."+name)
			if err != nil {
				return err
			}
			if name == "message-id" {
				p.MessageID = gv
			} else {
				p.CorrelationID = gv
			}
		default:
			return cannot("message.properties.%s as %s: not sent by this client", name, typ)
		}
	}
	msg.Properties = p
	return nil
}

// goValue: a TYPED of the form as the Go value go-amqp encodes as that wire type.
func goValue(v any, path string) (any, error) {
	typ, val, err := oneKey(v, path)
	if err != nil {
		return nil, err
	}
	num := func(bits int, signed bool) (any, error) {
		n, ok := val.(json.Number)
		if !ok {
			return nil, cannot("%s: %s: a JSON integer expected", path, typ)
		}
		if signed {
			i, err := strconv.ParseInt(n.String(), 10, bits)
			if err != nil {
				return nil, cannot("%s: %s %s out of range", path, typ, n)
			}
			return i, nil
		}
		u, err := strconv.ParseUint(n.String(), 10, bits)
		if err != nil {
			return nil, cannot("%s: %s %s out of range", path, typ, n)
		}
		return u, nil
	}
	switch typ {
	case "null":
		return nil, nil
	case "string":
		if s, ok := val.(string); ok {
			return s, nil
		}
	case "boolean":
		if b, ok := val.(bool); ok {
			return b, nil
		}
	case "byte", "short", "int", "long":
		bits := map[string]int{"byte": 8, "short": 16, "int": 32, "long": 64}[typ]
		i, err := num(bits, true)
		if err != nil {
			return nil, err
		}
		x := i.(int64)
		return map[string]any{"byte": int8(x), "short": int16(x), "int": int32(x), "long": x}[typ], nil
	case "ubyte", "ushort", "uint", "ulong":
		bits := map[string]int{"ubyte": 8, "ushort": 16, "uint": 32, "ulong": 64}[typ]
		u, err := num(bits, false)
		if err != nil {
			return nil, err
		}
		x := u.(uint64)
		return map[string]any{"ubyte": uint8(x), "ushort": uint16(x), "uint": uint32(x), "ulong": x}[typ], nil
	case "double":
		if n, ok := val.(json.Number); ok {
			f, err := n.Float64()
			if err == nil {
				return f, nil
			}
		}
	case "timestamp":
		i, err := num(64, true)
		if err != nil {
			return nil, err
		}
		return time.UnixMilli(i.(int64)).UTC(), nil
	case "binary":
		return b64(val, path)
	case "uuid":
		if s, ok := val.(string); ok {
			if u, ok := parseUUID(s); ok {
				return u, nil
			}
		}
	default:
		return nil, cannot("%s: a %s value: not sent by this client (go-amqp 0.17.0 has no Go type the shim hands it for it)", path, typ)
	}
	return nil, cannot("%s: %v is no %s", path, val, typ)
}

func messageToForm(m *amqp.Message) (map[string]any, error) {
	form := map[string]any{"protocol": "amqp10"}
	if h := m.Header; h != nil {
		form["header"] = map[string]any{"durable": map[string]any{"boolean": h.Durable},
			"priority": map[string]any{"ubyte": h.Priority}, "ttl": map[string]any{"uint": uint32(h.TTL / time.Millisecond)},
			"first-acquirer": map[string]any{"boolean": h.FirstAcquirer},
			"delivery-count": map[string]any{"uint": h.DeliveryCount}}
	}
	if p := m.Properties; p != nil {
		props := map[string]any{}
		for name, s := range map[string]*string{"to": p.To, "subject": p.Subject, "reply-to": p.ReplyTo,
			"group-id": p.GroupID, "reply-to-group-id": p.ReplyToGroupID} {
			if s != nil {
				props[name] = map[string]any{"string": *s}
			}
		}
		for name, s := range map[string]*string{"content-type": p.ContentType, "content-encoding": p.ContentEncoding} {
			if s != nil {
				props[name] = map[string]any{"symbol": *s}
			}
		}
		for name, t := range map[string]*time.Time{"absolute-expiry-time": p.AbsoluteExpiryTime, "creation-time": p.CreationTime} {
			if t != nil {
				props[name] = map[string]any{"timestamp": t.UnixMilli()}
			}
		}
		if p.GroupSequence != nil {
			props["group-sequence"] = map[string]any{"uint": *p.GroupSequence}
		}
		if len(p.UserID) > 0 {
			props["user-id"] = map[string]any{"binary": base64.StdEncoding.EncodeToString(p.UserID)}
		}
		for name, v := range map[string]any{"message-id": p.MessageID, "correlation-id": p.CorrelationID} {
			if v != nil {
				t, err := typedOf(v, "message.properties."+name)
				if err != nil {
					return nil, err
				}
				props[name] = t
			}
		}
		form["properties"] = props
	}
	app := map[string]any{}
	for k, v := range m.ApplicationProperties {
		t, err := typedOf(v, "message.application_properties."+k)
		if err != nil {
			return nil, err
		}
		app[k] = t
	}
	form["application_properties"] = app
	ann := map[string]any{}
	for k, v := range m.Annotations {
		t, err := typedOf(v, fmt.Sprintf("message.message_annotations.%v", k))
		if err != nil {
			return nil, err
		}
		ann[fmt.Sprint(k)] = t
	}
	form["message_annotations"] = ann
	if m.Value != nil {
		t, err := typedOf(m.Value, "message.body.value")
		if err != nil {
			return nil, err
		}
		form["body"] = map[string]any{"value": t}
	} else {
		data := make([]string, 0, len(m.Data))
		for _, d := range m.Data {
			data = append(data, base64.StdEncoding.EncodeToString(d))
		}
		form["body"] = map[string]any{"data": data}
	}
	return form, nil
}

// typedOf: a Go value go-amqp decoded, as the TYPED of its Go type.
func typedOf(v any, path string) (map[string]any, error) {
	switch x := v.(type) {
	case nil:
		return map[string]any{"null": nil}, nil
	case bool:
		return map[string]any{"boolean": x}, nil
	case int8:
		return map[string]any{"byte": x}, nil
	case int16:
		return map[string]any{"short": x}, nil
	case int32:
		return map[string]any{"int": x}, nil
	case int64:
		return map[string]any{"long": x}, nil
	case uint8:
		return map[string]any{"ubyte": x}, nil
	case uint16:
		return map[string]any{"ushort": x}, nil
	case uint32:
		return map[string]any{"uint": x}, nil
	case uint64:
		return map[string]any{"ulong": x}, nil
	case float32:
		return map[string]any{"float": floatJSON(float64(x))}, nil
	case float64:
		return map[string]any{"double": floatJSON(x)}, nil
	case string:
		return map[string]any{"string": x}, nil
	case []byte:
		return map[string]any{"binary": base64.StdEncoding.EncodeToString(x)}, nil
	case time.Time:
		return map[string]any{"timestamp": x.UnixMilli()}, nil
	case amqp.UUID:
		return map[string]any{"uuid": x.String()}, nil
	case []any:
		out := make([]any, 0, len(x))
		for i, e := range x {
			t, err := typedOf(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		return map[string]any{"list": out}, nil
	}
	// go-amqp's Symbol is in its internal package: known by its name and kind.
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String && rv.Type().Name() == "Symbol" {
		return map[string]any{"symbol": rv.String()}, nil
	}
	return nil, cannot("%s: go-amqp decoded a %T, which the message form has no type for", path, v)
}

func floatJSON(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return f
}

func parseUUID(s string) (amqp.UUID, bool) {
	var u amqp.UUID
	hex := make([]byte, 0, 32)
	for i := 0; i < len(s); i++ {
		if s[i] != '-' {
			hex = append(hex, s[i])
		}
	}
	if len(s) != 36 || len(hex) != 32 {
		return u, false
	}
	for i := 0; i < 16; i++ {
		b, err := strconv.ParseUint(string(hex[2*i:2*i+2]), 16, 8)
		if err != nil {
			return u, false
		}
		u[i] = byte(b)
	}
	return u, true
}

func oneKey(v any, path string) (string, any, error) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return "", nil, cannot("%s: a one-key object {type: value} expected", path)
	}
	for k, x := range m {
		return k, x, nil
	}
	return "", nil, nil
}

func b64(v any, path string) ([]byte, error) {
	s, ok := v.(string)
	if !ok {
		return nil, cannot("%s: base64 text expected", path)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, cannot("%s: not base64: %v", path, err)
	}
	return b, nil
}

func mapOf(m map[string]any, key string) map[string]any {
	x, _ := m[key].(map[string]any)
	return x
}

func reqString(p map[string]any, key string) (string, error) {
	s, ok := p[key].(string)
	if !ok {
		return "", cannot("request: %s: a string expected", key)
	}
	return s, nil
}

func optString(p map[string]any, key string) *string {
	if s, ok := p[key].(string); ok {
		return &s
	}
	return nil
}

func reqInt(p map[string]any, key string) (int, error) {
	if n, ok := p[key].(json.Number); ok {
		if i, err := strconv.Atoi(n.String()); err == nil {
			return i, nil
		}
	}
	return 0, cannot("request: %s: an integer expected", key)
}

func flag(p map[string]any, key string) bool {
	b, _ := p[key].(bool)
	return b
}

// millis: the request's bound (default 10 s, as the harness's own waits).
func millis(p map[string]any, key string) time.Duration {
	if n, ok := p[key].(json.Number); ok {
		if i, err := strconv.Atoi(n.String()); err == nil && i >= 0 {
			return time.Duration(i) * time.Millisecond
		}
	}
	return 10 * time.Second
}

func stringList(p map[string]any, key string) []string {
	list, _ := p[key].([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
