package main

// Reading an encoded AMQP 1.0 message (the bytes go-amqp's Message.Marshal wrote) into the MESSAGE
// form: every value's wire type is its type code, never guessed from the value (see wire.go for the
// rules the shim's codec keeps).

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"unicode/utf8"
)

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
