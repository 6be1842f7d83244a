package io.nyala.common.server;

import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import picocli.CommandLine;

/**
 * The body of a server process's {@code main}: parse the Kudu-style flags (exit 2 on a bad one,
 * print usage for {@code --help}), start the server (exit 1 if it fails), then run until
 * SIGTERM/SIGINT, whose shutdown hook stops the server cleanly. A failure to start is one line,
 * "&lt;role&gt; failed to start: &lt;reason&gt;", never a stack trace: the minicluster reports
 * that line for a server process that died starting.
 */
public final class ServerMain {
  private ServerMain() {}

  public static <O extends ServerOptions> void run(String role, String[] args, O options,
      Function<O, ? extends ServerBase> factory) {
    CommandLine cmd = new CommandLine(options);
    // Kudu-style: a flag given again wins, as a minicluster's per-server flags rely on.
    cmd.setOverwrittenOptionsAllowed(true);
    try {
      cmd.parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      System.err.println(role + " failed to start: bad flags: " + e.getMessage()
          + " (--help lists the flags)");
      System.exit(2);
      return;
    }
    if (cmd.isUsageHelpRequested()) {
      cmd.usage(System.out);
      return;
    }
    ServerBase server = null;
    CountDownLatch stopped = new CountDownLatch(1);
    try {
      // Inside the try: the constructor already reads addresses and checks unsafe flags.
      server = factory.apply(options);
      server.start();
    } catch (RuntimeException e) {
      // One line an operator can act on; the flags, not a stack, are what is wrong.
      System.err.println(role + " failed to start: " + oneLine(e));
      if (server != null) {
        server.close();
      }
      System.exit(1);
      return;
    }
    ServerBase started = server;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      started.close();
      stopped.countDown();
    }, role + "-shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The failure's message on one line (an unexpected exception: its type too). */
  static String oneLine(RuntimeException e) {
    String m = e instanceof io.nyala.common.NyalaException ? e.getMessage() : e.toString();
    return String.valueOf(m).replaceAll("\\s*\\R\\s*", " ");
  }
}
