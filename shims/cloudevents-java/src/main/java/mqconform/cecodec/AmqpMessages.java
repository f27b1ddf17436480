package mqconform.cecodec;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedByte;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.messaging.AmqpSequence;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.Header;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.apache.qpid.proton.amqp.messaging.Section;
import org.apache.qpid.proton.message.Message;

import java.nio.BufferOverflowException;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The MESSAGE form of an AMQP 1.0 message (docs/codec-protocol.md) and proton-j's Message, both
 * ways. The rules it keeps:
 *  - a message crosses proton-j's own codec (encode, then decode into a new Message) before it is
 *    read, in both directions: what the SDK is handed is what a proton-j receiver hands it, and
 *    what the SDK wrote is reported as it arrives, so every type is the one on the wire;
 *  - header and properties fields have the types proton-j's Header and Properties hold
 *    (content-type a Symbol, creation-time a Date, ...): a message whose field has another type,
 *    or with more than one body section, cannot be held by proton-j's Message (its setters' and
 *    setBody's signatures), which is the only message the SDK reads: the request is
 *    `not-expressible`, saying so. That is a translation limit, never a refusal answered on the
 *    SDK's behalf (the shim never answers `rejected` itself: only the SDK's exceptions are);
 *  - sections the MESSAGE form has no place for (delivery-annotations, footer) are never silently
 *    dropped: a message that has them is not expressible.
 */
final class AmqpMessages {
    private AmqpMessages() {
    }

    /** One field of a fixed-type section: its AMQP name, the Java class proton-j holds, get, set. */
    private record Field<S>(String name, Class<?> type, Function<S, Object> get, BiConsumer<S, Object> set) {
    }

    private static final List<Field<Header>> HEADER = List.of(
        new Field<>("durable", Boolean.class, Header::getDurable, (h, v) -> h.setDurable((Boolean) v)),
        new Field<>("priority", UnsignedByte.class, Header::getPriority, (h, v) -> h.setPriority((UnsignedByte) v)),
        new Field<>("ttl", UnsignedInteger.class, Header::getTtl, (h, v) -> h.setTtl((UnsignedInteger) v)),
        new Field<>("first-acquirer", Boolean.class, Header::getFirstAcquirer, (h, v) -> h.setFirstAcquirer((Boolean) v)),
        new Field<>("delivery-count", UnsignedInteger.class, Header::getDeliveryCount,
            (h, v) -> h.setDeliveryCount((UnsignedInteger) v)));

    private static final List<Field<Properties>> PROPERTIES = List.of(
        new Field<>("message-id", Object.class, Properties::getMessageId, Properties::setMessageId),
        new Field<>("user-id", Binary.class, Properties::getUserId, (p, v) -> p.setUserId((Binary) v)),
        new Field<>("to", String.class, Properties::getTo, (p, v) -> p.setTo((String) v)),
        new Field<>("subject", String.class, Properties::getSubject, (p, v) -> p.setSubject((String) v)),
        new Field<>("reply-to", String.class, Properties::getReplyTo, (p, v) -> p.setReplyTo((String) v)),
        new Field<>("correlation-id", Object.class, Properties::getCorrelationId, Properties::setCorrelationId),
        new Field<>("content-type", Symbol.class, Properties::getContentType, (p, v) -> p.setContentType((Symbol) v)),
        new Field<>("content-encoding", Symbol.class, Properties::getContentEncoding,
            (p, v) -> p.setContentEncoding((Symbol) v)),
        new Field<>("absolute-expiry-time", Date.class, Properties::getAbsoluteExpiryTime,
            (p, v) -> p.setAbsoluteExpiryTime((Date) v)),
        new Field<>("creation-time", Date.class, Properties::getCreationTime, (p, v) -> p.setCreationTime((Date) v)),
        new Field<>("group-id", String.class, Properties::getGroupId, (p, v) -> p.setGroupId((String) v)),
        new Field<>("group-sequence", UnsignedInteger.class, Properties::getGroupSequence,
            (p, v) -> p.setGroupSequence((UnsignedInteger) v)),
        new Field<>("reply-to-group-id", String.class, Properties::getReplyToGroupId,
            (p, v) -> p.setReplyToGroupId((String) v)));

    /** The largest encoding tried (the buffer grows by doubling up to it). */
    private static final int MAX_WIRE = 64 << 20;

