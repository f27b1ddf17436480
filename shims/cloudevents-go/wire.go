package main

// The MESSAGE form of an AMQP 1.0 message (docs/codec-protocol.md) and its bytes on the wire, both
// ways (reading: wire_read.go), and go-amqp's own codec between them (sdk.go: received, sent).
// The rules it keeps:
//   - what the SDK wrote (an *amqp.Message) is put on the wire by go-amqp's Message.Marshal (what
//     its Sender.Send writes), and the form is read back from those bytes: every wire type is the
//     type code go-amqp wrote for the Go value the SDK returned (a Go string an AMQP string, an
//     int64 a long, a time.Time a timestamp), never guessed from the value;
//   - a MESSAGE to decode is written to the wire as the form says, every value with its own wire
//     type (this file's encoder: the form's sender), and the SDK is handed what go-amqp's
//     Message.Unmarshal gives a receiving application for those bytes (what its Receiver does):
//     so go-amqp 0.17's own reading holds (a symbol arrives as a Go string; several data
//     sections as Message.Data, of which the SDK reads GetData(), the first). A message go-amqp
//     cannot decode (an amqp-sequence body, a decimal) never reaches the SDK: a receiving
//     application would get no message, so the request is `not-expressible`, quoting go-amqp;
//   - sections and types the MESSAGE form has no place for (delivery-annotations, a footer, a
//     described value, an array, a char, a decimal read back) are never silently dropped: the
//     answer is `not-expressible`, naming them. The shim's encoder writes no decimal (it has no
//     IEEE 754 decimal writer): such a request is not expressible either.

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

const (
	secHeader      = 0x70
	secDeliveryAnn = 0x71
	secMessageAnn  = 0x72
	secProperties  = 0x73
	secAppProps    = 0x74
	secData        = 0x75
	secSequence    = 0x76
	secValue       = 0x77
	secFooter      = 0x78
)

var (
	headerFields   = []string{"durable", "priority", "ttl", "first-acquirer", "delivery-count"}
	propertyFields = []string{"message-id", "user-id", "to", "subject", "reply-to", "correlation-id", "content-type",
		"content-encoding", "absolute-expiry-time", "creation-time", "group-id", "group-sequence", "reply-to-group-id"}
	formSections = []string{"protocol", "header", "message_annotations", "properties", "application_properties", "body"}
	// the described sections by their symbolic descriptors (AMQP 1.0 part 3.2)
	sectionNames = map[string]byte{"amqp:header:list": secHeader, "amqp:delivery-annotations:map": secDeliveryAnn,
		"amqp:message-annotations:map": secMessageAnn, "amqp:properties:list": secProperties,
		"amqp:application-properties:map": secAppProps, "amqp:data:binary": secData,
		"amqp:amqp-sequence:list": secSequence, "amqp:amqp-value:*": secValue, "amqp:footer:map": secFooter}
	intRanges = map[string][2]*big.Int{
		"byte": span(math.MinInt8, math.MaxInt8), "short": span(math.MinInt16, math.MaxInt16),
		"int": span(math.MinInt32, math.MaxInt32), "long": span(math.MinInt64, math.MaxInt64),
		"timestamp": span(math.MinInt64, math.MaxInt64), "ubyte": span(0, math.MaxUint8),
		"ushort": span(0, math.MaxUint16), "uint": span(0, math.MaxUint32),
		"ulong": {big.NewInt(0), new(big.Int).SetUint64(math.MaxUint64)}}
)

func span(lo, hi int64) [2]*big.Int { return [2]*big.Int{big.NewInt(lo), big.NewInt(hi)} }

// ---- MESSAGE form -> bytes

type writer struct{ b []byte }

func (w *writer) u8(x byte)         { w.b = append(w.b, x) }
func (w *writer) u16(x uint16)      { w.b = binary.BigEndian.AppendUint16(w.b, x) }
func (w *writer) u32(x uint32)      { w.b = binary.BigEndian.AppendUint32(w.b, x) }
func (w *writer) u64(x uint64)      { w.b = binary.BigEndian.AppendUint64(w.b, x) }
func (w *writer) descriptor(c byte) { w.b = append(w.b, 0x00, 0x53, c) }

func (w *writer) variable(small, large byte, data []byte) {
	if len(data) < 256 {
		w.u8(small)
		w.u8(byte(len(data)))
	} else {
		w.u8(large)
		w.u32(uint32(len(data)))
	}
	w.b = append(w.b, data...)
}

