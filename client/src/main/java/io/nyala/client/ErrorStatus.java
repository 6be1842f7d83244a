package io.nyala.client;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;

/**
 * Why a row operation failed: a status code and a message that names the thing and the value.
 *
 * @param code the status code, e.g. ALREADY_PRESENT for an INSERT of an existing key
 * @param message the message, without the code
 */
public record ErrorStatus(StatusCode code, String message) {
  /**
   * The status of an exception.
   *
   * @param e the exception
   * @return its code and message
   */
  public static ErrorStatus of(NyalaException e) {
    return new ErrorStatus(e.code(), e.detail());
  }

  /** @return whether the key already existed (INSERT) */
  public boolean isAlreadyPresent() {
    return code == StatusCode.ALREADY_PRESENT;
  }

  /** @return whether the key or table was not found (UPDATE, DELETE) */
  public boolean isNotFound() {
    return code == StatusCode.NOT_FOUND;
  }

  /** @return whether the operation ran out of time */
  public boolean isTimedOut() {
    return code == StatusCode.TIMED_OUT;
  }

  /** @return this status as an exception, e.g. to throw it */
  public NyalaException toException() {
    return new NyalaException(code, message);
  }

  @Override
  public String toString() {
    return code + ": " + message;
  }
}
