package io.nyala.tserver.fs;

import java.util.List;

/**
 * What opening a block manager found and repaired. {@code problems} are damage that was only
 * reported (malformed records); {@code repairs} are changes made to files.
 */
public record StartupReport(int containers, long liveBlocks, long liveBytes,
    List<String> repairs, List<String> problems) {
  public StartupReport {
    repairs = List.copyOf(repairs);
    problems = List.copyOf(problems);
  }

  /** Whether nothing needed repair and nothing was malformed. */
  public boolean clean() {
    return repairs.isEmpty() && problems.isEmpty();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format("containers: %d, live blocks: %d, live bytes: %d%n", containers,
        liveBlocks, liveBytes));
    repairs.forEach(r -> sb.append("repair: ").append(r).append('\n'));
    problems.forEach(p -> sb.append("problem: ").append(p).append('\n'));
    return sb.toString();
  }
}
