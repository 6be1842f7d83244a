package io.nyala.tserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * The maintenance and compaction flags parse as the command line writes them; fault-injection
 * flags need {@code --unlock_unsafe_flags}.
 */
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

  @Test
  void faultFlagsRefuseToStartWithoutUnlockUnsafeFlags() {
    for (String flag : new String[] {"--fault_drop_write_response_after_commit",
        "--fault_crash_points=flush_before_superblock=1", "--fault_disk_errors=EIO:SYNC:/d/1",
        "--fault_enable_network_partitions"}) {
      String name = flag.split("=")[0];
      assertThatThrownBy(() -> new TabletServer(parse(flag, "--fs_wal_dir=/nonexistent")))
          .isInstanceOfSatisfying(NyalaException.class, e -> {
            assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
            assertThat(e.getMessage()).contains(name).contains("--unlock_unsafe_flags")
                .doesNotContain("\n");
          });
      parse(flag, "--unlock_unsafe_flags").checkUnsafeFlags();
    }
    parse().checkUnsafeFlags();
    parse("--fault_crash_points=").checkUnsafeFlags();
  }
}
