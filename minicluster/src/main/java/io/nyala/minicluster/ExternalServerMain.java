package io.nyala.minicluster;

import io.nyala.master.MasterMain;
import io.nyala.tserver.TabletServerMain;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point of a server process started by a minicluster in {@link ProcessMode#EXTERNAL}
 * mode: {@code <role> <parent pid> <server flags...>}. It exits when its parent dies, so no
 * server outlives the test JVM that started it, even after a SIGKILL of that JVM.
 */
public final class ExternalServerMain {
  private static final Logger LOG = LoggerFactory.getLogger(ExternalServerMain.class);

  private ExternalServerMain() {}

  public static void main(String[] args) {
    if (args.length < 2) {
      System.err.println("usage: ExternalServerMain master|tserver <parent pid> [flags...]");
      System.exit(2);
    }
    long parent = Long.parseLong(args[1]);
    ProcessHandle.of(parent).ifPresentOrElse(
        p -> p.onExit().thenRun(() -> {
          LOG.warn("parent process {} is gone; exiting", parent);
          Runtime.getRuntime().halt(3);
        }),
        () -> Runtime.getRuntime().halt(3));
    String[] flags = Arrays.copyOfRange(args, 2, args.length);
    if (args[0].equals("master")) {
      MasterMain.main(flags);
    } else {
      TabletServerMain.main(flags);
    }
  }
}
