package io.nyala.client;

import io.nyala.common.row.ByteWriter;
import io.nyala.common.row.RowOperations;
import java.util.ArrayList;
import java.util.List;

/**
 * The operations a {@link NyalaSession} holds before it flushes them, with their encoded size,
 * so that AUTO_FLUSH_BACKGROUND can flush by operations or by bytes. Not thread-safe: the
 * session's lock guards it.
 */
final class SessionBuffer {
  /** The operations taken from a buffer to be flushed together, and their encoded bytes. */
  record Taken(List<Operation> ops, long bytes) {}

  private List<Operation> ops = new ArrayList<>();
  private long bytes;
  /** Bumped whenever the buffer is taken, so a stale interval timer flushes nothing. */
  private long generation;

  /** The bytes {@code op} adds to a write request; call outside the session's lock. */
  static long encodedBytes(Operation op) {
    ByteWriter w = new ByteWriter(64);
    return RowOperations.encodeOne(w, op.getTable().getSchema(), op.toOp());
  }

  void add(Operation op, long opBytes) {
    ops.add(op);
    bytes += opBytes;
  }

  /** Empties the buffer and returns what it held. */
  Taken take() {
    Taken t = new Taken(ops, bytes);
    ops = new ArrayList<>();
    bytes = 0;
    generation++;
    return t;
  }

  int size() {
    return ops.size();
  }

  boolean isEmpty() {
    return ops.isEmpty();
  }

  long bytes() {
    return bytes;
  }

  long generation() {
    return generation;
  }
}
