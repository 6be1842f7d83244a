package io.nyala.tserver;

import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;

/** The tablet server process: parse flags, start, run until SIGTERM/SIGINT. */
public final class TabletServerMain {
  private TabletServerMain() {}

  public static void main(String[] args) {
    TserverOptions opts = new TserverOptions();
    CommandLine cmd = new CommandLine(opts);
    try {
      cmd.parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      System.err.println(e.getMessage());
      cmd.usage(System.err);
      System.exit(2);
      return;
    }
    if (cmd.isUsageHelpRequested()) {
      cmd.usage(System.out);
      return;
    }
    TabletServer server = new TabletServer(opts);
    CountDownLatch stopped = new CountDownLatch(1);
    try {
      server.start();
    } catch (RuntimeException e) {
      System.err.println("tablet server failed to start: " + e.getMessage());
      server.close();
      System.exit(1);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "tserver-shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
