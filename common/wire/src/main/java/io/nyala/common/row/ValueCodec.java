package io.nyala.common.row;

import io.nyala.common.InternalApi;
import io.nyala.common.schema.Timestamps;
import io.nyala.common.schema.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Encodes single column values for the row formats and the tserver's column pages (not
 * order-preserving; see KeyEncoder). Changing it changes those on-disk formats too. A DECIMAL is
 * its scale (one byte) and its unscaled value in 16 bytes, so that a value reads back without
 * its column (docs/architecture.md, "Column types").
 */
@InternalApi
public final class ValueCodec {
  private ValueCodec() {}

  /**
   * Appends a value.
   *
   * @param w where to write
   * @param t the value's type
   * @param v a non-null value of {@code t}
   */
  public static void write(ByteWriter w, Type t, Object v) {
    switch (t) {
      case INT8 -> w.writeByte((Byte) v);
      case INT16 -> w.writeShort((Short) v);
      case INT32 -> w.writeInt((Integer) v);
      case INT64, UNIXTIME_MICROS -> w.writeLong((Long) v);
      case BOOL -> w.writeByte(((Boolean) v) ? 1 : 0);
      case FLOAT -> w.writeInt(Float.floatToRawIntBits((Float) v));
      case DOUBLE -> w.writeLong(Double.doubleToRawLongBits((Double) v));
      case STRING, VARCHAR -> w.writeString((String) v);
      case BINARY -> w.writeLengthPrefixed((byte[]) v);
      case DECIMAL -> {
        BigDecimal d = (BigDecimal) v;
        w.writeByte(d.scale());
        w.writeBytes(Decimals.toBytes128(d.unscaledValue()));
      }
      case DATE -> w.writeInt(Math.toIntExact(((LocalDate) v).toEpochDay()));
      case TIMESTAMP -> w.writeLong(Timestamps.toMicros("", (Instant) v));
      default -> throw new AssertionError(t);
    }
  }

  /**
   * The bytes {@link #write} takes for {@code v} (a string's UTF-8 length, counted).
   *
   * @param t the value's type
   * @param v a non-null value of {@code t}
   * @return the size in bytes
   */
  public static int encodedSize(Type t, Object v) {
    return switch (t) {
      case STRING, VARCHAR -> 4 + utf8Length((String) v);
      case BINARY -> 4 + ((byte[]) v).length;
      default -> t.fixedSize();
    };
  }

  private static int utf8Length(String s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n++;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }

  /**
   * Reads a value {@link #write} wrote.
   *
   * @param r where to read
   * @param t the value's type
   * @return the value
   */
  public static Object read(ByteReader r, Type t) {
    return switch (t) {
      case INT8 -> (byte) r.readByte();
      case INT16 -> r.readShort();
      case INT32 -> r.readInt();
      case INT64, UNIXTIME_MICROS -> r.readLong();
      case BOOL -> r.readByte() != 0;
      case FLOAT -> Float.intBitsToFloat(r.readInt());
      case DOUBLE -> Double.longBitsToDouble(r.readLong());
      case STRING, VARCHAR -> r.readString();
      case BINARY -> r.readLengthPrefixed();
      case DECIMAL -> {
        int scale = r.readByte();
        yield new BigDecimal(new BigInteger(r.readBytes(16)), scale);
      }
      case DATE -> LocalDate.ofEpochDay(r.readInt());
      case TIMESTAMP -> Timestamps.fromMicros(r.readLong());
    };
  }
}
