package io.nyala.common.row;

import io.nyala.common.InternalApi;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.RowOperationsPB;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The encoding of a batch of row operations against a schema. Per operation: the op type (1
 * byte), a bitmap of the columns set, a bitmap of those set to null, then the value of each
 * set, non-null column in schema order.
 */
@InternalApi
public final class RowOperations {
  private RowOperations() {}

  /** One decoded operation. */
  public record Op(RowOpType type, PartialRow row) {}

  /** Encodes operations (each row's schema must be {@code schema}). */
  public static RowOperationsPB encode(Schema schema, List<Op> ops) {
    ByteWriter w = new ByteWriter(64 * ops.size());
    for (Op op : ops) {
      encodeOne(w, schema, op);
    }
    return RowOperationsPB.newBuilder()
        .setRows(com.google.protobuf.UnsafeByteOperations.unsafeWrap(w.array(), 0, w.size()))
        .setCount(ops.size())
        .build();
  }

  /** Appends one operation; returns the bytes it took. */
  public static int encodeOne(ByteWriter w, Schema schema, Op op) {
    int start = w.size();
    int n = schema.columnCount();
    int bitmapBytes = (n + 7) / 8;
    w.writeByte(op.type().code());
    PartialRow row = op.row();
    int setAt = w.size();
    for (int i = 0; i < bitmapBytes * 2; i++) {
      w.writeByte(0);
    }
    int setByte = 0;
    int nullByte = 0;
    for (int i = 0; i < n; i++) {
      if (row.isSet(i)) {
        setByte |= 1 << (i & 7);
        Object v = row.get(i);
        if (v == null) {
          nullByte |= 1 << (i & 7);
        } else {
          ValueCodec.write(w, schema.column(i).type(), v);
        }
      }
      if ((i & 7) == 7 || i == n - 1) {
        w.setByte(setAt + i / 8, setByte);
        w.setByte(setAt + bitmapBytes + i / 8, nullByte);
        setByte = 0;
        nullByte = 0;
      }
    }
    return w.size() - start;
  }

  /** Decodes a batch; malformed input is a CORRUPTION error naming the offset. */
  public static List<Op> decode(Schema schema, RowOperationsPB pb) {
    return decode(schema, pb, StatusCode.CORRUPTION);
  }

  /**
   * Decodes a batch; malformed input fails with {@code onBad} (INVALID_ARGUMENT for a client's
   * request, CORRUPTION for a logged entry), naming the offset. The declared count is checked
   * against the bytes present before anything is allocated for it.
   */
  public static List<Op> decode(Schema schema, RowOperationsPB pb, StatusCode onBad) {
    byte[] bytes = pb.getRows().toByteArray();
    ByteReader r = new ByteReader(bytes, 0, bytes.length, "row operations", onBad);
    int n = schema.columnCount();
    int bitmapBytes = (n + 7) / 8;
    r.checkCount("row operation", pb.getCount(), 1 + 2 * bitmapBytes);
    List<Op> out = new ArrayList<>(pb.getCount());
    while (r.hasRemaining()) {
      RowOpType type = opType(r);
      byte[] setBm = r.readBytes(bitmapBytes);
      byte[] nullBm = r.readBytes(bitmapBytes);
      Object[] values = new Object[n];
      BitSet set = new BitSet(n);
      for (int i = 0; i < n; i++) {
        if ((setBm[i / 8] & (1 << (i & 7))) != 0) {
          set.set(i);
          if ((nullBm[i / 8] & (1 << (i & 7))) == 0) {
            values[i] = checked(schema.column(i), ValueCodec.read(r, schema.column(i).type()));
          }
        }
      }
      out.add(new Op(type, PartialRow.of(schema, values, set)));
    }
    if (pb.getCount() != out.size()) {
      throw r.bad("row operations say %d rows but hold %d", pb.getCount(), out.size());
    }
    return out;
  }

  /**
   * A value of a type with limits beyond its encoding (a DECIMAL's precision and scale, a
   * VARCHAR's length, DATE's years) checked as the client's row was: a server never takes a
   * value its client library would have refused.
   */
  private static Object checked(ColumnSchema c, Object v) {
    return switch (c.type()) {
      case DECIMAL, VARCHAR, DATE -> c.checkValue(v);
      default -> v;
    };
  }

  private static RowOpType opType(ByteReader r) {
    int at = r.position();
    int code = r.readByte();
    try {
      return RowOpType.fromCode(code);
    } catch (io.nyala.common.NyalaException e) {
      throw r.bad("%s at offset %d", e.detail(), at);
    }
  }
}
