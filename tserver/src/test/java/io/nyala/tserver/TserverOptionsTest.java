package io.nyala.tserver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** The maintenance and compaction flags parse as the command line writes them. */
@Timeout(10)
class TserverOptionsTest {
  private static TserverOptions parse(String... args) {
    TserverOptions o = new TserverOptions();
    new CommandLine(o).parseArgs(args);
    return o;
  }

  @Test
  void compactionIsOnByDefaultAndAFlagTurnsItOff() {
    assertThat(parse().enableCompaction).isTrue();
    assertThat(parse().compactionBudgetMb).isEqualTo(128);
    assertThat(parse("--enable_compaction=false").enableCompaction).isFalse();
    assertThat(parse("--enable_compaction").enableCompaction).isTrue();
    assertThat(parse("--compaction_budget_mb=16").compactionBudgetMb).isEqualTo(16);
  }

  @Test
  void maintenanceManagerIsOnUnlessTurnedOff() {
    assertThat(parse().enableMaintenanceManager).isTrue();
    assertThat(parse("--enable_maintenance_manager").enableMaintenanceManager).isTrue();
    assertThat(parse("--enable_maintenance_manager=true").enableMaintenanceManager).isTrue();
    assertThat(parse("--enable_maintenance_manager=false").enableMaintenanceManager).isFalse();
  }
}
