package io.nyala.tserver.tablet.cfile;

import io.nyala.common.row.ByteReader;
import io.nyala.common.row.ByteWriter;
import io.nyala.common.row.ValueCodec;
import io.nyala.common.schema.Type;

/**
 * Plain encoding of one column page: {@code [u32 count][null bitmap, if nullable][values]} where
 * only non-null values are written, fixed-width types big-endian and strings/binaries
 * length-prefixed ({@link ValueCodec}). Framed by {@link Checksums} on disk.
 */
final class PageCodec {
  private PageCodec() {}

  static byte[] encode(Type type, boolean nullable, Object[] values, int from, int count) {
    ByteWriter w = new ByteWriter(64 + count * Math.max(1, type.fixedSize()));
    w.writeInt(count);
    if (nullable) {
      byte[] bitmap = new byte[(count + 7) / 8];
      for (int i = 0; i < count; i++) {
        if (values[from + i] == null) {
          bitmap[i >>> 3] |= (byte) (1 << (i & 7));
        }
      }
      w.writeBytes(bitmap);
    }
    for (int i = 0; i < count; i++) {
      Object v = values[from + i];
      if (v != null) {
        ValueCodec.write(w, type, v);
      }
    }
    return w.toByteArray();
  }

  static Object[] decode(Type type, boolean nullable, byte[] buf, int off, int len, String what) {
    ByteReader r = new ByteReader(buf, off, len, what);
    int count = r.readInt();
    // The count sizes the page's array: the bytes present must be able to hold that many.
    if (count < 0 || (nullable && (count + 7L) / 8 > r.remaining())) {
      throw r.bad("%s: value count %d does not fit the %d bytes left", what, count,
          r.remaining());
    }
    byte[] bitmap = nullable ? r.readBytes((int) ((count + 7L) / 8)) : null;
    if (!nullable) {
      r.checkCount("value", count, type.fixedSize() > 0 ? type.fixedSize() : 4);
    }
    Object[] out = new Object[count];
    for (int i = 0; i < count; i++) {
      if (bitmap != null && (bitmap[i >>> 3] & (1 << (i & 7))) != 0) {
        continue;
      }
      out[i] = ValueCodec.read(r, type);
    }
    return out;
  }
}
