package mqconform.cecodec;

import io.cloudevents.core.format.EventDeserializationException;
import io.cloudevents.core.format.EventSerializationException;
import io.cloudevents.rw.CloudEventRWException;

import java.util.function.Supplier;

/**
 * A call into the SDK, and which of its exceptions are its documented refusals. The SDK 2.3.0
 * documents (javadoc @throws of the methods the shim calls): CloudEventRWException (reading,
 * writing, building, SpecVersion.parse, the builder's withContextAttribute), IllegalStateException
 * (CloudEventBuilder.build with a required attribute missing, MessageReader.read / toEvent),
 * IllegalArgumentException (withContextAttribute given specversion, MessageWriter.writeStructured
 * with no such format), EventSerializationException / EventDeserializationException (EventFormat).
 * Those become `refused` code `rejected` with the exception's class and message; anything else it
 * throws is its crash (Crash, answered `status: error`). Only the SDK's calls go through here: an
 * exception of the shim's own code is never the SDK's verdict, neither a refusal nor a crash (Main
 * answers it `not-expressible`, the shim's failure).
 */
final class Sdk {
    private Sdk() {
    }

    /** The SDK threw something it does not document as a refusal: its crash, answered `status: error`. */
    static final class Crash extends RuntimeException {
        Crash(Throwable cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    static <T> T call(Supplier<T> f) {
        try {
            return f.get();
        } catch (Refused | Crash e) {
            throw e;
        } catch (CloudEventRWException e) {
            throw new Refused(Refused.REJECTED, e.getClass().getName() + " (" + e.getKind() + "): " + text(e));
        } catch (EventSerializationException | EventDeserializationException | IllegalArgumentException
                 | IllegalStateException e) {
            throw new Refused(Refused.REJECTED, e.getClass().getName() + ": " + text(e));
        } catch (RuntimeException | Error e) {
            throw new Crash(e);
        }
    }

    static void run(Runnable f) {
        call(() -> {
            f.run();
            return null;
        });
    }

    /** The message, with its causes' (the SDK wraps parse errors). */
    static String text(Throwable e) {
        StringBuilder b = new StringBuilder(String.valueOf(e.getMessage()));
        int depth = 0;
        for (Throwable c = e.getCause(); c != null && depth < 5; c = c.getCause(), depth++) {
            b.append(" <- ").append(c.getClass().getName()).append(": ").append(c.getMessage());
        }
        return b.toString();
    }
}
