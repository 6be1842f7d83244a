package io.nyala.client;

/** The outcome of one applied operation: success, or its {@link RowError}. */
public final class OperationResponse {
  private final Operation operation;
  private final RowError rowError;
  private final long writeIndex;

  /**
   * A response.
   *
   * @param operation the operation
   * @param rowError its error, or null on success
   * @param writeIndex the Raft index that applied its batch, 0 if unknown
   */
  OperationResponse(Operation operation, RowError rowError, long writeIndex) {
    this.operation = operation;
    this.rowError = rowError;
    this.writeIndex = writeIndex;
  }

  /** @return the operation this responds to */
  public Operation getOperation() {
    return operation;
  }

  /** @return whether the operation failed */
  public boolean hasRowError() {
    return rowError != null;
  }

  /** @return the failure, or null if the operation succeeded */
  public RowError getRowError() {
    return rowError;
  }

  /**
   * The tablet's Raft index that applied the operation's batch (its MVCC timestamp), or 0 if the
   * batch failed.
   *
   * @return the write index
   */
  public long getWriteIndex() {
    return writeIndex;
  }

  @Override
  public String toString() {
    return hasRowError() ? "failed: " + rowError : "ok: " + operation;
  }
}
