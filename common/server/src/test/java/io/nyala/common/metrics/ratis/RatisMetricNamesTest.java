package io.nyala.common.metrics.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class RatisMetricNamesTest {
  private static final String SELF = "0e75a0dd61af4018bcb705d0646fae30";
  private static final String FOLLOWER = "75b0e2f6db9d47b8a5acb7cf4dd785bd";
  private static final String PREFIX = SELF + "@group-2B81DE4AC5A2";

  @Test
  void dropsTheRegistryNameAndLiftsTheFollowerIntoALabel() {
    RatisMetricNames.Mapped m = RatisMetricNames.map("ratis", "log_appender", PREFIX,
        "ratis.log_appender." + PREFIX + ".follower_" + FOLLOWER + "_match_index");
    assertThat(m.base()).isEqualTo("ratis_log_appender_follower_match_index");
    assertThat(m.peer()).isEqualTo(FOLLOWER);
    assertThat(m.ratisName()).isEqualTo("follower_<peer>_match_index");
  }

  @Test
  void camelCaseBecomesSnakeCaseAndReservedSuffixesGo() {
    RatisMetricNames.Mapped m = RatisMetricNames.map("ratis", "log_worker", PREFIX,
        "ratis.log_worker." + PREFIX + ".cacheMissCount");
    assertThat(m.base()).isEqualTo("ratis_log_worker_cache_miss");
    assertThat(m.peer()).isNull();
    assertThat(RatisMetricNames.map("ratis_grpc", "log_appender", SELF,
        "ratis_grpc.log_appender." + SELF + "." + FOLLOWER + "_latency").base())
        .isEqualTo("ratis_grpc_log_appender_latency");
  }
}
