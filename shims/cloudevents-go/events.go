package main

// The EVENT form (docs/codec-protocol.md) and the SDK's event.Event, both ways. The rules it keeps:
//   - an event is built as a Go user builds one: event.New(specversion), then the typed setter of
//     each attribute the spec version defines (SetID, SetSource, SetType, SetSubject, SetTime,
//     SetDataContentType, SetDataSchema; for 0.3 also SetDataContentEncoding) and SetExtension for
//     every other, then SetData(datacontenttype, bytes) for the data. The setters record what they
//     refuse in the event's FieldErrors, which event.Validate returns (sdk.go): the SDK decides
//     what it accepts and says why it refuses;
//   - each value is handed in the Go type the SDK's API takes for its CloudEvents type: the string
//     setters take a string (the text of a string, uri or uri-reference), SetTime a time.Time;
//     SetExtension takes interface{} and the SDK's types.Validate converts: boolean bool, integer
//     int32 (int64 or uint64 when outside int32, which the SDK range-checks itself), string
//     string, binary []byte, uri types.URI, uri-reference types.URIRef, timestamp time.Time. A
//     value whose Go type the API cannot take (an integer id: SetID takes a string; a timestamp
//     that time.Parse cannot read into a time.Time; an integer beyond 64 bits) is
//     `not-expressible`, naming the signature: a translation limit, never a refusal;
//   - an event without a specversion cannot be asked: event.New always gives one (1.0 when none);
//   - on the way back every attribute the SDK's event holds is reported with the type of the Go
//     value the SDK gives: the context struct's fields (nil pointers are attributes it does not
//     hold) and its Extensions map (bool boolean, int32 integer, string string, []byte binary,
//     types.URI uri, types.URIRef uri-reference, types.Timestamp timestamp; anything else is
//     `other` with its Go type); the data is the event's DataEncoded bytes as the SDK holds them
//     (nil: no data).

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"sort"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/cloudevents/sdk-go/v2/types"
)

// oneTyped is the one (type, value) of a typed object {type: value}.
func oneTyped(v any, path string) (string, any, error) {
	obj, ok := v.(map[string]any)
	if !ok || len(obj) != 1 {
		return "", nil, bad(path, fmt.Sprintf("a typed value is a one-key object {type: value}, got %v", v))
	}
	for k, x := range obj {
		return k, x, nil
	}
	panic("unreachable")
}

func str(v any, path string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", bad(path, fmt.Sprintf("takes a string, got %v", v))
	}
	return s, nil
}

func b64decode(v any, path string) ([]byte, error) {
	s, err := str(v, path)
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, bad(path, "not base64: "+err.Error())
	}
	return b, nil
}

// integer reads a JSON integer of any size.
func integer(v any, path string) (*big.Int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, bad(path, fmt.Sprintf("takes a JSON integer, got %v", v))
	}
	i, ok := new(big.Int).SetString(n.String(), 10)
	if !ok {
		return nil, bad(path, "not an integer: "+n.String())
	}
	return i, nil
}

var stringSetters = map[string]func(e *event.Event, s string){
	"id": (*event.Event).SetID, "source": (*event.Event).SetSource, "type": (*event.Event).SetType,
	"subject": (*event.Event).SetSubject, "datacontenttype": (*event.Event).SetDataContentType,
}

// stringSetter is the Event setter taking a string for an attribute the spec version defines, and
// its name (nil for time, which SetTime takes as a time.Time, and for an extension).
func stringSetter(specversion, name string) (func(e *event.Event, s string), string) {
	if f, ok := stringSetters[name]; ok {
		return f, "Event.Set" + map[string]string{"id": "ID", "source": "Source", "type": "Type", "subject": "Subject",
			"datacontenttype": "DataContentType"}[name]
	}
	switch {
	case specversion == event.CloudEventsVersionV03 && name == "schemaurl",
		specversion != event.CloudEventsVersionV03 && name == "dataschema":
		return (*event.Event).SetDataSchema, "Event.SetDataSchema"
	case specversion == event.CloudEventsVersionV03 && name == "datacontentencoding":
		return (*event.Event).SetDataContentEncoding, "Event.SetDataContentEncoding"
	}
	return nil, ""
}

