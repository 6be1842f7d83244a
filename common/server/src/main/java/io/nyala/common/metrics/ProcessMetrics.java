package io.nyala.common.metrics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The process-wide gauges every server exports (threads, file descriptors, memory), named as
 * Prometheus' own client libraries name them. They describe the JVM, not the server: in an
 * in-process minicluster every server reports the same figures, which their help text says.
 * A figure this platform does not offer (no {@code /proc}, no Unix bean) is not registered.
 */
public final class ProcessMetrics {
  private static final Path STATUS = Path.of("/proc/self/status");
  private static final String JVM_WIDE = " (the whole JVM: in an in-process minicluster, of "
      + "every server in it)";

  private ProcessMetrics() {}

  /** Registers the gauges this platform can answer. */
  public static void register(MetricRegistry r) {
    r.gauge("process_threads", "Live threads" + JVM_WIDE,
        () -> ManagementFactory.getThreadMXBean().getThreadCount());
    r.gauge("jvm_heap_used_bytes", "Heap in use" + JVM_WIDE,
        () -> ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    // Off-heap buffers: Ratis holds a direct write buffer per open Raft division, so this is
    // what bounds how many replicas can be awake at once (docs/dense-nodes.md).
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      r.gauge("jvm_buffer_pool_used_bytes", "Bytes in the JVM's buffer pool" + JVM_WIDE,
          Map.of("pool", pool.getName()), pool::getMemoryUsed);
    }
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun
        && sun.getProcessCpuTime() >= 0) {
      // What perf scan and perf loadgen divide by rows for CPU per row (docs/performance.md).
      r.doubleCounterFrom("process_cpu_seconds_total", "CPU time used" + JVM_WIDE,
          () -> sun.getProcessCpuTime() / 1e9);
    }
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    if (jit != null && jit.isCompilationTimeMonitoringSupported()) {
      // Benchmarks warm a server until this stops growing (docs/performance.md).
      r.doubleCounterFrom("jvm_jit_compilation_seconds_total",
          "Time the JIT compilers spent compiling" + JVM_WIDE,
          () -> jit.getTotalCompilationTime() / 1e3);
    }
    if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
      r.gauge("process_open_fds", "Open file descriptors" + JVM_WIDE,
          unix::getOpenFileDescriptorCount);
    }
    if (residentBytes() >= 0) {
      r.gauge("process_resident_memory_bytes", "Resident memory size" + JVM_WIDE,
          ProcessMetrics::residentBytes);
    }
  }

  /** VmRSS from /proc/self/status, or -1 where there is no such file (not Linux). */
  static long residentBytes() {
    if (!Files.isReadable(STATUS)) {
      return -1;
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(STATUS);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + STATUS + ": " + e.getMessage(), e);
    }
    for (String line : lines) {
      if (line.startsWith("VmRSS:")) {
        // "VmRSS:     123456 kB"
        String[] f = line.trim().split("\\s+");
        return Long.parseLong(f[1]) * 1024;
      }
    }
    return -1;
  }
}
