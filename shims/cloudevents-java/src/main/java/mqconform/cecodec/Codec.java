package mqconform.cecodec;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.cloudevents.CloudEvent;
import io.cloudevents.amqp.ProtonAmqpMessageFactory;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.core.message.Encoding;
import io.cloudevents.core.message.MessageReader;
import io.cloudevents.core.provider.EventFormatProvider;
import org.apache.qpid.proton.message.Message;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.TreeMap;

/**
 * The role's operations (docs/codec-protocol.md): hello, encode, decode, over the SDK's
 * ProtonAmqpMessageFactory (createWriter: writeBinary / writeStructured; createReader: binary or
 * structured as the SDK detects it from the content-type and the specversion property).
 * The versions it reports are read from the jars' Maven metadata, never written here.
 * `proton-transit` is the shim's own check (no SDK call): a MESSAGE through proton-j's codec and
 * back, so the typing of both directions can be tested apart from the SDK.
 */
final class Codec {
    static final String BINDING = "ce-amqp";
    static final String ROLE = "cloudevents-codec";
    static final String CE_GROUP = "io.cloudevents";

    private Codec() {
    }

    static JsonObject dispatch(String op, JsonObject p) {
        switch (op) {
            case "hello": return hello(p);
            case "encode": return encode(p);
            case "decode": return decode(p);
            case "proton-transit": return transit(p);
            default: throw new Refused(Refused.NOT_OFFERED, "no operation " + op
                + " (this shim offers encode, decode, proton-transit)");
        }
    }

    // ---- hello

    static JsonObject hello(JsonObject p) {
        if (!p.has("role") || !ROLE.equals(p.get("role").getAsString())) {
            throw new Refused(Refused.NOT_OFFERED, "this shim runs as role " + ROLE + " only, asked " + p.get("role"));
        }
        boolean v1 = false;
        if (p.has("versions") && p.get("versions").isJsonArray()) {
            for (JsonElement v : p.getAsJsonArray("versions")) {
                v1 |= v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber() && v.getAsInt() == 1;
            }
        }
        if (!v1) {
            throw new Refused(Refused.NOT_OFFERED, "this shim speaks protocol version 1 only, offered " + p.get("versions"));
        }
        String sdk = mavenVersion(CE_GROUP, "cloudevents-amqp-proton");
        JsonObject r = new JsonObject();
        r.addProperty("protocol", "mqconform-process");
        r.addProperty("version", 1);
        r.addProperty("role", ROLE);
        JsonObject impl = new JsonObject();
        impl.addProperty("name", "cloudevents-sdk-java");
        impl.addProperty("version", sdk);
        r.add("implementation", impl);
        JsonObject binding = new JsonObject();
        JsonArray modes = new JsonArray();
        modes.add("binary");
        JsonArray formats = new JsonArray();
        for (String f : formats().keySet()) {
            formats.add(f);
        }
        if (!formats.isEmpty()) {
            modes.add("structured");
        }
        binding.add("modes", modes);
        binding.add("formats", formats);
        JsonObject bindings = new JsonObject();
        bindings.add(BINDING, binding);
        JsonObject offers = new JsonObject();
        JsonArray ops = new JsonArray();
        ops.add("encode");
        ops.add("decode");
        ops.add("proton-transit");
        offers.add("operations", ops);
        offers.add("bindings", bindings);
        r.add("offers", offers);
        r.addProperty("library", CE_GROUP + ":cloudevents-amqp-proton:" + sdk);
        r.addProperty("format_library", CE_GROUP + ":cloudevents-json-jackson:"
            + mavenVersion(CE_GROUP, "cloudevents-json-jackson"));
        r.addProperty("proton_j", "org.apache.qpid:proton-j:" + mavenVersion("org.apache.qpid", "proton-j"));
        r.addProperty("jackson_databind", mavenVersion("com.fasterxml.jackson.core", "jackson-databind"));
        r.addProperty("java", System.getProperty("java.vendor") + " " + Runtime.version());
        return r;
    }

    /** The SDK's event formats by short name ("json"), each with the content type it resolves by. */
    static Map<String, String> formats() {
        Map<String, String> out = new TreeMap<>();
        for (String ct : EventFormatProvider.getInstance().getContentTypes()) {
            int plus = ct.lastIndexOf('+');
            out.put(plus >= 0 ? ct.substring(plus + 1) : ct, ct);
        }
        return out;
    }

    /** A jar's version from its META-INF/maven/<group>/<artifact>/pom.properties. */
    static String mavenVersion(String group, String artifact) {
        String res = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = Codec.class.getResourceAsStream(res)) {
            if (in == null) {
                throw new IllegalStateException("no " + res + " on the class path");
            }
            java.util.Properties props = new java.util.Properties();
            props.load(in);
            String v = props.getProperty("version");
            if (v == null || v.isBlank()) {
                throw new IllegalStateException(res + " has no version");
            }
            return v;
        } catch (IOException e) {
            throw new IllegalStateException("reading " + res + ": " + e, e);
        }
    }

    // ---- encode / decode

    private static void binding(JsonObject p) {
        JsonElement b = p.get("binding");
        if (b == null || !b.isJsonPrimitive() || !BINDING.equals(b.getAsString())) {
            throw new Refused(Refused.NOT_OFFERED, "this shim offers binding " + BINDING + " only, asked " + b);
        }
    }

    static JsonObject encode(JsonObject p) {
        binding(p);
        JsonElement m = p.get("mode");
        String mode = m != null && m.isJsonPrimitive() ? m.getAsString() : String.valueOf(m);
        String structuredType = formats().get("json");
        if (!mode.equals("binary") && !(mode.equals("structured") && structuredType != null)) {
            throw new Refused(Refused.NOT_OFFERED, "content mode " + mode + " is not offered (offered: binary"
                + (structuredType != null ? ", structured" : "") + ")");
        }
        CloudEventBuilder builder = Events.builder(p.get("event"));     // each SDK call in it goes through Sdk
        CloudEvent event = Sdk.call(builder::build);
        Message written = Sdk.call(() -> mode.equals("binary")
            ? ProtonAmqpMessageFactory.createWriter().writeBinary(event)
            : ProtonAmqpMessageFactory.createWriter().writeStructured(event, structuredType));
        JsonObject r = new JsonObject();
        r.add("message", AmqpMessages.toJson(AmqpMessages.overTheWire(written, "the SDK's message")));
        return r;
    }

    /** The shim's own check, no SDK call: MESSAGE -> proton-j -> its encoding -> proton-j -> MESSAGE. */
    static JsonObject transit(JsonObject p) {
        JsonObject r = new JsonObject();
        r.add("message", AmqpMessages.toJson(AmqpMessages.overTheWire(AmqpMessages.fromJson(p.get("message")),
            "the request's message")));
        return r;
    }

    static JsonObject decode(JsonObject p) {
        binding(p);
        Message received = AmqpMessages.overTheWire(AmqpMessages.fromJson(p.get("message")), "the request's message");
        MessageReader reader = Sdk.call(() -> ProtonAmqpMessageFactory.createReader(received));
        Encoding encoding = Sdk.call(reader::getEncoding);
        CloudEvent event = Sdk.call(reader::toEvent);
        JsonObject r = new JsonObject();
        r.add("event", Events.toJson(event));
        r.addProperty("mode", switch (encoding) {
            case BINARY -> "binary";
            case STRUCTURED -> "structured";
            default -> throw Refused.notExpressible("the SDK's reader gave an event with encoding " + encoding
                + ", which is neither content mode the protocol's `mode` has");
        });
        return r;
    }
}
