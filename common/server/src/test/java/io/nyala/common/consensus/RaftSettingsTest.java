package io.nyala.common.consensus;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.HostPort;
import java.io.File;
import java.util.Map;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class RaftSettingsTest {
  private static RaftProperties props(Map<String, String> overrides) {
    return RaftSettings.forServer(new File("/tmp/raft"), new HostPort("127.0.0.1", 1), 500, 1000,
        overrides);
  }

  /** Ratis' defaults (cached, size 0) start a thread per concurrent task in these pools. */
  @Test
  void everyRatisPoolIsBounded() {
    RaftProperties p = props(Map.of());
    assertThat(RaftServerConfigKeys.ThreadPool.proxyCached(p)).isFalse();
    assertThat(RaftServerConfigKeys.ThreadPool.proxySize(p)).isEqualTo(RaftSettings.PROXY_THREADS);
    assertThat(RaftServerConfigKeys.ThreadPool.serverSize(p)).isEqualTo(1);
    assertThat(RaftServerConfigKeys.ThreadPool.clientSize(p)).isEqualTo(1);
    assertThat(RaftServerConfigKeys.Log.asyncFlushEnabled(p)).isFalse();
  }

  @Test
  void rawOverridesStillWin() {
    RaftProperties p = props(Map.of(RaftServerConfigKeys.ThreadPool.SERVER_SIZE_KEY, "4"));
    assertThat(RaftServerConfigKeys.ThreadPool.serverSize(p)).isEqualTo(4);
  }
}
