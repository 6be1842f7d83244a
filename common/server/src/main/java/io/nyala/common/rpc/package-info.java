/** gRPC plumbing shared by the servers: the listener, response helpers, outgoing channels. */
package io.nyala.common.rpc;
