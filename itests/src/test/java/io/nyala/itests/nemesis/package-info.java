/**
 * A Jepsen-style nemesis suite (docs/testing.md, "Nemesis and checkers"): client workloads
 * (set, register, bank) record every operation in a {@code History} while a seeded
 * {@code Nemesis} applies and heals {@code Fault}s to a process-mode minicluster; checkers
 * ({@code SetChecker}, {@code RegisterChecker}, {@code BankChecker}) then judge the history.
 * Owns test code only: talks to the cluster through the client and the minicluster's public
 * API, never through server internals.
 */
package io.nyala.itests.nemesis;
