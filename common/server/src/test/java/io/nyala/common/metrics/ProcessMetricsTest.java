package io.nyala.common.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ProcessMetricsTest {
  @Test
  void threadsAndHeapAreAlwaysThere() {
    MetricRegistry r = new MetricRegistry("s");
    ProcessMetrics.register(r);
    assertThat(r.value("process_threads")).isGreaterThanOrEqualTo(Thread.activeCount());
    assertThat(r.value("jvm_heap_used_bytes")).isPositive();
    ByteBuffer held = ByteBuffer.allocateDirect(1 << 16);
    assertThat(r.value("jvm_buffer_pool_used_bytes", Map.of("pool", "direct")))
        .isGreaterThanOrEqualTo(held.capacity());
    assertThat(r.renderPrometheus()).contains("# TYPE process_threads gauge")
        .contains("# HELP process_threads Live threads (the whole JVM: in an in-process "
            + "minicluster, of every server in it)");
  }

  @Test
  void linuxReportsResidentMemoryAndOpenFds() {
    assumeTrue(Files.isReadable(Path.of("/proc/self/status")), "not Linux");
    MetricRegistry r = new MetricRegistry("s");
    ProcessMetrics.register(r);
    assertThat(r.value("process_resident_memory_bytes")).isGreaterThan(1 << 20);
    assertThat(r.value("process_open_fds")).isPositive();
  }

  @Test
  void cpuTimeIsACounterInSeconds() {
    MetricRegistry r = new MetricRegistry("s");
    ProcessMetrics.register(r);
    String text = r.renderPrometheus();
    assertThat(text).contains("# TYPE process_cpu_seconds_total counter")
        .containsPattern("(?m)^process_cpu_seconds_total(\\{[^}]*\\})? [0-9.eE+-]+$")
        .containsPattern("(?m)^jvm_jit_compilation_seconds_total(\\{[^}]*\\})? [0-9.eE+-]+$");
  }
}
