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
 * throws propagates and is answered `status: error` (a crash).
 */
final class Sdk {
    private Sdk() {
    }

    static <T> T call(Supplier<T> f) {
        try {
            return f.get();
        } catch (CloudEventRWException e) {
            throw new Refused(Refused.REJECTED, e.getClass().getName() + " (" + e.getKind() + "): " + text(e));
        } catch (EventSerializationException | EventDeserializationException | IllegalArgumentException
                 | IllegalStateException e) {
            throw new Refused(Refused.REJECTED, e.getClass().getName() + ": " + text(e));
        }
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
