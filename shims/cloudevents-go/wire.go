package main

// The MESSAGE form of an AMQP 1.0 message (docs/codec-protocol.md) and its bytes on the wire, both
// ways, and go-amqp's own codec between them. The rules it keeps:
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
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	amqp "github.com/Azure/go-amqp"
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

// ---- bytes -> MESSAGE form

type reader struct {
	b []byte
	i int
}

func (r *reader) take(n int, at string) ([]byte, error) {
	if n < 0 || r.i+n > len(r.b) {
		return nil, notExpressible("the AMQP bytes end inside %s", at)
	}
	out := r.b[r.i : r.i+n]
	r.i += n
	return out, nil
}

func (r *reader) u8(at string) (byte, error) {
	b, err := r.take(1, at)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (r *reader) uint(width int, at string) (uint64, error) {
	b, err := r.take(width, at)
	if err != nil {
		return 0, err
	}
	var x uint64
	for _, c := range b {
		x = x<<8 | uint64(c)
	}
	return x, nil
}

var fixedWidths = map[byte]struct {
	kind  string
	width int
}{
	0x50: {"ubyte", 1}, 0x60: {"ushort", 2}, 0x70: {"uint", 4}, 0x52: {"uint", 1}, 0x80: {"ulong", 8}, 0x53: {"ulong", 1},
	0x51: {"byte", 1}, 0x61: {"short", 2}, 0x71: {"int", 4}, 0x54: {"int", 1}, 0x81: {"long", 8}, 0x55: {"long", 1},
	0x83: {"timestamp", 8},
}

var unreadable = map[byte]string{0x73: "char", 0x74: "decimal32", 0x84: "decimal64", 0x94: "decimal128",
	0xe0: "array", 0xf0: "array", 0x00: "described value"}

// readTyped reads one AMQP value as its TYPED form (its wire type from the type code).
func readTyped(r *reader, at string) (map[string]any, error) {
	code, err := r.u8(at)
	if err != nil {
		return nil, err
	}
	if f, ok := fixedWidths[code]; ok {
		x, err := r.uint(f.width, at)
		if err != nil {
			return nil, err
		}
		switch f.kind {
		case "byte", "int", "long":
			if f.width == 1 {
				return typed(f.kind, int64(int8(x))), nil
			}
			if f.width == 4 {
				return typed(f.kind, int64(int32(x))), nil
			}
			return typed(f.kind, int64(x)), nil
		case "short":
			return typed(f.kind, int64(int16(x))), nil
		case "timestamp":
			return typed(f.kind, int64(x)), nil
		}
		return typed(f.kind, x), nil
	}
	switch code {
	case 0x40:
		return typed("null", nil), nil
	case 0x41, 0x42:
		return typed("boolean", code == 0x41), nil
	case 0x56:
		b, err := r.u8(at)
		if err != nil {
			return nil, err
		}
		if b > 1 {
			return nil, notExpressible("%s: an AMQP boolean byte %d (neither 0 nor 1)", at, b)
		}
		return typed("boolean", b == 1), nil
	case 0x43:
		return typed("uint", uint64(0)), nil
	case 0x44:
		return typed("ulong", uint64(0)), nil
	case 0x72:
		x, err := r.uint(4, at)
		if err != nil {
			return nil, err
		}
		return typed("float", floatForm(float64(math.Float32frombits(uint32(x))))), nil
	case 0x82:
		x, err := r.uint(8, at)
		if err != nil {
			return nil, err
		}
		return typed("double", floatForm(math.Float64frombits(x))), nil
	case 0x98:
		b, err := r.take(16, at)
		if err != nil {
			return nil, err
		}
		h := hex.EncodeToString(b)
		return typed("uuid", h[:8]+"-"+h[8:12]+"-"+h[12:16]+"-"+h[16:20]+"-"+h[20:]), nil
	case 0xa0, 0xb0, 0xa1, 0xb1, 0xa3, 0xb3:
		width := map[bool]int{true: 1, false: 4}[code < 0xb0]
		n, err := r.uint(width, at)
		if err != nil {
			return nil, err
		}
		b, err := r.take(int(n), at)
		if err != nil {
			return nil, err
		}
		switch code & 0x0f {
		case 0x0:
			return typed("binary", base64.StdEncoding.EncodeToString(b)), nil
		case 0x1:
			if !utf8.Valid(b) {
				return nil, notExpressible("%s: an AMQP string that is not UTF-8 has no form in the codec protocol", at)
			}
			return typed("string", string(b)), nil
		}
		return typed("symbol", string(b)), nil
	case 0x45:
		return typed("list", []any{}), nil
	case 0xc0, 0xd0, 0xc1, 0xd1:
		return readCompound(r, code, at)
	}
	if name, ok := unreadable[code]; ok {
		return nil, notExpressible("%s: an AMQP %s has no form in the codec protocol", at, name)
	}
	return nil, notExpressible("%s: the bytes are no AMQP value (type code %#02x)", at, code)
}

func floatForm(f float64) any {
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

func readCompound(r *reader, code byte, at string) (map[string]any, error) {
	width := 4
	if code == 0xc0 || code == 0xc1 {
		width = 1
	}
	size, err := r.uint(width, at)
	if err != nil {
		return nil, err
	}
	end := r.i + int(size)
	count, err := r.uint(width, at)
	if err != nil {
		return nil, err
	}
	items := []any{}
	for i := uint64(0); i < count; i++ {
		x, err := readTyped(r, fmt.Sprintf("%s[%d]", at, i))
		if err != nil {
			return nil, err
		}
		items = append(items, x)
	}
	if r.i != end {
		return nil, notExpressible("%s: the compound's size (%d) is not the size of its %d elements", at, size, count)
	}
	if code == 0xc0 || code == 0xd0 {
		return typed("list", items), nil
	}
	if count%2 != 0 {
		return nil, notExpressible("%s: an AMQP map of %d elements (an odd count)", at, count)
	}
	m := map[string]any{}
	for i := 0; i < len(items); i += 2 {
		key := items[i].(map[string]any)
		var text string
		for kind, v := range key {
			if kind != "string" && kind != "symbol" {
				return nil, notExpressible("%s: a map key of AMQP type %s (the MESSAGE form's maps have string keys only)", at, kind)
			}
			text = v.(string)
		}
		m[text] = items[i+1]
	}
	return typed("map", m), nil
}

// readMessage reads the sections of an encoded AMQP message into the MESSAGE form.
func readMessage(raw []byte) (map[string]any, error) {
	r := &reader{b: raw}
	out := map[string]any{"protocol": "amqp10"}
	data, seqs := []any{}, []any{}
	var value map[string]any
	for r.i < len(r.b) {
		at := fmt.Sprintf("the section at byte %d", r.i)
		if c, err := r.u8(at); err != nil || c != 0x00 {
			return nil, notExpressible("%s: a message section starts with a descriptor (0x00)", at)
		}
		desc, err := readTyped(r, at+" (its descriptor)")
		if err != nil {
			return nil, err
		}
		code := -1
		if d, ok := desc["ulong"].(uint64); ok && d <= 0xff {
			code = int(d)
		} else if s, ok := desc["symbol"].(string); ok {
			if c, ok := sectionNames[s]; ok {
				code = int(c)
			}
		}
		body, err := readTyped(r, at)
		if err != nil {
			return nil, err
		}
		switch code {
		case secHeader, secProperties:
			fields, path := headerFields, "header"
			if code == secProperties {
				fields, path = propertyFields, "properties"
			}
			list, ok := body["list"].([]any)
			if !ok || len(list) > len(fields) {
				return nil, notExpressible("the %s section is not a list of its %d fields: %v", path, len(fields), body)
			}
			obj := map[string]any{}
			for i, f := range list {
				if _, isNull := f.(map[string]any)["null"]; !isNull {
					obj[fields[i]] = f
				}
			}
			out[path] = obj
		case secDeliveryAnn, secFooter, secMessageAnn, secAppProps:
			m, ok := body["map"].(map[string]any)
			if !ok {
				return nil, notExpressible("%s: a map section holds %v", at, body)
			}
			name := map[int]string{secDeliveryAnn: "delivery-annotations", secFooter: "footer",
				secMessageAnn: "message_annotations", secAppProps: "application_properties"}[code]
			if code == secDeliveryAnn || code == secFooter {
				if len(m) > 0 {
					return nil, notExpressible("the message has %s, which the MESSAGE form has no place for", name)
				}
				continue
			}
			out[name] = m
		case secData:
			b, ok := body["binary"].(string)
			if !ok {
				return nil, notExpressible("%s: a data section holds %v", at, body)
			}
			data = append(data, b)
		case secSequence:
			list, ok := body["list"].([]any)
			if !ok {
				return nil, notExpressible("%s: an amqp-sequence section holds %v", at, body)
			}
			seqs = append(seqs, list)
		case secValue:
			value = body
		default:
			return nil, notExpressible("%s: a section with descriptor %v, which the MESSAGE form has no place for", at, desc)
		}
	}
	switch {
	case value != nil && (len(data) > 0 || len(seqs) > 0), len(data) > 0 && len(seqs) > 0:
		return nil, notExpressible("the message's body mixes section kinds, which the MESSAGE form has no place for")
	case value != nil:
		out["body"] = map[string]any{"value": value}
	case len(seqs) > 0:
		out["body"] = map[string]any{"sequence": seqs}
	default:
		out["body"] = map[string]any{"data": data}
	}
	return out, nil
}