    private static final List<String> SECTIONS = List.of(
        "protocol", "header", "message_annotations", "properties", "application_properties", "body");

    // ---- proton-j crossing its own codec

    /** The message as a proton-j receiver of `m`'s encoding holds it. */
    static Message overTheWire(Message m, String who) {
        byte[] buf = new byte[4096];
        int n;
        try {
            while (true) {
                try {
                    n = m.encode(buf, 0, buf.length);
                    break;
                } catch (BufferOverflowException full) {
                    if (buf.length >= MAX_WIRE) {
                        throw full;
                    }
                    buf = new byte[buf.length * 2];
                }
            }
        } catch (RuntimeException ex) {
            throw Refused.notExpressible("proton-j cannot encode " + who + ": " + ex.getClass().getName() + ": " + ex.getMessage());
        }
        Message rx = Message.Factory.create();
        try {
            rx.decode(buf, 0, n);
        } catch (RuntimeException ex) {
            throw Refused.notExpressible("proton-j cannot decode its own encoding of " + who + ": "
                + ex.getClass().getName() + ": " + ex.getMessage());
        }
        return rx;
    }

    // ---- proton-j -> MESSAGE

    static JsonObject toJson(Message m) {
        if (m.getDeliveryAnnotations() != null && !m.getDeliveryAnnotations().getValue().isEmpty()) {
            throw Refused.notExpressible("the message has delivery-annotations, which the MESSAGE form has no place for");
        }
        if (m.getFooter() != null && !m.getFooter().getValue().isEmpty()) {
            throw Refused.notExpressible("the message has a footer, which the MESSAGE form has no place for");
        }
        JsonObject out = new JsonObject();
        out.addProperty("protocol", "amqp10");
        if (m.getHeader() != null) {
            out.add("header", fields(HEADER, m.getHeader(), "header"));
        }
        if (m.getMessageAnnotations() != null) {
            JsonObject ma = new JsonObject();
            for (Map.Entry<Symbol, Object> e : m.getMessageAnnotations().getValue().entrySet()) {
                String k = String.valueOf(e.getKey());
                ma.add(k, Typed.toJson(e.getValue(), "message_annotations." + k));
            }
            out.add("message_annotations", ma);
        }
        if (m.getProperties() != null) {
            out.add("properties", fields(PROPERTIES, m.getProperties(), "properties"));
        }
        if (m.getApplicationProperties() != null) {
            JsonObject ap = new JsonObject();
            for (Map.Entry<String, Object> e : m.getApplicationProperties().getValue().entrySet()) {
                ap.add(e.getKey(), Typed.toJson(e.getValue(), "application_properties." + e.getKey()));
            }
            out.add("application_properties", ap);
        }
        out.add("body", body(m.getBody()));
        return out;
    }

    private static <S> JsonObject fields(List<Field<S>> fields, S section, String path) {
        JsonObject o = new JsonObject();
        for (Field<S> f : fields) {
            Object v = f.get().apply(section);
            if (v != null) {
                o.add(f.name(), Typed.toJson(v, path + "." + f.name()));
            }
        }
        return o;
    }

    private static JsonObject body(Section s) {
        JsonObject b = new JsonObject();
        if (s == null) {
            b.add("data", new JsonArray());
        } else if (s instanceof Data d) {
            JsonArray a = new JsonArray();
            a.add(java.util.Base64.getEncoder().encodeToString(Typed.bytes(d.getValue())));
            b.add("data", a);
        } else if (s instanceof AmqpValue v) {
            b.add("value", Typed.toJson(v.getValue(), "body.value"));
        } else if (s instanceof AmqpSequence q) {
            JsonArray seq = new JsonArray();
            seq.add(Typed.toJson(q.getValue(), "body.sequence[0]").get("list"));
            b.add("sequence", seq);
        } else {
            throw Refused.notExpressible("body: proton-j holds a " + Typed.className(s) + " section");
        }
        return b;
    }

    // ---- MESSAGE -> proton-j

