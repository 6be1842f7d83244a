/**
 * A server's directories (format, instance files, locks, the dir scan at start) and crash-safe
 * whole-file replacement. The server key is unwrapped here at start; reading and writing files,
 * encrypted or not, is {@code io.nyala.common.env}'s.
 */
package io.nyala.common.fs;
