package mqconform.cecodec;

import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import io.cloudevents.CloudEvent;
import io.cloudevents.CloudEventData;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.types.Time;

import java.math.BigInteger;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Map;
import java.util.Set;

/**
 * The EVENT form (docs/codec-protocol.md) and the SDK's CloudEvent, both ways. The rules it keeps:
 *  - an event is built with the SDK's own builder, CloudEventBuilder.fromSpecVersion(SpecVersion.parse(
 *    specversion)), and every attribute goes through the builder's withContextAttribute(name, value)
 *    in the Java type of its CloudEvents type (string String, boolean Boolean, integer Integer (Long or
 *    BigInteger through the Number overload when out of int range), binary byte[]), so the SDK decides
 *    what it accepts and says why it refuses;
 *  - a uri, uri-reference or timestamp value of a context attribute the spec version defines is
 *    given as its string: the builder parses it itself (and refuses a bad one); for an extension the
 *    shim makes the java.net.URI / OffsetDateTime (with the SDK's Time.parseTime) the builder's
 *    extension overloads take, and a value that is none is not expressible;
 *  - on the way back each attribute is reported with the type of the Java object the SDK gives:
 *    String string, Integer/Long/Short/Byte/BigInteger integer, Boolean boolean, byte[] binary,
 *    OffsetDateTime timestamp (the SDK's Time.writeTime), URI uri-reference (java.net.URI is a URI
 *    reference), except `dataschema` / `schemaurl` whose CloudEvents type is uri.
 */
final class Events {
    private Events() {
    }

    /** The builder with every attribute of `ev` set and its data; each SDK call goes through Sdk.call
     *  (its documented exceptions are its refusal, anything else its crash). */
    static CloudEventBuilder builder(JsonElement el) {
        if (el == null || !el.isJsonObject()) {
            throw Typed.bad("event", "an object");
        }
        JsonObject ev = el.getAsJsonObject();
        if (!ev.has("attributes") || !ev.get("attributes").isJsonObject()) {
            throw Typed.bad("event.attributes", "an object of typed attributes");
        }
        JsonObject attrs = ev.getAsJsonObject("attributes");
        if (!attrs.has("specversion")) {
            throw Refused.notExpressible("the SDK's builders always carry a specversion "
                + "(CloudEventBuilder.fromSpecVersion); this event has none");
        }
        Map.Entry<String, JsonElement> sv = Typed.one(attrs.get("specversion"), "event.attributes.specversion");
        if (!"string".equals(sv.getKey())) {
            throw Refused.notExpressible("the SDK takes the specversion as a string (SpecVersion.parse); this event's is "
                + sv.getKey());
        }
        String svText = Typed.string(sv.getValue(), "event.attributes.specversion.string");
        SpecVersion version = Sdk.call(() -> SpecVersion.parse(svText));
        CloudEventBuilder b = Sdk.call(() -> CloudEventBuilder.fromSpecVersion(version));
        Set<String> defined = Sdk.call(version::getAllAttributes);
        for (Map.Entry<String, JsonElement> a : attrs.entrySet()) {
            String name = a.getKey();
            if (name.equals("specversion")) {
                continue;
            }
            String path = "event.attributes." + name;
            Map.Entry<String, JsonElement> t = Typed.one(a.getValue(), path);
            String at = path + "." + t.getKey();
            JsonElement v = t.getValue();
            switch (t.getKey()) {
                case "string" -> {
                    String str = Typed.string(v, at);
                    Sdk.run(() -> b.withContextAttribute(name, str));
                }
                case "boolean" -> {
                    if (!v.isJsonPrimitive() || !v.getAsJsonPrimitive().isBoolean()) {
                        throw Typed.bad(at, "takes true or false, got " + v);
                    }
                    Boolean bool = v.getAsBoolean();
                    Sdk.run(() -> b.withContextAttribute(name, bool));
                }
                case "integer" -> {
                    BigInteger i = Typed.integer(v, at);
                    if (i.bitLength() < 32) {
                        Integer n = i.intValue();
                        Sdk.run(() -> b.withContextAttribute(name, n));
                    } else if (i.bitLength() < 64) {
                        Number n = i.longValue();
                        Sdk.run(() -> b.withContextAttribute(name, n));
                    } else {
                        Number n = i;
                        Sdk.run(() -> b.withContextAttribute(name, n));
                    }
                }
                case "binary" -> {
                    byte[] bytes = Typed.base64(v, at);
                    Sdk.run(() -> b.withContextAttribute(name, bytes));
                }
                case "uri", "uri-reference" -> {
                    String str = Typed.string(v, at);
                    if (defined.contains(name)) {
                        Sdk.run(() -> b.withContextAttribute(name, str));
                    } else {
                        URI u = uri(str, at);
                        Sdk.run(() -> b.withContextAttribute(name, u));
                    }
                }
                case "timestamp" -> {
                    String str = Typed.string(v, at);
                    if (defined.contains(name)) {
                        Sdk.run(() -> b.withContextAttribute(name, str));
                    } else {
                        OffsetDateTime when = time(str, at);
                        Sdk.run(() -> b.withContextAttribute(name, when));
                    }
                }
                default -> throw Typed.bad(path, "unknown CloudEvents type " + t.getKey());
            }
        }
        JsonElement data = ev.get("data");
        if (data != null && !data.isJsonNull()) {
            byte[] bytes = Typed.base64(data, "event.data");
            Sdk.run(() -> b.withData(bytes));
        }
        return b;
    }

