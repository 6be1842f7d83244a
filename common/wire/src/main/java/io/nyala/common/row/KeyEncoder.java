package io.nyala.common.row;

import io.nyala.common.InternalApi;
import io.nyala.common.NyalaException;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Timestamps;
import io.nyala.common.schema.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;

/**
 * Order-preserving ("memcomparable") encoding of primary keys: comparing encoded keys as
 * unsigned bytes orders rows as their key values do. Integers are big-endian with the sign bit
 * flipped (DATE as its int32 days, TIMESTAMP as its int64 micros, DECIMAL as its 128-bit unscaled
 * value at the column's scale); strings (VARCHAR too) and binaries are raw when last, otherwise
 * 0x00 is escaped as 0x00 0x01 and the value ends with 0x00 0x00.
 */
@InternalApi
public final class KeyEncoder {
  private KeyEncoder() {}

  /** Encodes the leading {@code columns.size()} values of {@code values}. */
  public static byte[] encode(List<ColumnSchema> columns, Object[] values) {
    ByteWriter w = new ByteWriter(32);
    for (int i = 0; i < columns.size(); i++) {
      Object v = values[i];
      if (v == null) {
        throw NyalaException.invalidArgument(
            "row is missing key column '%s'", columns.get(i).name());
      }
      encodeColumn(w, columns.get(i), v, i == columns.size() - 1);
    }
    return w.toByteArray();
  }

  static void encodeColumn(ByteWriter w, ColumnSchema c, Object v, boolean last) {
    Type t = c.type();
    switch (t) {
      case INT8 -> w.writeByte(((Byte) v) ^ 0x80);
      case INT16 -> w.writeShort(((Short) v) ^ 0x8000);
      case INT32 -> w.writeInt(((Integer) v) ^ Integer.MIN_VALUE);
      case INT64, UNIXTIME_MICROS -> w.writeLong(((Long) v) ^ Long.MIN_VALUE);
      case DATE -> w.writeInt(Math.toIntExact(((LocalDate) v).toEpochDay()) ^ Integer.MIN_VALUE);
      case TIMESTAMP -> w.writeLong(Timestamps.toMicros(c.name(), (Instant) v) ^ Long.MIN_VALUE);
      case DECIMAL -> {
        // At the column's scale, unscaled values order as the decimals do.
        BigDecimal d = (BigDecimal) c.checkLiteral(v);
        byte[] b = Decimals.toBytes128(d.unscaledValue());
        b[0] ^= (byte) 0x80;
        w.writeBytes(b);
      }
      case STRING, VARCHAR, BINARY -> {
        byte[] b = t != Type.BINARY
            ? ((String) v).getBytes(StandardCharsets.UTF_8) : (byte[]) v;
        if (last) {
          w.writeBytes(b);
        } else {
          for (byte x : b) {
            w.writeByte(x);
            if (x == 0) {
              w.writeByte(1);
            }
          }
          w.writeByte(0);
          w.writeByte(0);
        }
      }
      default -> throw NyalaException.invalidArgument("type %s cannot be in a key", t);
    }
  }

  /** Decodes an encoded key back into values for {@code columns}. */
  public static Object[] decode(List<ColumnSchema> columns, byte[] key) {
    ByteReader r = new ByteReader(key, "encoded key");
    Object[] out = new Object[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      ColumnSchema c = columns.get(i);
      Type t = c.type();
      boolean last = i == columns.size() - 1;
      out[i] = switch (t) {
        case INT8 -> (byte) (r.readByte() ^ 0x80);
        case INT16 -> (short) (r.readShort() ^ 0x8000);
        case INT32 -> r.readInt() ^ Integer.MIN_VALUE;
        case INT64, UNIXTIME_MICROS -> r.readLong() ^ Long.MIN_VALUE;
        case DATE -> LocalDate.ofEpochDay(r.readInt() ^ Integer.MIN_VALUE);
        case TIMESTAMP -> Timestamps.fromMicros(r.readLong() ^ Long.MIN_VALUE);
        case DECIMAL -> {
          byte[] b = r.readBytes(16);
          b[0] ^= (byte) 0x80;
          yield new BigDecimal(new BigInteger(b), c.typeAttributes().scale());
        }
        case STRING, VARCHAR, BINARY -> {
          byte[] b = last ? r.readBytes(key.length - r.position()) : readEscaped(r);
          yield t != Type.BINARY ? new String(b, StandardCharsets.UTF_8) : b;
        }
        default -> throw NyalaException.corruption("type %s cannot be in a key", t);
      };
    }
    return out;
  }

  private static byte[] readEscaped(ByteReader r) {
    ByteWriter w = new ByteWriter(16);
    while (true) {
      int b = r.readByte();
      if (b == 0) {
        int next = r.readByte();
        if (next == 0) {
          return w.toByteArray();
        }
        w.writeByte(0);
      } else {
        w.writeByte(b);
      }
    }
  }

  /** Unsigned lexicographic comparison of encoded keys. */
  public static int compare(byte[] a, byte[] b) {
    return Arrays.compareUnsigned(a, b);
  }
}
