package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.master.locations.TableLocationsBench;
import io.nyala.master.locations.TableLocationsBench.Mode;
import io.nyala.master.locations.TableLocationsBench.Params;
import io.nyala.master.locations.TableLocationsBench.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The locations benchmark runs in both modes and reports what it measured. */
@Timeout(60)
class TableLocationsBenchTest extends LocationsTestBase {
  @Test
  void runsForASecondInBothModes() throws Exception {
    startWithTable("bench", 6);
    Result call = TableLocationsBench.run(m.master, "bench",
        new Params(2, 1, 0.2, 16, Mode.CALL));
    assertThat(call.requests()).isPositive();
    assertThat(call.latency()).isNull();
    assertThat(m.master.locationsCache().capacityBytes()).isEqualTo(16L << 20);

    Result rpc = TableLocationsBench.run(m.master, "bench", new Params(1, 1, 0.2, 0, Mode.RPC));
    assertThat(rpc.requests()).isPositive();
    assertThat(rpc.latency().count()).isEqualTo(rpc.requests());
    assertThat(rpc.latency().p99()).isGreaterThanOrEqualTo(rpc.latency().p50());
    assertThat(metric("hits")).isPositive();
  }
}