    static Message fromJson(JsonElement el) {
        if (el == null || !el.isJsonObject()) {
            throw Typed.bad("message", "an object");
        }
        JsonObject j = el.getAsJsonObject();
        for (String k : j.keySet()) {
            if (!SECTIONS.contains(k)) {
                throw Typed.bad("message." + k, "not a section of an AMQP 1.0 MESSAGE (" + SECTIONS + ")");
            }
        }
        if (!j.has("protocol") || !"amqp10".equals(j.get("protocol").getAsString())) {
            throw Typed.bad("message.protocol", "ce-amqp decodes protocol amqp10, got " + j.get("protocol"));
        }
        Message m = Message.Factory.create();
        if (j.has("header")) {
            Header h = new Header();
            setFields(HEADER, h, section(j, "header"), "message.header");
            m.setHeader(h);
        }
        if (j.has("message_annotations")) {
            Map<Symbol, Object> ma = new LinkedHashMap<>();
            for (Map.Entry<String, JsonElement> e : section(j, "message_annotations").entrySet()) {
                ma.put(Symbol.valueOf(e.getKey()), Typed.fromJson(e.getValue(), "message.message_annotations." + e.getKey()));
            }
            m.setMessageAnnotations(new MessageAnnotations(ma));
        }
        if (j.has("properties")) {
            Properties p = new Properties();
            setFields(PROPERTIES, p, section(j, "properties"), "message.properties");
            m.setProperties(p);
        }
        if (j.has("application_properties")) {
            Map<String, Object> ap = new LinkedHashMap<>();
            for (Map.Entry<String, JsonElement> e : section(j, "application_properties").entrySet()) {
                ap.put(e.getKey(), Typed.fromJson(e.getValue(), "message.application_properties." + e.getKey()));
            }
            m.setApplicationProperties(new ApplicationProperties(ap));
        }
        if (j.has("body")) {
            m.setBody(bodySection(section(j, "body")));
        }
        return m;
    }

    private static JsonObject section(JsonObject j, String name) {
        JsonElement s = j.get(name);
        if (!s.isJsonObject()) {
            throw Typed.bad("message." + name, "an object");
        }
        return s.getAsJsonObject();
    }

    private static <S> void setFields(List<Field<S>> fields, S section, JsonObject j, String path) {
        for (Map.Entry<String, JsonElement> e : j.entrySet()) {
            Field<S> f = fields.stream().filter(x -> x.name().equals(e.getKey())).findFirst().orElseThrow(
                () -> Typed.bad(path + "." + e.getKey(), "not a field of this section"));
            Object v = Typed.fromJson(e.getValue(), path + "." + e.getKey());
            if (v != null && !f.type().isInstance(v)) {
                throw Refused.notExpressible("proton-j's Message cannot hold " + path.substring("message.".length()) + "."
                    + f.name() + " as " + Typed.one(e.getValue(), path).getKey() + ": its field is a "
                    + f.type().getName() + ", and the SDK reads only a proton-j Message");
            }
            f.set().accept(section, v);
        }
    }

    private static Section bodySection(JsonObject b) {
        if (b.size() != 1) {
            throw Typed.bad("message.body", "one of data, value, sequence");
        }
        Map.Entry<String, JsonElement> e = b.entrySet().iterator().next();
        switch (e.getKey()) {
            case "data": {
                if (!e.getValue().isJsonArray()) {
                    throw Typed.bad("message.body.data", "a list of base64 strings");
                }
                JsonArray a = e.getValue().getAsJsonArray();
                if (a.size() > 1) {
                    throw Refused.notExpressible("proton-j's Message holds one body section (setBody(Section)); "
                        + "its API has no form for " + a.size() + " data sections");
                }
                return a.size() == 0 ? null : new Data(new Binary(Typed.base64(a.get(0), "message.body.data[0]")));
            }
            case "value":
                return new AmqpValue(Typed.fromJson(e.getValue(), "message.body.value"));
            case "sequence": {
                if (!e.getValue().isJsonArray()) {
                    throw Typed.bad("message.body.sequence", "a list of lists of typed values");
                }
                JsonArray a = e.getValue().getAsJsonArray();
                if (a.size() == 0) {
                    return null;
                }
                if (a.size() > 1) {
                    throw Refused.notExpressible("proton-j's Message holds one body section (setBody(Section)); "
                        + "its API has no form for " + a.size() + " amqp-sequence sections");
                }
                JsonObject wrapped = new JsonObject();
                wrapped.add("list", a.get(0));
                return new AmqpSequence((List<?>) Typed.fromJson(wrapped, "message.body.sequence[0]"));
            }
            default:
                throw Typed.bad("message.body." + e.getKey(), "one of data, value, sequence");
        }
    }
}
