package io.nyala.master;

import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;

/** The master process: parse flags, start, run until SIGTERM/SIGINT. */
public final class MasterMain {
  private MasterMain() {}

  public static void main(String[] args) {
    MasterOptions opts = new MasterOptions();
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
    MasterServer server = new MasterServer(opts);
    CountDownLatch stopped = new CountDownLatch(1);
    try {
      server.start();
    } catch (RuntimeException e) {
      System.err.println("master failed to start: " + e.getMessage());
      server.close();
      System.exit(1);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "master-shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