    private static URI uri(String s, String at) {
        try {
            return new URI(s);
        } catch (URISyntaxException ex) {
            throw Refused.notExpressible(at + ": the SDK's extension overload takes a java.net.URI, and " + ex.getMessage());
        }
    }

    private static OffsetDateTime time(String s, String at) {
        try {
            return Time.parseTime(s);   // the SDK's own parser, used for the value its extension overload takes
        } catch (DateTimeParseException ex) {
            throw Refused.notExpressible(at + ": the SDK's extension overload takes an OffsetDateTime, and Time.parseTime says: "
                + ex.getMessage());
        }
    }

    // ---- CloudEvent -> EVENT

    /** The SDK's event as it holds it: each getter is an SDK call (Sdk.call), nothing is added or repaired. */
    static JsonObject toJson(CloudEvent ev) {
        JsonObject attrs = new JsonObject();
        SpecVersion version = Sdk.call(ev::getSpecVersion);
        attrs.add("specversion", typed("string", version.toString()));
        for (String name : Sdk.call(version::getAllAttributes)) {
            Object v = name.equals("specversion") ? null : Sdk.call(() -> ev.getAttribute(name));
            if (v != null) {
                attrs.add(name, ceTyped(name, v, true));
            }
        }
        for (String name : Sdk.call(ev::getExtensionNames)) {
            Object v = Sdk.call(() -> ev.getExtension(name));
            if (v != null) {
                attrs.add(name, ceTyped(name, v, false));
            }
        }
        JsonObject out = new JsonObject();
        out.add("attributes", attrs);
        CloudEventData data = Sdk.call(ev::getData);
        if (data == null) {
            out.add("data", JsonNull.INSTANCE);
        } else {
            out.addProperty("data", Base64.getEncoder().encodeToString(Sdk.call(data::toBytes)));
        }
        return out;
    }

    private static JsonObject ceTyped(String name, Object v, boolean core) {
        if (v instanceof String s) {
            return typed("string", s);
        }
        if (v instanceof Boolean bo) {
            JsonObject o = new JsonObject();
            o.addProperty("boolean", bo);
            return o;
        }
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte || v instanceof BigInteger) {
            JsonObject o = new JsonObject();
            o.addProperty("integer", (Number) v);
            return o;
        }
        if (v instanceof byte[] bytes) {
            return typed("binary", Base64.getEncoder().encodeToString(bytes));
        }
        if (v instanceof OffsetDateTime t) {
            return typed("timestamp", Sdk.call(() -> Time.writeTime(t)));
        }
        if (v instanceof URI u) {
            boolean uri = core && (name.equals("dataschema") || name.equals("schemaurl"));
            return typed(uri ? "uri" : "uri-reference", u.toString());
        }
        throw Refused.notExpressible("the SDK gives attribute " + name + " as a " + Typed.className(v)
            + ", which no CloudEvents type the EVENT form has matches");
    }

    private static JsonObject typed(String type, String value) {
        JsonObject o = new JsonObject();
        o.addProperty(type, value);
        return o;
    }
}
