package io.nyala.itests.nemesis;

/** What an operation of a history does. */
enum OpType {
  /** INSERT of a unique key (set workload). */
  INSERT,
  /** Single-key read of a register. */
  READ,
  /** UPSERT of a unique value into a register. */
  WRITE,
  /** Two balances moved in one batch (bank workload). */
  TRANSFER,
  /** A snapshot scan of every account, the value is the sum (bank workload). */
  SCAN_TOTAL,
  /** A fault the nemesis applied (invoke) and healed (ok or fail). */
  FAULT
}
