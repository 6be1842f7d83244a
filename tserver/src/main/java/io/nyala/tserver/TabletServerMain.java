package io.nyala.tserver;

import io.nyala.common.server.ServerMain;

/** The tablet server process: parse flags, start, run until SIGTERM/SIGINT. */
public final class TabletServerMain {
  private TabletServerMain() {}

  public static void main(String[] args) {
    ServerMain.run("tablet server", args, new TserverOptions(), TabletServer::new);
  }
}
