/**
 * The Ratis glue shared by master and tserver: id mapping, per-server properties, in-process
 * calls and error translation. Owns no state machine; those live with their server.
 */
package io.nyala.common.consensus;