// buildEvent is the SDK's event for the EVENT form; each SDK call goes through sdkCall (a panic in
// a setter is the SDK's crash). Validation is the caller's (event.Validate).
func buildEvent(v any) (*event.Event, error) {
	form, ok := v.(map[string]any)
	if !ok {
		return nil, bad("event", "an object")
	}
	attrs, ok := form["attributes"].(map[string]any)
	if !ok {
		return nil, bad("event.attributes", "an object of typed attributes")
	}
	svForm, ok := attrs["specversion"]
	if !ok {
		return nil, notExpressible("the SDK's events always carry a specversion (event.New gives 1.0 when none is named); this event has none")
	}
	kind, svValue, err := oneTyped(svForm, "event.attributes.specversion")
	if err != nil {
		return nil, err
	}
	if kind != "string" {
		return nil, notExpressible("event.New takes the specversion as a string; this event's is a %s", kind)
	}
	sv, err := str(svValue, "event.attributes.specversion.string")
	if err != nil {
		return nil, err
	}
	e := new(event.Event)
	if err := sdkCall("event.New", func() error { *e = event.New(sv); return nil }); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(attrs))
	for name := range attrs {
		if name != "specversion" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	dct := ""
	for _, name := range names {
		path := "event.attributes." + name
		kind, value, err := oneTyped(attrs[name], path)
		if err != nil {
			return nil, err
		}
		at := path + "." + kind
		if f, sig := stringSetter(sv, name); f != nil {
			if kind != "string" && kind != "uri" && kind != "uri-reference" {
				return nil, notExpressible("%s: %s(string) takes a string; a CloudEvents %s has no form there", path, sig, kind)
			}
			s, err := str(value, at)
			if err != nil {
				return nil, err
			}
			if name == "datacontenttype" {
				dct = s
			}
			if err := sdkCall(sig, func() error { f(e, s); return nil }); err != nil {
				return nil, err
			}
			continue
		}
		if name == "time" {
			if kind != "timestamp" {
				return nil, notExpressible("%s: Event.SetTime(time.Time) takes a time.Time; a CloudEvents %s has no form there", path, kind)
			}
			t, err := timeValue(value, at)
			if err != nil {
				return nil, err
			}
			if err := sdkCall("Event.SetTime", func() error { e.SetTime(t); return nil }); err != nil {
				return nil, err
			}
			continue
		}
		x, err := extensionValue(kind, value, at)
		if err != nil {
			return nil, err
		}
		if err := sdkCall("Event.SetExtension", func() error { e.SetExtension(name, x); return nil }); err != nil {
			return nil, err
		}
	}
	if d, ok := form["data"]; ok && d != nil {
		data, err := b64decode(d, "event.data")
		if err != nil {
			return nil, err
		}
		// SetData with a []byte keeps the bytes as they are (the SDK's documented bytes form).
		if err := sdkCall("Event.SetData", func() error { return e.SetData(dct, data) }); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// timeValue is the time.Time a timestamp's text reads as, by the SDK's own parser (types.ParseTime,
// RFC 3339 with nanoseconds); text it cannot read has no time.Time to hand SetTime or SetExtension.
func timeValue(value any, at string) (time.Time, error) {
	s, err := str(value, at)
	if err != nil {
		return time.Time{}, err
	}
	t, perr := types.ParseTime(s)
	if perr != nil {
		return time.Time{}, notExpressible("%s: the SDK takes a timestamp as a time.Time, and types.ParseTime says: %v", at, perr)
	}
	return t, nil
}

// extensionValue is the Go value SetExtension is handed for a CloudEvents type.
func extensionValue(kind string, value any, at string) (any, error) {
	switch kind {
	case "boolean":
		b, ok := value.(bool)
		if !ok {
			return nil, bad(at, fmt.Sprintf("takes true or false, got %v", value))
		}
		return b, nil
	case "integer":
		i, err := integer(value, at)
		if err != nil {
			return nil, err
		}
		switch {
		case i.IsInt64() && i.Int64() >= math.MinInt32 && i.Int64() <= math.MaxInt32:
			return int32(i.Int64()), nil
		case i.IsInt64():
			return i.Int64(), nil
		case i.IsUint64():
			return i.Uint64(), nil
		}
		return nil, notExpressible("%s: %s fits no Go integer type (int64, uint64) Event.SetExtension could be handed", at, i)
	case "string":
		return str(value, at)
	case "binary":
		return b64decode(value, at)
	case "uri", "uri-reference":
		s, err := str(value, at)
		if err != nil {
			return nil, err
		}
		u, perr := url.Parse(s)
		if perr != nil {
			return nil, notExpressible("%s: the SDK's types.URI / types.URIRef hold a url.URL, and url.Parse says: %v", at, perr)
		}
		if kind == "uri" {
			return types.URI{URL: *u}, nil
		}
		return types.URIRef{URL: *u}, nil
	case "timestamp":
		return timeValue(value, at)
	}
	return nil, bad(at, "unknown CloudEvents type "+kind)
}

// ---- event.Event -> EVENT form

func typed(kind string, v any) map[string]any { return map[string]any{kind: v} }

// eventForm is the SDK's event as it holds it; nothing is added or repaired.
func eventForm(e *event.Event) (map[string]any, error) {
	attrs := map[string]any{}
	var ext map[string]any
	switch c := e.Context.(type) {
	case *event.EventContextV1:
		attrs["specversion"] = typed("string", event.CloudEventsVersionV1)
		attrs["id"] = typed("string", c.ID)
		attrs["source"] = typed("uri-reference", c.Source.String())
		attrs["type"] = typed("string", c.Type)
		if c.DataContentType != nil {
			attrs["datacontenttype"] = typed("string", *c.DataContentType)
		}
		if c.Subject != nil {
			attrs["subject"] = typed("string", *c.Subject)
		}
		if c.Time != nil {
			attrs["time"] = typed("timestamp", c.Time.Time.Format(time.RFC3339Nano))
		}
		if c.DataSchema != nil {
			attrs["dataschema"] = typed("uri", c.DataSchema.String())
		}
		ext = c.Extensions
	case *event.EventContextV03:
		attrs["specversion"] = typed("string", event.CloudEventsVersionV03)
		attrs["id"] = typed("string", c.ID)
		attrs["source"] = typed("uri-reference", c.Source.String())
		attrs["type"] = typed("string", c.Type)
		if c.DataContentType != nil {
			attrs["datacontenttype"] = typed("string", *c.DataContentType)
		}
		if c.DataContentEncoding != nil {
			attrs["datacontentencoding"] = typed("string", *c.DataContentEncoding)
		}
		if c.Subject != nil {
			attrs["subject"] = typed("string", *c.Subject)
		}
		if c.Time != nil {
			attrs["time"] = typed("timestamp", c.Time.Time.Format(time.RFC3339Nano))
		}
		if c.SchemaURL != nil {
			attrs["schemaurl"] = typed("uri-reference", c.SchemaURL.String())
		}
		ext = c.Extensions
	default:
		return nil, notExpressible("the SDK's event has a context of type %T, which this shim does not read", e.Context)
	}
	for name, v := range ext {
		if v != nil {
			attrs[name] = extensionForm(v)
		}
	}
	out := map[string]any{"attributes": attrs, "data": nil}
	if e.DataEncoded != nil {
		out["data"] = base64.StdEncoding.EncodeToString(e.DataEncoded)
	}
	return out, nil
}

func extensionForm(v any) map[string]any {
	switch x := v.(type) {
	case bool:
		return typed("boolean", x)
	case int32:
		return typed("integer", x)
	case string:
		return typed("string", x)
	case []byte:
		return typed("binary", base64.StdEncoding.EncodeToString(x))
	case types.URI:
		return typed("uri", x.String())
	case types.URIRef:
		return typed("uri-reference", x.String())
	case types.Timestamp:
		return typed("timestamp", x.Time.Format(time.RFC3339Nano))
	}
	shown := any(fmt.Sprintf("%v", v))
	if b, err := json.Marshal(v); err == nil {
		var back any
		if json.Unmarshal(b, &back) == nil {
			shown = back
		}
	}
	return typed("other", map[string]any{"api_type": fmt.Sprintf("%T", v), "value": shown})
}
