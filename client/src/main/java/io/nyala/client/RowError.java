package io.nyala.client;

/**
 * The failure of one applied operation: either the tablet server rejected the row (e.g. its key
 * already exists) or the batch it was in failed as a whole (e.g. timed out).
 */
public final class RowError {
  private final Operation operation;
  private final ErrorStatus status;
  private final String tabletId;

  /**
   * A row error.
   *
   * @param operation the failed operation
   * @param status why it failed
   * @param tabletId the tablet it was sent to, or empty if it never got that far
   */
  public RowError(Operation operation, ErrorStatus status, String tabletId) {
    this.operation = operation;
    this.status = status;
    this.tabletId = tabletId == null ? "" : tabletId;
  }

  /** @return the operation that failed */
  public Operation getOperation() {
    return operation;
  }

  /** @return the code and message of the failure */
  public ErrorStatus getErrorStatus() {
    return status;
  }

  /** @return the tablet the operation was sent to, or empty if it was not sent */
  public String getTabletId() {
    return tabletId;
  }

  @Override
  public String toString() {
    return status + " (" + operation + (tabletId.isEmpty() ? "" : " on tablet " + tabletId) + ")";
  }
}
