package mqconform.shim;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.openmessaging.BytesMessage;
import io.openmessaging.KeyValue;
import io.openmessaging.Message;
import io.openmessaging.MessagingAccessPoint;
import io.openmessaging.OMS;
import io.openmessaging.OMSBuiltinKeys;
import io.openmessaging.consumer.PullConsumer;
import io.openmessaging.consumer.StreamingConsumer;
import io.openmessaging.exception.OMSNotSupportedException;
import io.openmessaging.producer.BatchMessageSender;
import io.openmessaging.producer.Producer;
import io.openmessaging.producer.SendResult;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * mqconform's shim for an OpenMessaging 0.3.x provider (docs/process-protocol.md, "OpenMessaging
 * provider operations"). It drives the provider through the OpenMessaging API only: the provider is
 * whatever OMS.getMessagingAccessPoint(url) loads for the URL's driver. The rules it keeps:
 *  - stdout carries protocol lines only: System.out is pointed at stderr before anything else runs,
 *    so no library can write to the protocol stream;
 *  - every request is answered once, on its own thread (several may be in flight);
 *  - what the OpenMessaging API cannot express is refused `not-expressible`; an API call the
 *    provider declines (OMSNotSupportedException) is refused `rejected`; any other exception, or a
 *    null where the API promises an object, is an `error` naming the call;
 *  - stdin's end ends the process (every producer and consumer shut down first).
 */
public final class Main {
    private static final Gson GSON = new Gson();
    private static PrintStream protocolOut;
    private static MessagingAccessPoint accessPoint;
    private static Producer producer;
    private static final Map<String, PullConsumer> consumers = new ConcurrentHashMap<>();
    private static final AtomicInteger consumerIds = new AtomicInteger();

    /** A documented refusal: `status: refused` with its code. */
    static final class Refused extends RuntimeException {
        final String code;

        Refused(String code, String reason) {
            super(reason);
            this.code = code;
        }
    }

