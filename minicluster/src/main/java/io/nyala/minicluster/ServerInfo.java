package io.nyala.minicluster;

import io.nyala.common.HostPort;

/**
 * A minicluster server as seen from outside: its name, role, index within the role, addresses
 * (stable across restarts), uuid (known once it has started) and whether it runs now.
 *
 * @param name e.g. {@code ts-1}
 * @param role master or tablet server
 * @param index 0-based position within its role
 * @param rpcAddress where clients reach it
 * @param httpAddress its web UI and metrics
 * @param uuid its permanent id, empty before the first start
 * @param running whether it is up
 */
public record ServerInfo(String name, ServerRole role, int index, HostPort rpcAddress,
    HostPort httpAddress, String uuid, boolean running) {

  /** The base URL of its web server, e.g. {@code http://127.3.4.11:8050}. */
  public String webUrl() {
    return "http://" + httpAddress;
  }
}
