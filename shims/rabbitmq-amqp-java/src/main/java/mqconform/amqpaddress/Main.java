package mqconform.amqpaddress;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.rabbitmq.client.amqp.impl.MqconformAddresses;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Properties;

/**
 * mqconform's shim for RabbitMQ's AMQP 1.0 client for Java (com.rabbitmq.client:amqp-client), role
 * `client-library` of docs/process-protocol.md (docs/client-library-protocol.md). The rules it keeps:
 *  - stdout carries protocol lines only: System.out is pointed at stderr before the library loads;
 *  - one request at a time, answered in order, one whole line each; stdin's end ends the process;
 *  - a line that is not a request object cannot be answered (it has no id): it is logged and the
 *    process exits non-zero, which the harness reports as the shim's failure;
 *  - an address is what the library returned (MqconformAddresses), passed through: the shim
 *    encodes nothing. A message's `to` / `reply-to` is read back from the library's message, and
 *    its bytes are the library's own encoding of that message (base64 is only the JSON's framing);
 *    a publisher's target without a destination is what the library's publisher builder gives
 *    (null: the AMQP null target). The builder documents its refusal by throwing IllegalArgumentException
 *    (DefaultAddressBuilder.exchange: "The default exchange is not allowed, use the queue format
 *    instead"): that is `rejected`, with the exception's class and text; anything else it throws is
 *    its crash (`status: error`); an exception of the shim's own code is `not-expressible`, "the
 *    shim failed", never the library's answer.
 */
public final class Main {
    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().serializeNulls().create();
    private static final String GROUP = "com.rabbitmq.client";
    private static final String ARTIFACT = "amqp-client";
    private static final List<String> OFFERED_FIELDS = List.of("target", "source", "to", "reply-to");

    /** A refusal the shim answers (`refused`). */
    static final class Refused extends RuntimeException {
        final String code;

        Refused(String code, String reason) {
            super(reason, null, false, false);
            this.code = code;
        }
    }

    /** The library threw something it does not document as a refusal: its crash. */
    static final class Crash extends RuntimeException {
        Crash(Throwable cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    public static void main(String[] args) throws Exception {
        PrintStream protocolOut = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            final JsonObject req;
            try {
                req = JsonParser.parseString(line).getAsJsonObject();
                req.get("id").getAsLong();
            } catch (RuntimeException e) {
                System.err.println("rabbitmq-amqp-java shim: not a request (" + e + "): " + line);
                System.exit(2);
                return;
            }
            protocolOut.println(GSON.toJson(answer(req)));
            protocolOut.flush();
        }
        System.exit(0);
    }

    static JsonObject answer(JsonObject req) {
        JsonObject out = new JsonObject();
        out.addProperty("id", req.get("id").getAsLong());
        JsonElement p = req.get("params");
        JsonObject params = p != null && p.isJsonObject() ? p.getAsJsonObject() : new JsonObject();
        JsonElement op = req.get("op");
        String name = op != null && op.isJsonPrimitive() ? op.getAsString() : "";
        try {
            JsonObject result = switch (name) {
                case "hello" -> hello();
                case "address" -> address(params);
                default -> throw new Refused("not-offered", "no operation '" + name + "' (offered: address)");
            };
            out.addProperty("status", "ok");
            out.add("result", result);
        } catch (Refused r) {
            out.addProperty("status", "refused");
            out.addProperty("code", r.code);
            out.addProperty("reason", r.getMessage());
        } catch (Crash c) {
            Throwable e = c.getCause();
            e.printStackTrace(System.err);
            JsonObject err = new JsonObject();
            err.addProperty("type", e.getClass().getName());
            err.addProperty("message", String.valueOf(e.getMessage()));
            out.addProperty("status", "error");
            out.add("error", err);
        } catch (Throwable e) {
            e.printStackTrace(System.err);
            out.addProperty("status", "refused");
            out.addProperty("code", "not-expressible");
            out.addProperty("reason", "the shim failed (its own code, not the library): " + e.getClass().getName()
                + ": " + e.getMessage());
        }
        return out;
    }

    /** A call into the library that may throw what Java checks. */
    interface LibraryCall<T> {
        T call() throws Exception;
    }

