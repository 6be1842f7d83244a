package io.nyala.minicluster.cli;

import io.nyala.minicluster.dense.ProcessStats;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * What {@code nyala bench dense-node} measured, printed per tablet server next to the dense
 * node targets of docs/dense-nodes.md (idle CPU <= 5 % of a core, threads <= 150 + 6 per awake
 * replica, heap <= 1 GiB, restart to all replicas reported <= 10 s, wake p99 <= 500 ms).
 */
final class DenseNodeReport {
  static final double IDLE_CPU_TARGET_PERCENT = 5;
  static final long BASE_THREADS = 150;
  static final long THREADS_PER_AWAKE_REPLICA = 6;
  static final long HEAP_TARGET_BYTES = 1L << 30;
  static final long RESTART_TARGET_MS = 10_000;
  static final double WAKE_P99_TARGET_MS = 500;
  static final double WAKE_P50_TARGET_MS = 150;

  /** One tablet server at one moment: its process figures and replica counts. */
  record Sample(String server, ProcessStats proc, long heapBytes, double cpuPercent,
      long awakeReplicas, long hibernatedReplicas, long hibernations, long wakes) {}

  /** Wake latencies of first writes to cold tablets, in ms. */
  record Wakes(double[] millis, int failed) {
    double percentile(double p) {
      if (millis.length == 0) {
        return Double.NaN;
      }
      double[] s = millis.clone();
      Arrays.sort(s);
      return s[Math.min(s.length - 1, (int) Math.ceil(p / 100 * s.length) - 1)];
    }
  }

  private final StringBuilder out = new StringBuilder();
  private final List<Sample> hot;
  private final List<Sample> cold;
  private final long idleSeconds;

  DenseNodeReport(String header, List<Sample> hot, List<Sample> cold, long idleSeconds) {
    this.hot = hot;
    this.idleSeconds = idleSeconds;
    this.cold = cold;
    out.append(header).append('\n');
  }

  /**
   * @param serverWakeMeanMs per tablet server, the mean of its own {@code
   *     tablet_wake_latency_seconds} histogram (sum / count) in ms, NaN when it has none
   */
  String render(long restartReportedMs, long restartScannedMs, Wakes wakes,
      List<Double> serverWakeMeanMs) {
    List<String> head = new ArrayList<>(List.of("figure"));
    cold.forEach(s -> head.add(s.server()));
    head.add("target");
    head.add("");
    row(head.toArray(String[]::new));
    perServer("awake replicas (hot load)", hot, s -> Long.toString(s.awakeReplicas()), "", "");
    perServer("hibernated replicas (hot load)", hot, s -> Long.toString(s.hibernatedReplicas()),
        "", "");
    threads("threads (hot load)", hot);
    threads("threads (all cold)", cold);
    perServer("RSS MiB (hot load)", hot, s -> mib(s.proc().rssBytes()), "", "");
    perServer("RSS MiB (all cold)", cold, s -> mib(s.proc().rssBytes()), "", "");
    heap("heap used MiB after full GC (hot load)", hot);
    heap("heap used MiB after full GC (all cold)", cold);
    perServer("open fds (hot load)", hot, s -> Long.toString(s.proc().openFds()), "", "");
    perServer("open fds (all cold)", cold, s -> Long.toString(s.proc().openFds()), "", "");
    perServer("CPU % of a core (hot load)", hot, s -> pct(s.cpuPercent()), "", "");
    boolean cpuOk = cold.stream().allMatch(s -> s.cpuPercent() <= IDLE_CPU_TARGET_PERCENT);
    perServer("idle CPU % of a core (all cold, " + idleSeconds + " s)", cold,
        s -> pct(s.cpuPercent()),
        "<= " + pct(IDLE_CPU_TARGET_PERCENT), verdict(cpuOk));
    perServer("hibernations / wakes (total)", cold,
        s -> s.hibernations() + " / " + s.wakes(), "", "");
    out.append('\n');
    row("restart to all replicas reported (ms)", Long.toString(restartReportedMs),
        "<= " + RESTART_TARGET_MS, verdict(restartReportedMs <= RESTART_TARGET_MS));
    row("restart to every table answering a scan (ms)", Long.toString(restartScannedMs), "", "");
    double p50 = wakes.percentile(50);
    double p99 = wakes.percentile(99);
    row(String.format("wake latency ms, first write to %d cold tablets (%d failed)",
        wakes.millis().length, wakes.failed()), "", "", "");
    row("  p50", ms(p50), "<= " + ms(WAKE_P50_TARGET_MS), verdict(p50 <= WAKE_P50_TARGET_MS));
    row("  p95", ms(wakes.percentile(95)), "", "");
    row("  p99", ms(p99), "<= " + ms(WAKE_P99_TARGET_MS),
        verdict(p99 <= WAKE_P99_TARGET_MS && wakes.failed() == 0));
    row("  max", ms(wakes.percentile(100)), "", "");
    List<String> cells = new ArrayList<>(List.of("server-side wake mean ms, per tserver"));
    serverWakeMeanMs.forEach(m -> cells.add(ms(m)));
    row(cells.toArray(String[]::new));
    return out.toString().stripTrailing();
  }

  private void threads(String label, List<Sample> samples) {
    List<String> cells = new ArrayList<>(List.of(label));
    boolean ok = true;
    StringBuilder bounds = new StringBuilder();
    for (Sample s : samples) {
      long bound = BASE_THREADS + THREADS_PER_AWAKE_REPLICA * s.awakeReplicas();
      ok &= s.proc().threads() <= bound;
      cells.add(Long.toString(s.proc().threads()));
      bounds.append(bounds.length() == 0 ? "<= " : "/").append(bound);
    }
    cells.add(bounds + " (150+6/awake)");
    cells.add(verdict(ok));
    row(cells.toArray(String[]::new));
  }

  private void heap(String label, List<Sample> samples) {
    boolean ok = samples.stream().allMatch(s -> s.heapBytes() <= HEAP_TARGET_BYTES);
    perServer(label, samples, s -> mib(s.heapBytes()), "<= 1024", verdict(ok));
  }

  private void perServer(String label, List<Sample> samples, Function<Sample, String> cell,
      String target, String verdict) {
    List<String> cells = new ArrayList<>(List.of(label));
    samples.forEach(s -> cells.add(cell.apply(s)));
    cells.add(target);
    cells.add(verdict);
    row(cells.toArray(String[]::new));
  }

  private void row(String... cells) {
    out.append(String.format("%-46s", cells[0]));
    for (int i = 1; i < cells.length; i++) {
      out.append(String.format(" %12s", cells[i]));
    }
    out.append('\n');
  }

  private static String verdict(boolean ok) {
    return ok ? "ok" : "MISSED";
  }

  private static String mib(long bytes) {
    return String.format("%.1f", bytes / (1024.0 * 1024));
  }

  private static String pct(double p) {
    return String.format("%.2f%%", p);
  }

  private static String ms(double v) {
    return Double.isNaN(v) ? "n/a" : String.format("%.1f", v);
  }
}
