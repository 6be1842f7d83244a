package io.nyala.tserver.heartbeat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.Env;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The first cluster id is kept across restarts; another cluster's master is never obeyed. */
@Timeout(10)
class ClusterIdGuardTest {
  @TempDir Path dir;
  private final Env env = Env.plain();

  @Test
  void firstIdIsPersistedAndAnotherIsRefusedAfterARestart() {
    ClusterIdGuard guard = ClusterIdGuard.open(env, dir);
    assertThat(guard.accepted()).isEmpty();
    guard.checkCaller("anything", "DeleteTablet of tablet t"); // not yet in a cluster
    assertThat(guard.acceptMaster("", "m:1")).isTrue(); // says nothing: nothing recorded
    assertThat(guard.accepted()).isEmpty();
    assertThat(guard.acceptMaster("cluster-a", "m:1")).isTrue();

    ClusterIdGuard reopened = ClusterIdGuard.open(env, dir);
    assertThat(reopened.accepted()).isEqualTo("cluster-a");
    assertThat(reopened.acceptMaster("cluster-a", "m:1")).isTrue();
    assertThat(reopened.acceptMaster("cluster-b", "m:2")).isFalse();
    assertThat(reopened.accepted()).isEqualTo("cluster-a");
    reopened.checkCaller("", "DeleteTablet of tablet t"); // an operator's tool
    reopened.checkCaller("cluster-a", "DeleteTablet of tablet t");
    assertThatThrownBy(() -> reopened.checkCaller("cluster-b", "DeleteTablet of tablet t"))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.ILLEGAL_STATE))
        .hasMessageContaining("cluster-b").hasMessageContaining("cluster-a")
        .hasMessageContaining("DeleteTablet of tablet t");
  }

  @Test
  void anUnreadableFileStopsTheStartNamingIt() throws Exception {
    Files.write(dir.resolve(ClusterIdGuard.FILE_NAME), new byte[] {0, 1, 2});
    assertThatThrownBy(() -> ClusterIdGuard.open(env, dir))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION))
        .hasMessageContaining(dir.resolve(ClusterIdGuard.FILE_NAME).toString());
  }
}
