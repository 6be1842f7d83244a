package io.nyala.tserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.fs.ServerFs;
import io.nyala.common.security.FileKeyProvider;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tablet server told a new cluster key version by the leader (docs/encryption.md, "Rotating
 * the cluster key") re-wraps its instance files under it, and refuses, naming the version and
 * its key file, a version its key file does not hold.
 */
@Timeout(20)
class ClusterKeyFollowerTest {
  @TempDir
  Path dir;

  @Test
  void movesToTheLeadersVersionAndRefusesOneItsKeyFileLacks() {
    Path keyFile = dir.resolve("cluster.key");
    FileKeyProvider keys = FileKeyProvider.openOrCreate(keyFile, 256);
    Path wal = dir.resolve("wal");
    ServerFs fs = ServerFs.openOrFormat(wal, List.of(dir.resolve("data")), "tserver", keys, 256);
    ClusterKeyFollower follower = new ClusterKeyFollower(fs, keys);
    assertThat(follower.version()).isEqualTo(1);

    FileKeyProvider.addVersion(keyFile, 256);
    follower.moveTo(2);
    assertThat(follower.version()).isEqualTo(2);
    assertThat(ServerFs.readInstance(dir.resolve("data").resolve(ServerFs.INSTANCE))
        .getServerKeyVersion()).isEqualTo(2);

    assertThatThrownBy(() -> follower.moveTo(3))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND))
        .hasMessageContaining("version 3").hasMessageContaining(keyFile.toString());
    assertThat(follower.version()).isEqualTo(2);
  }
}
