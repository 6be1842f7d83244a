package io.nyala.tserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A tablet server never starts on a partial filesystem, nor on dirs another server holds. */
@Timeout(60)
class ServerDirsTest {
  @TempDir Path dir;
  private TabletServer ts;

  @AfterEach
  void tearDown() {
    if (ts != null) {
      ts.close();
    }
  }

  @Test
  void aDataDirWithoutInstanceStopsTheTserverNamingIt() {
    TserverOptions o = TserverFixture.options(dir.resolve("wal"), TserverFixture.freePort());
    o.fsDataDirs = List.of(dir.resolve("d1").toString());
    ts = TserverFixture.start(o);
    String uuid = ts.uuid();
    ts.close();
    Path added = dir.resolve("d2");
    o.fsDataDirs = List.of(dir.resolve("d1").toString(), added.toString());
    assertThatThrownBy(() -> ts = TserverFixture.start(o))
        .hasMessageContaining(added.toString())
        .hasMessageContaining("no instance file");
    assertThat(added.resolve("instance")).doesNotExist();
    o.fsDataDirs = List.of(dir.resolve("d1").toString());
    ts = TserverFixture.start(o);
    assertThat(ts.uuid()).isEqualTo(uuid);
  }

  @Test
  void aSecondServerOnTheSameDirsIsRefusedNamingTheDir() {
    ts = TserverFixture.start(TserverFixture.options(dir, TserverFixture.freePort()));
    TserverOptions second = TserverFixture.options(dir, TserverFixture.freePort());
    assertThatThrownBy(() -> {
      TabletServer other = TserverFixture.start(second);
      other.close();
    }).hasMessageContaining(dir.toString()).hasMessageContaining("in use");
    ts.close();
    ts = TserverFixture.start(second);
    assertThat(ts.isClosed()).isFalse();
  }
}
