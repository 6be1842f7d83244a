package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A master never starts on a partial filesystem: a data dir without instance file is named. */
@Timeout(60)
class MasterDirsTest {
  @TempDir Path dir;

  @Test
  void aDataDirWithoutInstanceStopsTheMasterNamingIt() {
    String uuid;
    try (MasterFixture f = MasterFixture.start(dir)) {
      uuid = f.master.uuid();
    }
    Path added = dir.resolve("data2");
    assertThatThrownBy(() -> MasterFixture.start(dir,
            "--fs_data_dirs=" + dir.resolve("data") + "," + added).close())
        .hasMessageContaining(added.toString())
        .hasMessageContaining("no instance file");
    assertThat(added.resolve("instance")).doesNotExist();
    try (MasterFixture f = MasterFixture.start(dir)) {
      assertThat(f.master.uuid()).isEqualTo(uuid);
    }
  }
}
