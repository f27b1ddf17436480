package mqconform.cecodec;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Decimal128;
import org.apache.qpid.proton.amqp.Decimal32;
import org.apache.qpid.proton.amqp.Decimal64;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedByte;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.UnsignedShort;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A typed AMQP 1.0 value of the MESSAGE form ({"uint": 5}, {"symbol": "x"}, ...) and the Java
 * object proton-j holds for it. The rules it keeps:
 *  - the wire type is read from the Java class proton-j gives (String string, Symbol symbol,
 *    Integer int, UnsignedInteger uint, Long long, Date timestamp in ms, Binary binary, ...), never
 *    guessed from the value;
 *  - decimal32/64/128 are read as the project reads them (Bid: the BID encoding), and a `decimal`
 *    is written as a decimal128;
 *  - a Java value the MESSAGE form has no type for (char, arrays, described types, maps with
 *    non-string keys) is not expressible, with the class named;
 *  - an input value out of its type's range, or of the wrong JSON kind, is a malformed request,
 *    named by its path.
 */
final class Typed {
    private static final BigInteger ULONG_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    private Typed() {
    }

    // ---- proton-j -> MESSAGE form

    static JsonObject toJson(Object v, String path) {
        JsonObject o = new JsonObject();
        if (v == null) {
            o.add("null", JsonNull.INSTANCE);
        } else if (v instanceof Boolean b) {
            o.addProperty("boolean", b);
        } else if (v instanceof Byte b) {
            o.addProperty("byte", b);
        } else if (v instanceof Short s) {
            o.addProperty("short", s);
        } else if (v instanceof Integer i) {
            o.addProperty("int", i);
        } else if (v instanceof Long l) {
            o.addProperty("long", l);
        } else if (v instanceof UnsignedByte u) {
            o.addProperty("ubyte", u.intValue());
        } else if (v instanceof UnsignedShort u) {
            o.addProperty("ushort", u.intValue());
        } else if (v instanceof UnsignedInteger u) {
            o.addProperty("uint", u.longValue());
        } else if (v instanceof UnsignedLong u) {
            o.addProperty("ulong", u.bigIntegerValue());
        } else if (v instanceof Float f) {
            o.add("float", floating(f.doubleValue()));
        } else if (v instanceof Double d) {
            o.add("double", floating(d));
        } else if (v instanceof Date d) {
            o.addProperty("timestamp", d.getTime());
        } else if (v instanceof String s) {
            o.addProperty("string", s);
        } else if (v instanceof Symbol s) {
            o.addProperty("symbol", s.toString());
        } else if (v instanceof Binary b) {
            o.addProperty("binary", Base64.getEncoder().encodeToString(bytes(b)));
        } else if (v instanceof Decimal32 || v instanceof Decimal64 || v instanceof Decimal128) {
            o.addProperty("decimal", Bid.toText(v));
        } else if (v instanceof UUID u) {
            o.addProperty("uuid", u.toString());
        } else if (v instanceof List<?> list) {
            JsonArray a = new JsonArray();
            for (int i = 0; i < list.size(); i++) {
                a.add(toJson(list.get(i), path + "[" + i + "]"));
            }
            o.add("list", a);
        } else if (v instanceof Map<?, ?> map) {
            JsonObject m = new JsonObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!(e.getKey() instanceof String key)) {
                    throw Refused.notExpressible(path + ": a map key of " + className(e.getKey())
                        + " (the MESSAGE form's map has string keys only)");
                }
                m.add(key, toJson(e.getValue(), path + "." + key));
            }
            o.add("map", m);
        } else {
            throw Refused.notExpressible(path + ": proton-j holds a " + className(v)
                + ", which the MESSAGE form has no type for");
        }
        return o;
    }

    static byte[] bytes(Binary b) {
        byte[] out = new byte[b.getLength()];
        System.arraycopy(b.getArray(), b.getArrayOffset(), out, 0, b.getLength());
        return out;
    }

    private static JsonElement floating(double d) {
        if (Double.isNaN(d)) {
            return new JsonPrimitive("NaN");
        }
        if (Double.isInfinite(d)) {
            return new JsonPrimitive(d > 0 ? "Infinity" : "-Infinity");
        }
        return new JsonPrimitive(d);
    }

    static String className(Object v) {
        return v == null ? "null" : v.getClass().getName();
    }

    // ---- MESSAGE form -> proton-j

    /** The one (type, value) of a typed object; a malformed one is named by its path. */
    static Map.Entry<String, JsonElement> one(JsonElement t, String path) {
        if (t == null || !t.isJsonObject() || t.getAsJsonObject().size() != 1) {
            throw Refused.notExpressible("request: " + path + ": a typed value is a one-key object {type: value}, got " + t);
        }
        return t.getAsJsonObject().entrySet().iterator().next();
    }

    static Object fromJson(JsonElement t, String path) {
        Map.Entry<String, JsonElement> e = one(t, path);
        String type = e.getKey();
        JsonElement v = e.getValue();
        String at = path + "." + type;
        switch (type) {
            case "null":
                if (!v.isJsonNull()) {
                    throw bad(at, "null takes the value null");
                }
                return null;
            case "boolean":
                if (!v.isJsonPrimitive() || !v.getAsJsonPrimitive().isBoolean()) {
                    throw bad(at, "boolean takes true or false");
                }
                return v.getAsBoolean();
            case "byte": return (byte) integer(v, at, -128, 127).intValue();
            case "short": return (short) integer(v, at, -32768, 32767).intValue();
            case "int": return integer(v, at, Integer.MIN_VALUE, Integer.MAX_VALUE).intValue();
            case "long": return integer(v, at, Long.MIN_VALUE, Long.MAX_VALUE).longValue();
            case "ubyte": return UnsignedByte.valueOf((byte) integer(v, at, 0, 255).intValue());
            case "ushort": return UnsignedShort.valueOf((short) integer(v, at, 0, 65535).intValue());
            case "uint": return UnsignedInteger.valueOf(integer(v, at, 0, 4294967295L).longValue());
            case "ulong": return UnsignedLong.valueOf(integer(v, at, BigInteger.ZERO, ULONG_MAX));
            case "float": return (float) floating(v, at);
            case "double": return floating(v, at);
            case "timestamp": return new Date(integer(v, at, Long.MIN_VALUE, Long.MAX_VALUE).longValue());
            case "string": return string(v, at);
            case "symbol": return Symbol.valueOf(string(v, at));
            case "binary": return new Binary(base64(v, at));
            case "uuid":
                try {
                    return UUID.fromString(string(v, at));
                } catch (IllegalArgumentException ex) {
                    throw bad(at, "not a UUID: " + v);
                }
            case "decimal": {
                String text = string(v, at);
                try {
                    Decimal128 d = Bid.decimal128(text);
                    if (d == null) {
                        throw bad(at, text + " does not fit a decimal128 exactly");
                    }
                    return d;
                } catch (NumberFormatException ex) {
                    throw bad(at, "not a decimal number: " + text);
                }
            }
            case "list": {
                if (!v.isJsonArray()) {
                    throw bad(at, "list takes an array of typed values");
                }
                List<Object> out = new ArrayList<>();
                JsonArray a = v.getAsJsonArray();
                for (int i = 0; i < a.size(); i++) {
                    out.add(fromJson(a.get(i), at + "[" + i + "]"));
                }
                return out;
            }
            case "map": {
                if (!v.isJsonObject()) {
                    throw bad(at, "map takes an object of typed values");
                }
                Map<String, Object> out = new LinkedHashMap<>();
                for (Map.Entry<String, JsonElement> m : v.getAsJsonObject().entrySet()) {
                    out.put(m.getKey(), fromJson(m.getValue(), at + "." + m.getKey()));
                }
                return out;
            }
            default:
                throw bad(path, "unknown wire type " + type);
        }
    }

    static Refused bad(String path, String what) {
        return Refused.notExpressible("request: " + path + ": " + what);
    }

    static String string(JsonElement v, String at) {
        if (!v.isJsonPrimitive() || !v.getAsJsonPrimitive().isString()) {
            throw bad(at, "takes a string, got " + v);
        }
        return v.getAsString();
    }

    static byte[] base64(JsonElement v, String at) {
        try {
            return Base64.getDecoder().decode(string(v, at));
        } catch (IllegalArgumentException ex) {
            throw bad(at, "not base64: " + ex.getMessage());
        }
    }

    static BigInteger integer(JsonElement v, String at, long min, long max) {
        return integer(v, at, BigInteger.valueOf(min), BigInteger.valueOf(max));
    }

    static BigInteger integer(JsonElement v, String at, BigInteger min, BigInteger max) {
        BigInteger i = integer(v, at);
        if (i.compareTo(min) < 0 || i.compareTo(max) > 0) {
            throw bad(at, i + " is outside " + min + ".." + max);
        }
        return i;
    }

    /** Any JSON integer (no range). */
    static BigInteger integer(JsonElement v, String at) {
        if (!v.isJsonPrimitive() || !v.getAsJsonPrimitive().isNumber()) {
            throw bad(at, "takes a JSON integer, got " + v);
        }
        BigInteger i;
        try {
            i = new BigDecimal(v.getAsString()).toBigIntegerExact();
        } catch (ArithmeticException | NumberFormatException ex) {
            throw bad(at, "not an integer: " + v);
        }
        return i;
    }

    private static double floating(JsonElement v, String at) {
        if (v.isJsonPrimitive() && v.getAsJsonPrimitive().isString()) {
            switch (v.getAsString()) {
                case "NaN": return Double.NaN;
                case "Infinity": return Double.POSITIVE_INFINITY;
                case "-Infinity": return Double.NEGATIVE_INFINITY;
                default: throw bad(at, "takes a number, \"NaN\", \"Infinity\" or \"-Infinity\", got " + v);
            }
        }
        if (!v.isJsonPrimitive() || !v.getAsJsonPrimitive().isNumber()) {
            throw bad(at, "takes a number, got " + v);
        }
        return v.getAsDouble();
    }
}
