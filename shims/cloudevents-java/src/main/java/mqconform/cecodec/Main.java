package mqconform.cecodec;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * mqconform's shim for the CloudEvents Java SDK's AMQP 1.0 binding, role `cloudevents-codec` of
 * docs/process-protocol.md. The rules it keeps:
 *  - stdout carries protocol lines only: System.out is pointed at stderr before anything else runs;
 *  - `hello` is answered in order, before any other request is read; every other request is
 *    answered on a worker thread (several may be in flight; each encode / decode uses its own SDK
 *    writer and reader, and results are written one whole line at a time);
 *  - a line that is not a request object cannot be answered (it has no id): it is logged and the
 *    process exits non-zero, which the harness reports as the shim's failure;
 *  - stdin's end ends the process, after the requests in flight are answered;
 *  - only the SDK's exceptions are its answer (Sdk.call: `rejected` or a crash, `status: error`);
 *    an exception of the shim's own code is `not-expressible`, "the shim failed", never the SDK's.
 */
public final class Main {
    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().serializeNulls().create();
    private static PrintStream protocolOut;

    public static void main(String[] args) throws Exception {
        protocolOut = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()), r -> {
            Thread t = new Thread(r, "codec-request");
            t.setDaemon(true);
            return t;
        });
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
                req.get("op").getAsString();
            } catch (RuntimeException e) {
                System.err.println("cloudevents-java shim: not a request (" + e + "): " + line);
                System.exit(2);
                return;
            }
            if ("hello".equals(req.get("op").getAsString())) {
                answer(req);
            } else {
                pool.submit(() -> answer(req));
            }
        }
        pool.shutdown();
        pool.awaitTermination(30, TimeUnit.SECONDS);
        System.exit(0);
    }

    private static void answer(JsonObject req) {
        long id = req.get("id").getAsLong();
        String op = req.get("op").getAsString();
        JsonElement p = req.get("params");
        JsonObject params = p != null && p.isJsonObject() ? p.getAsJsonObject() : new JsonObject();
        JsonObject out = new JsonObject();
        out.addProperty("id", id);
        try {
            JsonObject result = Codec.dispatch(op, params);
            out.addProperty("status", "ok");
            out.add("result", result);
        } catch (Refused r) {
            out.addProperty("status", "refused");
            out.addProperty("code", r.code);
            out.addProperty("reason", r.getMessage());
        } catch (Sdk.Crash c) {
            Throwable e = c.getCause();
            e.printStackTrace(System.err);
            JsonObject err = new JsonObject();
            err.addProperty("type", e.getClass().getName());
            err.addProperty("message", Sdk.text(e));
            out.addProperty("status", "error");
            out.add("error", err);
        } catch (Throwable e) {
            e.printStackTrace(System.err);
            out.addProperty("status", "refused");
            out.addProperty("code", Refused.NOT_EXPRESSIBLE);
            out.addProperty("reason", "the shim failed (its own code, not the SDK): " + e.getClass().getName() + ": "
                + Sdk.text(e));
        }
        String text = GSON.toJson(out);
        synchronized (Main.class) {
            protocolOut.println(text);
            protocolOut.flush();
        }
    }
}
