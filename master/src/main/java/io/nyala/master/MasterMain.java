package io.nyala.master;

import io.nyala.common.server.ServerMain;

/** The master process: parse flags, start, run until SIGTERM/SIGINT. */
public final class MasterMain {
  private MasterMain() {}

  public static void main(String[] args) {
    ServerMain.run("master", args, new MasterOptions(), MasterServer::new);
  }
}