// compound writes a list32 (0xd0) or map32 (0xd1) of count elements written by items.
func (w *writer) compound(code byte, count int, items func(*writer) error) error {
	inner := &writer{}
	if err := items(inner); err != nil {
		return err
	}
	w.u8(code)
	w.u32(uint32(4 + len(inner.b)))
	w.u32(uint32(count))
	w.b = append(w.b, inner.b...)
	return nil
}

func floatValue(v any, at string) (float64, error) {
	if s, ok := v.(string); ok {
		switch s {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
		return 0, bad(at, `takes a number, "NaN", "Infinity" or "-Infinity", got `+strconv.Quote(s))
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, bad(at, fmt.Sprintf("takes a number, got %v", v))
	}
	f, err := n.Float64()
	if err != nil {
		return 0, bad(at, "not a number: "+n.String())
	}
	return f, nil
}

func uuidBytes(v any, at string) ([]byte, error) {
	s, err := str(v, at)
	if err != nil {
		return nil, err
	}
	parts := strings.Split(s, "-")
	if len(parts) != 5 || len(parts[0]) != 8 || len(parts[1]) != 4 || len(parts[2]) != 4 || len(parts[3]) != 4 || len(parts[4]) != 12 {
		return nil, bad(at, "not a UUID (8-4-4-4-12): "+s)
	}
	b, herr := hex.DecodeString(strings.Join(parts, ""))
	if herr != nil {
		return nil, bad(at, "not a UUID: "+s)
	}
	return b, nil
}

// writeTyped writes a TYPED value as its own wire type.
func writeTyped(w *writer, form any, path string) error {
	kind, v, err := oneTyped(form, path)
	if err != nil {
		return err
	}
	at := path + "." + kind
	if r, ok := intRanges[kind]; ok {
		i, err := integer(v, at)
		if err != nil {
			return err
		}
		if i.Cmp(r[0]) < 0 || i.Cmp(r[1]) > 0 {
			return bad(at, fmt.Sprintf("%s is outside %s..%s", i, r[0], r[1]))
		}
		switch kind {
		case "byte":
			w.u8(0x51)
			w.u8(byte(int8(i.Int64())))
		case "short":
			w.u8(0x61)
			w.u16(uint16(int16(i.Int64())))
		case "int":
			w.u8(0x71)
			w.u32(uint32(int32(i.Int64())))
		case "long", "timestamp":
			w.u8(map[string]byte{"long": 0x81, "timestamp": 0x83}[kind])
			w.u64(uint64(i.Int64()))
		case "ubyte":
			w.u8(0x50)
			w.u8(byte(i.Uint64()))
		case "ushort":
			w.u8(0x60)
			w.u16(uint16(i.Uint64()))
		case "uint":
			w.u8(0x70)
			w.u32(uint32(i.Uint64()))
		case "ulong":
			w.u8(0x80)
			w.u64(i.Uint64())
		}
		return nil
	}
	switch kind {
	case "null":
		if v != nil {
			return bad(at, "null takes the value null")
		}
		w.u8(0x40)
	case "boolean":
		b, ok := v.(bool)
		if !ok {
			return bad(at, "boolean takes true or false")
		}
		w.u8(map[bool]byte{true: 0x41, false: 0x42}[b])
	case "float":
		f, err := floatValue(v, at)
		if err != nil {
			return err
		}
		w.u8(0x72)
		w.u32(math.Float32bits(float32(f)))
	case "double":
		f, err := floatValue(v, at)
		if err != nil {
			return err
		}
		w.u8(0x82)
		w.u64(math.Float64bits(f))
	case "string", "symbol":
		s, err := str(v, at)
		if err != nil {
			return err
		}
		if kind == "string" {
			w.variable(0xa1, 0xb1, []byte(s))
		} else {
			w.variable(0xa3, 0xb3, []byte(s))
		}
	case "binary":
		b, err := b64decode(v, at)
		if err != nil {
			return err
		}
		w.variable(0xa0, 0xb0, b)
	case "uuid":
		b, err := uuidBytes(v, at)
		if err != nil {
			return err
		}
		w.u8(0x98)
		w.b = append(w.b, b...)
	case "decimal":
		return notExpressible("%s: this shim's AMQP encoder writes no decimal (it has no IEEE 754 decimal writer)", at)
	case "list":
		items, ok := v.([]any)
		if !ok {
			return bad(at, "list takes an array of typed values")
		}
		return w.compound(0xd0, len(items), func(inner *writer) error {
			for i, x := range items {
				if err := writeTyped(inner, x, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
			return nil
		})
	case "map":
		m, ok := v.(map[string]any)
		if !ok {
			return bad(at, "map takes an object of typed values")
		}
		return writeMap(w, m, 0xa1, at)
	default:
		return bad(path, "unknown wire type "+kind)
	}
	return nil
}

// writeMap writes a map32 whose keys are strings (keyCode 0xa1) or symbols (0xa3).
func writeMap(w *writer, m map[string]any, keyCode byte, at string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return w.compound(0xd1, 2*len(keys), func(inner *writer) error {
		for _, k := range keys {
			inner.variable(keyCode, keyCode+0x10, []byte(k))
			if err := writeTyped(inner, m[k], at+"."+k); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeComposite writes a header or properties section: its fields by position, null where absent.
func writeComposite(w *writer, code byte, fields []string, v any, path string) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return bad(path, "an object")
	}
	last := -1
	for name := range obj {
		i := indexOf(fields, name)
		if i < 0 {
			return bad(path+"."+name, "not a field of this section ("+strings.Join(fields, ", ")+")")
		}
		last = max(last, i)
	}
	w.descriptor(code)
	return w.compound(0xd0, last+1, func(inner *writer) error {
		for _, name := range fields[:last+1] {
			if f, ok := obj[name]; ok {
				if err := writeTyped(inner, f, path+"."+name); err != nil {
					return err
				}
			} else {
				inner.u8(0x40)
			}
		}
		return nil
	})
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// writeMessage puts a MESSAGE on the wire: its sections in the order AMQP 1.0 gives them.
func writeMessage(m map[string]any) ([]byte, error) {
	for k := range m {
		if indexOf(formSections, k) < 0 {
			return nil, bad("message."+k, "not a section of an AMQP 1.0 MESSAGE ("+strings.Join(formSections, ", ")+")")
		}
	}
	if p, _ := m["protocol"].(string); p != "amqp10" {
		return nil, bad("message.protocol", fmt.Sprintf("ce-amqp decodes protocol amqp10, got %v", m["protocol"]))
	}
	w := &writer{}
	if h, ok := m["header"]; ok {
		if err := writeComposite(w, secHeader, headerFields, h, "message.header"); err != nil {
			return nil, err
		}
	}
	for _, s := range []struct {
		key     string
		code    byte
		keyCode byte
	}{{"message_annotations", secMessageAnn, 0xa3}} {
		if v, ok := m[s.key]; ok {
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, bad("message."+s.key, "an object")
			}
			w.descriptor(s.code)
			if err := writeMap(w, obj, s.keyCode, "message."+s.key); err != nil {
				return nil, err
			}
		}
	}
	if p, ok := m["properties"]; ok {
		if err := writeComposite(w, secProperties, propertyFields, p, "message.properties"); err != nil {
			return nil, err
		}
	}
	if v, ok := m["application_properties"]; ok {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, bad("message.application_properties", "an object")
		}
		w.descriptor(secAppProps)
		if err := writeMap(w, obj, 0xa1, "message.application_properties"); err != nil {
			return nil, err
		}
	}
	if b, ok := m["body"]; ok {
		if err := writeBody(w, b); err != nil {
			return nil, err
		}
	}
	return w.b, nil
}

func writeBody(w *writer, v any) error {
	obj, ok := v.(map[string]any)
	if !ok || len(obj) != 1 {
		return bad("message.body", "one of data, value, sequence")
	}
	switch {
	case obj["data"] != nil:
		sections, ok := obj["data"].([]any)
		if !ok {
			return bad("message.body.data", "a list of base64 strings")
		}
		for i, s := range sections {
			b, err := b64decode(s, fmt.Sprintf("message.body.data[%d]", i))
			if err != nil {
				return err
			}
			w.descriptor(secData)
			w.variable(0xa0, 0xb0, b)
		}
	case obj["value"] != nil:
		w.descriptor(secValue)
		return writeTyped(w, obj["value"], "message.body.value")
	case obj["sequence"] != nil:
		seqs, ok := obj["sequence"].([]any)
		if !ok {
			return bad("message.body.sequence", "a list of lists of typed values")
		}
		for i, s := range seqs {
			w.descriptor(secSequence)
			if err := writeTyped(w, map[string]any{"list": s}, fmt.Sprintf("message.body.sequence[%d]", i)); err != nil {
				return err
			}
		}
	default:
		return bad("message.body", "one of data, value, sequence")
	}
	return nil
}
