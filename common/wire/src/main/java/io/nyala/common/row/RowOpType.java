package io.nyala.common.row;

import io.nyala.common.NyalaException;

/**
 * The kinds of row operation a Write carries. The IGNORE variants turn the usual error into a
 * no-op.
 */
public enum RowOpType {
  INSERT(1),
  UPSERT(2),
  UPDATE(3),
  DELETE(4),
  /** INSERT that ignores an already-present key. */
  INSERT_IGNORE(5),
  /** UPDATE that ignores a missing key. */
  UPDATE_IGNORE(6),
  /** DELETE that ignores a missing key. */
  DELETE_IGNORE(7);

  private final int code;

  RowOpType(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static RowOpType fromCode(int code) {
    for (RowOpType t : values()) {
      if (t.code == code) {
        return t;
      }
    }
    throw NyalaException.corruption("unknown row operation type %d", code);
  }

  /** Whether the op only needs the key columns. */
  public boolean isDelete() {
    return this == DELETE || this == DELETE_IGNORE;
  }
}
