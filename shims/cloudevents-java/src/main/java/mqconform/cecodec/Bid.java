package mqconform.cecodec;

import org.apache.qpid.proton.amqp.Decimal128;
import org.apache.qpid.proton.amqp.Decimal32;
import org.apache.qpid.proton.amqp.Decimal64;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * The AMQP 1.0 decimal32/64/128 (IEEE 754-2008 decimals) as the project reads and writes them
 * (fixtures/codecs/wire_amqp10.py): the BID encoding, and the MESSAGE form's `decimal` written as a
 * decimal128. proton-j keeps only the bit patterns, so the conversion is done here. The string form
 * is the decimal's scientific string (BigDecimal.toString, the same rules as Python's str(Decimal)),
 * or NaN / sNaN / Infinity with a sign.
 */
final class Bid {
    private Bid() {
    }

    /** width -> exponent bits, exponent bias, digits of precision. */
    private static int[] format(int width) {
        switch (width) {
            case 32: return new int[] {8, 101, 7};
            case 64: return new int[] {10, 398, 16};
            case 128: return new int[] {14, 6176, 34};
            default: throw new IllegalArgumentException("decimal" + width);
        }
    }

    static String toText(Object d) {
        if (d instanceof Decimal32 x) {
            return text(BigInteger.valueOf(x.getBits() & 0xFFFFFFFFL), 32);
        }
        if (d instanceof Decimal64 x) {
            return text(new BigInteger(Long.toUnsignedString(x.getBits())), 64);
        }
        Decimal128 x = (Decimal128) d;
        return text(new BigInteger(1, x.asBytes()), 128);
    }

    private static String text(BigInteger bits, int width) {
        int[] f = format(width);
        int ebits = f[0], bias = f[1], digits = f[2];
        boolean neg = bits.testBit(width - 1);
        String sign = neg ? "-" : "";
        int top5 = bits.shiftRight(width - 6).intValue() & 0b11111;
        if (top5 == 0b11110) {
            return sign + "Infinity";
        }
        if (top5 == 0b11111) {
            return sign + (bits.testBit(width - 7) ? "sNaN" : "NaN");
        }
        int cbits = width - 1 - ebits;
        BigInteger coeff;
        int biased;
        if ((bits.shiftRight(width - 3).intValue() & 0b11) == 0b11) {
            int low = cbits - 2;
            biased = bits.shiftRight(low).intValue() & ((1 << ebits) - 1);
            coeff = BigInteger.valueOf(0b100).shiftLeft(low).or(bits.and(BigInteger.ONE.shiftLeft(low).subtract(BigInteger.ONE)));
        } else {
            biased = bits.shiftRight(cbits).intValue() & ((1 << ebits) - 1);
            coeff = bits.and(BigInteger.ONE.shiftLeft(cbits).subtract(BigInteger.ONE));
        }
        if (coeff.compareTo(BigInteger.TEN.pow(digits)) >= 0) {
            coeff = BigInteger.ZERO;     // non-canonical: IEEE 754 reads it as zero
        }
        BigDecimal v = new BigDecimal(coeff, bias - biased);
        return (neg ? "-" : "") + v.toString();
    }

    /** The decimal128 of a decimal string; null when it does not fit one exactly. */
    static Decimal128 decimal128(String s) {
        final int width = 128;
        int[] f = format(width);
        int ebits = f[0], bias = f[1], digits = f[2];
        boolean neg = s.startsWith("-");
        String body = neg || s.startsWith("+") ? s.substring(1) : s;
        BigInteger sign = neg ? BigInteger.ONE.shiftLeft(width - 1) : BigInteger.ZERO;
        BigInteger bits;
        switch (body) {
            case "Infinity", "Inf" -> bits = sign.or(BigInteger.valueOf(0b11110).shiftLeft(width - 6));
            case "NaN" -> bits = sign.or(BigInteger.valueOf(0b11111).shiftLeft(width - 6));
            case "sNaN" -> bits = sign.or(BigInteger.valueOf(0b111111).shiftLeft(width - 7));
            default -> {
                if (body.startsWith("-") || body.startsWith("+")) {
                    throw new NumberFormatException("two signs");
                }
                BigDecimal v = new BigDecimal(body);
                BigInteger coeff = v.unscaledValue();
                int biased = -v.scale() + bias;
                if (coeff.compareTo(BigInteger.TEN.pow(digits)) >= 0 || biased < 0 || biased >= 3 << (ebits - 2)) {
                    return null;
                }
                int cbits = width - 1 - ebits;
                if (coeff.bitLength() <= cbits) {
                    bits = sign.or(BigInteger.valueOf(biased).shiftLeft(cbits)).or(coeff);
                } else {
                    int low = cbits - 2;
                    bits = sign.or(BigInteger.valueOf(0b11).shiftLeft(width - 3)).or(BigInteger.valueOf(biased).shiftLeft(low))
                        .or(coeff.and(BigInteger.ONE.shiftLeft(low).subtract(BigInteger.ONE)));
                }
            }
        }
        byte[] raw = bits.toByteArray();
        byte[] out = new byte[16];
        int n = Math.min(raw.length, 16);
        System.arraycopy(raw, raw.length - n, out, 16 - n, n);
        return new Decimal128(out);
    }
}
