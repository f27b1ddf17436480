package mqconform.cecodec;

/**
 * A `refused` result (docs/process-protocol.md): `code` is one of the protocol's refusal codes,
 * the message its non-empty reason. The shim's own code raises `not-expressible` (what the SDK's or
 * proton-j's API cannot hold, a malformed request) and `not-offered`, never `rejected`: that is the
 * SDK's answer alone (Sdk.call, from the exceptions the SDK documents).
 */
final class Refused extends RuntimeException {
    static final String REJECTED = "rejected";
    static final String NOT_OFFERED = "not-offered";
    static final String NOT_EXPRESSIBLE = "not-expressible";

    final String code;

    Refused(String code, String reason) {
        super(reason, null, false, false);
        this.code = code;
    }

    /** The shim cannot say this in the implementation's API (or the request itself is malformed). */
    static Refused notExpressible(String reason) {
        return new Refused(NOT_EXPRESSIBLE, reason);
    }
}
