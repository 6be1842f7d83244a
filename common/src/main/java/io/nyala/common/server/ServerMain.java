package io.nyala.common.server;

import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import picocli.CommandLine;

/**
 * The body of a server process's {@code main}: parse the Kudu-style flags (exit 2 with usage on
 * a bad one, print usage for {@code --help}), start the server (exit 1 with the reason if it
 * fails), then run until SIGTERM/SIGINT, whose shutdown hook stops the server cleanly.
 */
public final class ServerMain {
  private ServerMain() {}

  public static <O extends ServerOptions> void run(String role, String[] args, O options,
      Function<O, ? extends ServerBase> factory) {
    CommandLine cmd = new CommandLine(options);
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
    ServerBase server = factory.apply(options);
    CountDownLatch stopped = new CountDownLatch(1);
    try {
      server.start();
    } catch (RuntimeException e) {
      System.err.println(role + " failed to start: " + e.getMessage());
      server.close();
      System.exit(1);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, role + "-shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
