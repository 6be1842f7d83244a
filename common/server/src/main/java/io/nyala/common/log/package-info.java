/** Logging glue: the server name on every line, JUL routed into Log4j. */
package io.nyala.common.log;
