package io.nyala.minicluster.dense;

import io.nyala.common.NyalaException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The footprint of one server process as Linux reports it in {@code /proc/<pid>/}: what a
 * dense node costs, read from outside the JVM so that it counts every thread and byte.
 *
 * @param threads {@code Threads:} of {@code status}: every thread of the process
 * @param rssBytes {@code VmRSS:} of {@code status}
 * @param openFds entries of {@code fd/}
 * @param cpuTicks utime + stime of {@code stat}, in clock ticks ({@link #TICKS_PER_SECOND})
 */
public record ProcessStats(long threads, long rssBytes, long openFds, long cpuTicks) {
  /** {@code sysconf(_SC_CLK_TCK)}: 100 on every Linux this runs on (x86-64 and arm64). */
  public static final long TICKS_PER_SECOND = 100;

  private static final Pattern HEAP_USED = Pattern.compile(
      "(?:generation|heap)\\s+total \\d+K, used (\\d+)K");

  /** Reads the process's figures now. */
  public static ProcessStats of(long pid) {
    Path dir = Path.of("/proc", Long.toString(pid));
    try {
      String status = Files.readString(dir.resolve("status"), StandardCharsets.US_ASCII);
      long fds;
      try (Stream<Path> s = Files.list(dir.resolve("fd"))) {
        fds = s.count();
      }
      return new ProcessStats(field(status, "Threads:"), field(status, "VmRSS:") * 1024, fds,
          cpuTicks(Files.readString(dir.resolve("stat"), StandardCharsets.US_ASCII)));
    } catch (IOException e) {
      throw NyalaException.ioError("process " + pid + ": cannot read " + dir + ": "
          + e.getMessage(), e);
    }
  }

  /**
   * The CPU the process used over {@code millis} of wall time, as a percentage of one core.
   * Blocks for that long: the caller measures a quiet period.
   */
  public static double cpuPercentOfCore(long pid, long millis) throws InterruptedException {
    long t0 = System.nanoTime();
    long before = of(pid).cpuTicks();
    Thread.sleep(millis); // the measuring window itself, not a wait for a condition
    long after = of(pid).cpuTicks();
    double wallSeconds = (System.nanoTime() - t0) / 1e9;
    return 100.0 * (after - before) / TICKS_PER_SECOND / wallSeconds;
  }

  /**
   * The process's Java heap in use right after a full GC (live data, not garbage waiting for a
   * collection), from {@code jcmd <pid> GC.run} and {@code GC.heap_info}. Attaching starts one
   * more thread in the target: read {@link #of} before this.
   */
  public static long heapUsedAfterGcBytes(long pid) {
    jcmd(pid, "GC.run");
    String info = jcmd(pid, "GC.heap_info");
    Matcher m = HEAP_USED.matcher(info);
    long kib = 0;
    boolean found = false;
    while (m.find()) {
      kib += Long.parseLong(m.group(1));
      found = true;
    }
    if (!found) {
      throw NyalaException.illegalState("process %d: no heap figures in jcmd GC.heap_info: %s",
          pid, info.strip());
    }
    return kib * 1024;
  }

  private static String jcmd(long pid, String command) {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    try {
      Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command)
          .redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw NyalaException.illegalState("process %d: %s %s failed: %s", pid, jcmd, command,
            out.strip());
      }
      return out;
    } catch (IOException e) {
      throw NyalaException.ioError("process " + pid + ": cannot run " + jcmd + ": "
          + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.illegalState("interrupted running jcmd %s on process %d", command, pid);
    }
  }

  private static long field(String status, String name) {
    for (String line : status.split("\n")) {
      if (line.startsWith(name)) {
        return Long.parseLong(line.substring(name.length()).trim().split("\\s+")[0]);
      }
    }
    throw NyalaException.illegalState("no %s line in /proc status", name);
  }

  /** utime + stime: fields 14 and 15, counted after the parenthesised command name. */
  private static long cpuTicks(String stat) {
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    // f[0] is field 3 (state), so field n is f[n - 3].
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }
}
