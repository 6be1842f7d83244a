/** A server's directories and crash-safe file replacement. Encryption (Env) arrives with issue 4. */
package io.nyala.common.fs;
