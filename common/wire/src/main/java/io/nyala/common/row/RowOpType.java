package io.nyala.common.row;

import io.nyala.common.NyalaException;

/**
 * The kinds of row operation a Write carries. The IGNORE variants turn the usual error into a
 * no-op.
 */
public enum RowOpType {
  /** Adds a row; ALREADY_PRESENT if its key exists. */
  INSERT(1),
  /** Adds a row, or replaces the set columns of the row of its key. */
  UPSERT(2),
  /** Changes the set columns of the row of its key; NOT_FOUND if none. */
  UPDATE(3),
  /** Removes the row of its key; NOT_FOUND if none. */
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

  /**
   * The type's number in an encoded operation batch.
   *
   * @return the code, 1 to 7
   */
  public int code() {
    return code;
  }

  /**
   * The type of an encoded operation.
   *
   * @param code a number read from an operation batch
   * @return the type
   * @throws NyalaException CORRUPTION naming the code if no type has it
   */
  public static RowOpType fromCode(int code) {
    for (RowOpType t : values()) {
      if (t.code == code) {
        return t;
      }
    }
    throw NyalaException.corruption("unknown row operation type %d", code);
  }

  /**
   * Whether the op only needs the key columns.
   *
   * @return true for DELETE and DELETE_IGNORE
   */
  public boolean isDelete() {
    return this == DELETE || this == DELETE_IGNORE;
  }
}
