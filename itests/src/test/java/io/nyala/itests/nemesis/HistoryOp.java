package io.nyala.itests.nemesis;

/**
 * One event of a {@link History}: an invocation or its completion.
 *
 * @param id the operation's id: an invocation and its completion share it
 * @param process the client thread, or -1 for the nemesis
 * @param type what the operation does
 * @param outcome invoke, or how it completed
 * @param key the row key (0 where none)
 * @param value the value written or read (null: none, or the row was absent)
 * @param nanos monotonic time since the run started
 * @param note free text: a fault's target, a transfer's accounts, an error
 */
record HistoryOp(long id, int process, OpType type, Outcome outcome, long key, Long value,
    long nanos, String note) {

  /** One line: {@code  12.345678 p3 WRITE ok k=2 v=17 (note)}. */
  String toLine() {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format("%11.6f %s %-10s %-7s #%d", nanos / 1e9,
        process < 0 ? "nemesis" : "p" + process, type, outcome.name().toLowerCase(), id));
    if (type != OpType.FAULT) {
      sb.append(" k=").append(key);
    }
    if (value != null) {
      sb.append(" v=").append(value);
    }
    if (note != null && !note.isEmpty()) {
      sb.append(" (").append(note).append(')');
    }
    return sb.toString();
  }
}
