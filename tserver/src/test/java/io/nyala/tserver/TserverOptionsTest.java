package io.nyala.tserver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** Kudu-style boolean flags: on by default, {@code =false} turns them off. */
@Timeout(10)
class TserverOptionsTest {
  private static TserverOptions parse(String... args) {
    TserverOptions o = new TserverOptions();
    new CommandLine(o).parseArgs(args);
    return o;
  }

  @Test
  void maintenanceManagerIsOnUnlessTurnedOff() {
    assertThat(parse().enableMaintenanceManager).isTrue();
    assertThat(parse("--enable_maintenance_manager").enableMaintenanceManager).isTrue();
    assertThat(parse("--enable_maintenance_manager=true").enableMaintenanceManager).isTrue();
    assertThat(parse("--enable_maintenance_manager=false").enableMaintenanceManager).isFalse();
  }
}
