package io.nyala.client;

import java.util.List;

/**
 * The row errors a session collected in the background, and whether some were dropped because
 * the session holds only so many.
 */
public final class RowErrorsAndOverflowStatus {
  private final List<RowError> rowErrors;
  private final boolean overflowed;

  RowErrorsAndOverflowStatus(List<RowError> rowErrors, boolean overflowed) {
    this.rowErrors = List.copyOf(rowErrors);
    this.overflowed = overflowed;
  }

  /** @return the collected errors, oldest first */
  public List<RowError> getRowErrors() {
    return rowErrors;
  }

  /** @return whether errors were dropped because the session's error store was full */
  public boolean isOverflowed() {
    return overflowed;
  }

  @Override
  public String toString() {
    return rowErrors.size() + " row errors" + (overflowed ? " (more were dropped)" : "");
  }
}