    public static void main(String[] args) throws Exception {
        protocolOut = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "shim-request");
            t.setDaemon(true);
            return t;
        });
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            final JsonObject req = JsonParser.parseString(line).getAsJsonObject();
            if ("hello".equals(req.get("op").getAsString())) {
                answer(req);       // in order: nothing else runs before the access point exists
            } else {
                pool.submit(() -> answer(req));
            }
        }
        shutdownAll();
        System.exit(0);
    }

    private static void answer(JsonObject req) {
        long id = req.get("id").getAsLong();
        String op = req.get("op").getAsString();
        JsonObject params = req.has("params") && req.get("params").isJsonObject()
            ? req.getAsJsonObject("params") : new JsonObject();
        JsonObject out = new JsonObject();
        out.addProperty("id", id);
        try {
            JsonObject result = dispatch(op, params);
            out.addProperty("status", "ok");
            out.add("result", result);
        } catch (Refused r) {
            out.addProperty("status", "refused");
            out.addProperty("code", r.code);
            out.addProperty("reason", r.getMessage());
        } catch (OMSNotSupportedException e) {
            out.addProperty("status", "refused");
            out.addProperty("code", "rejected");
            out.addProperty("reason", op + ": the provider declined: " + describe(e));
        } catch (Throwable e) {
            e.printStackTrace(System.err);
            JsonObject err = new JsonObject();
            err.addProperty("type", e.getClass().getName());
            err.addProperty("message", describe(e));
            out.addProperty("status", "error");
            out.add("error", err);
        }
        String text = GSON.toJson(out);
        synchronized (Main.class) {
            protocolOut.println(text);
            protocolOut.flush();
        }
    }

    private static String describe(Throwable e) {
        StringBuilder b = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable c = e.getCause(); c != null && c != e; c = c.getCause()) {
            b.append(" <- ").append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
            if (c.getCause() == c) {
                break;
            }
        }
        return b.toString();
    }

    private static JsonObject dispatch(String op, JsonObject p) {
        switch (op) {
            case "hello": return hello(p);
            case "send": return send(p);
            case "send_batch": return sendBatch(p);
            case "consumer_open": return consumerOpen(p);
            case "receive": return receive(p);
            case "ack": return ack(p);
            case "consumer_close": return consumerClose(p);
            case "streaming_consumer_open": return streamingConsumerOpen(p);
            default: throw new Refused("not-offered", "no operation " + op);
        }
    }

    // ---- hello: the access point from the URL the harness gives

    private static JsonObject hello(JsonObject p) {
        JsonObject config = p.has("config") ? p.getAsJsonObject("config") : new JsonObject();
        String url = config.get("access_point").getAsString();
        KeyValue attrs = OMS.newKeyValue();
        if (config.has("operation_timeout_ms")) {
            attrs.put(OMSBuiltinKeys.OPERATION_TIMEOUT, config.get("operation_timeout_ms").getAsInt());
        }
        accessPoint = OMS.getMessagingAccessPoint(url, attrs);
        accessPoint.startup();
        producer = accessPoint.createProducer();
        producer.startup();
        JsonObject r = new JsonObject();
        r.addProperty("protocol", "mqconform-process");
        r.addProperty("version", 1);
        r.addProperty("role", "openmessaging-provider");
        JsonObject impl = new JsonObject();
        impl.addProperty("name", System.getProperty("shim.provider.name", accessPoint.getClass().getName()));
        impl.addProperty("version", System.getProperty("shim.provider.version", "unknown"));
        r.add("implementation", impl);
        JsonObject offers = new JsonObject();
        offers.add("operations", GSON.toJsonTree(new String[] {
            "send", "send_batch", "consumer_open", "receive", "ack", "consumer_close", "streaming_consumer_open"}));
        offers.addProperty("consumer", "PullConsumer");
        r.add("offers", offers);
        r.addProperty("api_spec_version", OMS.specVersion);
        r.addProperty("impl_version", accessPoint.implVersion());
        r.addProperty("access_point_class", accessPoint.getClass().getName());
        return r;
    }

    private static void requireStarted() {
        if (producer == null) {
            throw new IllegalStateException("no hello yet");
        }
    }

    // ---- messages: {"sys_headers": {KEY: {"type": T, "value": V}}, "user_headers": {...}, "body_b64": ...}

    private static void put(KeyValue kv, String key, JsonObject typed, String where) {
        String type = typed.get("type").getAsString();
        JsonElement v = typed.get("value");
        switch (type) {
            case "int": kv.put(key, v.getAsInt()); break;
            case "long": kv.put(key, v.getAsLong()); break;
            case "double": kv.put(key, v.getAsDouble()); break;
            case "string": kv.put(key, v.getAsString()); break;
            default: throw new Refused("not-expressible",
                "KeyValue.put has no " + type + " form (int, long, double, String only), for " + where + " " + key);
        }
    }

    private static BytesMessage build(JsonObject m) {
        byte[] body = Base64.getDecoder().decode(m.get("body_b64").getAsString());
        BytesMessage msg = producer.createBytesMessage(m.get("destination").getAsString(), body);
        if (msg == null) {
            throw new IllegalStateException("Producer.createBytesMessage returned null");
        }
        for (Map.Entry<String, JsonElement> e : obj(m, "sys_headers").entrySet()) {
            put(msg.sysHeaders(), e.getKey(), e.getValue().getAsJsonObject(), "system header");
        }
        for (Map.Entry<String, JsonElement> e : obj(m, "user_headers").entrySet()) {
            put(msg.userHeaders(), e.getKey(), e.getValue().getAsJsonObject(), "user header");
        }
        return msg;
    }

    private static JsonObject obj(JsonObject o, String key) {
        return o.has(key) && o.get(key).isJsonObject() ? o.getAsJsonObject(key) : new JsonObject();
    }

    private static JsonObject send(JsonObject p) {
        requireStarted();
        BytesMessage msg = build(p);
        long called = System.currentTimeMillis();
        SendResult res = producer.send(msg);
        long returned = System.currentTimeMillis();
        if (res == null) {
            throw new IllegalStateException("Producer.send returned null");
        }
        JsonObject r = new JsonObject();
        r.addProperty("message_id", res.messageId());
        r.add("message_sys_headers", dump(msg.sysHeaders()));   // the sent message after send returned
        r.addProperty("called_ms", called);
        r.addProperty("returned_ms", returned);
        return r;
    }

    private static JsonObject sendBatch(JsonObject p) {
        requireStarted();
        BatchMessageSender sender = producer.createBatchMessageSender();
        if (sender == null) {
            throw new IllegalStateException("Producer.createBatchMessageSender() returned null");
        }
        long called = System.currentTimeMillis();
        for (JsonElement e : p.getAsJsonArray("messages")) {
            sender.send(build(e.getAsJsonObject()));
        }
        sender.commit();
        sender.close();
        JsonObject r = new JsonObject();
        r.addProperty("called_ms", called);
        r.addProperty("returned_ms", System.currentTimeMillis());
        return r;
    }

    private static JsonObject dump(KeyValue kv) {
        JsonObject o = new JsonObject();
        for (String k : kv.keySet()) {
            String v = kv.getString(k);
            o.add(k, v == null ? JsonNull.INSTANCE : GSON.toJsonTree(v));
        }
        return o;
    }

    // ---- consumers: PullConsumer (receive with a timeout, ack by message id)

    private static JsonObject consumerOpen(JsonObject p) {
        requireStarted();
        KeyValue attrs = OMS.newKeyValue();
        attrs.put(OMSBuiltinKeys.CONSUMER_ID, p.get("group").getAsString());
        for (Map.Entry<String, JsonElement> e : obj(p, "attributes").entrySet()) {
            attrs.put(e.getKey(), e.getValue().getAsString());
        }
        PullConsumer c = accessPoint.createPullConsumer(attrs);
        if (c == null) {
            throw new IllegalStateException("MessagingAccessPoint.createPullConsumer returned null");
        }
        c.attachQueue(p.get("queue").getAsString());
        c.startup();
        String handle = "c" + consumerIds.incrementAndGet();
        consumers.put(handle, c);
        JsonObject r = new JsonObject();
        r.addProperty("consumer", handle);
        return r;
    }

    // The provider is asked for a StreamingConsumer and its answer passed on: none (null) is its
    // refusal `not-offered`; one it gives is closed again (reading partitions through it is not bound).
    private static JsonObject streamingConsumerOpen(JsonObject p) {
        requireStarted();
        KeyValue attrs = OMS.newKeyValue();
        StreamingConsumer c;
        try {
            c = accessPoint.createStreamingConsumer(attrs);
        } catch (OMSNotSupportedException e) {
            throw new Refused("not-offered", "MessagingAccessPoint.createStreamingConsumer: " + describe(e));
        }
        if (c == null) {
            throw new Refused("not-offered", "MessagingAccessPoint.createStreamingConsumer returned no StreamingConsumer (null)");
        }
        c.shutdown();
        JsonObject r = new JsonObject();
        r.addProperty("streaming_consumer", c.getClass().getName());
        return r;
    }

    private static PullConsumer consumer(JsonObject p) {
        PullConsumer c = consumers.get(p.get("consumer").getAsString());
        if (c == null) {
            throw new IllegalArgumentException("no open consumer " + p.get("consumer"));
        }
        return c;
    }

    private static JsonObject receive(JsonObject p) {
        PullConsumer c = consumer(p);
        KeyValue props = OMS.newKeyValue();
        props.put(Message.BuiltinKeys.TIMEOUT, p.get("timeout_ms").getAsInt());
        Message m = c.receive(props);
        JsonObject r = new JsonObject();
        r.addProperty("received_ms", System.currentTimeMillis());
        if (m == null) {
            r.add("message", JsonNull.INSTANCE);
            return r;
        }
        JsonObject msg = new JsonObject();
        msg.add("sys_headers", dump(m.sysHeaders()));
        msg.add("user_headers", dump(m.userHeaders()));
        byte[] body = m.getBody(byte[].class);
        msg.addProperty("body_b64", Base64.getEncoder().encodeToString(body == null ? new byte[0] : body));
        msg.addProperty("message_class", m.getClass().getName());
        r.add("message", msg);
        return r;
    }

    private static JsonObject ack(JsonObject p) {
        consumer(p).ack(p.get("message_id").getAsString());
        return new JsonObject();
    }

    private static JsonObject consumerClose(JsonObject p) {
        PullConsumer c = consumers.remove(p.get("consumer").getAsString());
        if (c != null) {
            c.shutdown();
        }
        return new JsonObject();
    }

    private static void shutdownAll() {
        for (PullConsumer c : consumers.values()) {
            try {
                c.shutdown();
            } catch (RuntimeException ignored) {
                // ending anyway
            }
        }
        consumers.clear();
        if (producer != null) {
            try {
                producer.shutdown();
            } catch (RuntimeException ignored) {
                // ending anyway
            }
        }
    }
}
