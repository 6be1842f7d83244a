package io.nyala.minicluster.cli;

import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code nyala bench minicluster-start}: how long a test waits for its cluster. Times
 * {@code MiniCluster.builder().build()} (start, and every tablet server registered with the
 * leader master) of 1 master + 3 tablet servers, cold (the first start of the mode in this JVM,
 * class loading included) and warm (later starts), in-process and as server processes.
 */
@Command(name = "minicluster-start", mixinStandardHelpOptions = true,
    description = {
        "Times a 1 master + 3 tablet server minicluster to ready (every tablet server "
            + "registered), in this JVM and as server processes: the first start (cold), then "
            + "--runs more (warm, min and median). Closing is not timed.",
        "Prints one line per mode and temperature, and the target."})
final class BenchMiniclusterStartCommand implements Callable<Integer> {
  @Option(names = "--runs", defaultValue = "5",
      description = "Warm starts per mode (default ${DEFAULT-VALUE}).") int runs;
  @Option(names = "--modes", split = ",", defaultValue = "in-process,process",
      description = "in-process, process, or both (default).") List<String> modes;
  @Option(names = "--target-ms", defaultValue = "3000",
      description = "Target time to a ready cluster (default ${DEFAULT-VALUE} ms).")
  long targetMs;

  @Override
  public Integer call() {
    System.out.printf("minicluster-start target: <= %d ms to a ready 1 master + 3 tablet "
        + "servers%n", targetMs);
    for (String m : modes) {
      ProcessMode mode = switch (m) {
        case "in-process" -> ProcessMode.IN_PROCESS;
        case "process" -> ProcessMode.EXTERNAL;
        default -> throw new IllegalArgumentException("--modes: unknown mode '" + m + "'");
      };
      long cold = timeOneStart(m, "cold", 1, 1, mode);
      System.out.printf("minicluster-start %s cold: %d ms (%s)%n", m, cold, verdict(cold));
      List<Long> warm = new ArrayList<>();
      for (int i = 1; i <= runs; i++) {
        warm.add(timeOneStart(m, "warm", i, runs, mode));
      }
      if (!warm.isEmpty()) {
        Collections.sort(warm);
        long median = warm.get(warm.size() / 2);
        System.out.printf("minicluster-start %s warm: median %d ms (min %d, %d runs) (%s)%n", m,
            median, warm.get(0), warm.size(), verdict(median));
      }
    }
    return 0;
  }

  private String verdict(long ms) {
    return ms <= targetMs ? "within the target" : "over the target by " + (ms - targetMs) + " ms";
  }

  /** Starts and closes one cluster; prints a progress line (to stderr) and returns its ms. */
  private static long timeOneStart(String mode, String what, int run, int of, ProcessMode pm) {
    long t0 = System.nanoTime();
    MiniCluster c = MiniCluster.builder().numMasters(1).numTabletServers(3).processMode(pm)
        .build();
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    c.close();
    System.err.printf("  %s %s start %d/%d: %d ms%n", mode, what, run, of, ms);
    return ms;
  }
}
