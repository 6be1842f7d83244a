package io.nyala.itests.nemesis;

/**
 * The state of an operation in a history: invoked, then exactly one of ok, fail or unknown.
 * Unknown means the client cannot tell whether a write applied (a timeout, a lost connection,
 * a server that died): it may take effect at any time after its invocation, or never.
 */
enum Outcome {
  INVOKE,
  OK,
  FAIL,
  UNKNOWN
}
