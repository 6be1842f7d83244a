package io.nyala.itests.nemesis;

import io.nyala.client.OperationResponse;
import io.nyala.common.StatusCode;
import java.util.Set;

/**
 * Turns a write's answer into a history outcome. Only errors a tablet answers for the row itself
 * prove that it did not apply; anything else (a timeout, an unreachable or deposed leader, a
 * busy server) may follow an attempt that applied, so it is unknown.
 */
final class Outcomes {
  /** Row errors after which the row definitely did not apply. */
  private static final Set<StatusCode> DEFINITE =
      Set.of(StatusCode.ALREADY_PRESENT, StatusCode.NOT_FOUND, StatusCode.INVALID_ARGUMENT);

  private Outcomes() {}

  static Outcome of(OperationResponse r) {
    if (!r.hasRowError()) {
      return Outcome.OK;
    }
    return DEFINITE.contains(r.getRowError().getErrorStatus().code())
        ? Outcome.FAIL : Outcome.UNKNOWN;
  }

  /** The error of a failed write for the history, or null. */
  static String note(OperationResponse r) {
    return r.hasRowError() ? r.getRowError().getErrorStatus().code().name() : null;
  }
}