    /** One call into the library: IllegalArgumentException is its refusal, anything else its crash. */
    static <T> T library(LibraryCall<T> call) {
        try {
            return call.call();
        } catch (IllegalArgumentException e) {
            throw new Refused("rejected", e.getClass().getName() + ": " + e.getMessage());
        } catch (Exception | Error e) {
            throw new Crash(e);
        }
    }

    static String text(JsonObject params, String key) {
        JsonElement v = params.get(key);
        if (v == null || !v.isJsonPrimitive() || !v.getAsJsonPrimitive().isString()) {
            throw new Refused("not-expressible", "request: " + key + " must be a string (the builder takes a String), got " + v);
        }
        return v.getAsString();
    }

    static JsonObject address(JsonObject params) {
        JsonElement f = params.get("field");
        String field = f != null && f.isJsonPrimitive() ? f.getAsString() : "";
        if (!OFFERED_FIELDS.contains(field)) {
            throw new Refused("not-offered", "no '" + field + "' address: the shim offers " + String.join(", ", OFFERED_FIELDS));
        }
        boolean names = params.has("queue") || params.has("exchange") || params.has("routing_key");
        JsonObject result = new JsonObject();
        if (!names) {
            if (!field.equals("target")) {
                throw new Refused("not-offered", "a " + field + " address names a queue or an exchange");
            }
            result.addProperty("address", library(MqconformAddresses::publisherTargetWithoutDestination));
            return result;
        }
        String queue = params.has("queue") ? text(params, "queue") : null;
        String exchange = queue == null ? text(params, "exchange") : null;
        String key = queue == null && params.has("routing_key") ? text(params, "routing_key") : null;
        if (field.equals("to") || field.equals("reply-to")) {
            MqconformAddresses.Property p = library(
                () -> MqconformAddresses.messageAddress(field.equals("reply-to"), queue, exchange, key));
            result.addProperty("address", p.value);
            result.addProperty("encoded", Base64.getEncoder().encodeToString(p.encoded));
            return result;
        }
        if (queue == null && field.equals("source")) {
            throw new Refused("not-offered", "a source address is built for a queue only (a consumer takes a queue)");
        }
        result.addProperty("address", queue != null ? library(() -> MqconformAddresses.queue(queue))
            : library(() -> MqconformAddresses.exchange(exchange, key)));
        return result;
    }

    static JsonObject hello() throws Exception {
        String version = libraryVersion();
        JsonObject out = new JsonObject();
        out.addProperty("protocol", "mqconform-process");
        out.addProperty("version", 1);
        out.addProperty("role", "client-library");
        JsonObject impl = new JsonObject();
        impl.addProperty("name", "rabbitmq-amqp-java-client");
        impl.addProperty("version", version);
        out.add("implementation", impl);
        JsonObject offers = JsonParser.parseString("{\"operations\": [\"address\"], \"address\": "
            + "{\"target\": [\"queue\", \"exchange\", \"exchange-key\", \"null\"], \"source\": [\"queue\"], "
            + "\"to\": [\"queue\", \"exchange\", \"exchange-key\"], "
            + "\"reply-to\": [\"queue\", \"exchange\", \"exchange-key\"]}}").getAsJsonObject();
        out.add("offers", offers);
        out.addProperty("library", GROUP + ":" + ARTIFACT + ":" + version);
        out.addProperty("builder", "com.rabbitmq.client.amqp.impl.DefaultAddressBuilder (Utils.addressBuilder()); "
            + "Message.toAddress() / replyToAddress() of the message Publisher.message() makes; "
            + "AmqpPublisherBuilder.address() for a publisher given no destination");
        return out;
    }

    /** The library's version as its jar's Maven metadata says it. */
    static String libraryVersion() throws Exception {
        String path = "/META-INF/maven/" + GROUP + "/" + ARTIFACT + "/pom.properties";
        try (InputStream s = MqconformAddresses.class.getResourceAsStream(path)) {
            if (s == null) {
                throw new IllegalStateException("no " + path + " in the library's jar");
            }
            Properties props = new Properties();
            props.load(s);
            return props.getProperty("version");
        }
    }
}
