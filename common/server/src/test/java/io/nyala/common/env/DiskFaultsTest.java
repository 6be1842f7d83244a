package io.nyala.common.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.DiskFaults.Kind;
import io.nyala.common.env.DiskFaults.Op;
import io.nyala.common.env.DiskFaults.Rule;
import io.nyala.common.security.KeyMaterial;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The disk-fault seam of {@link DiskEnv}: each operation of each file type fails as its rule
 * says, only under the rule's dir, with IO_ERROR naming file, operation and fault; one-shot rules
 * fire once, sticky ones until cleared. Plain and encrypting envs alike.
 */
@Timeout(20)
class DiskFaultsTest {
  @TempDir
  Path dir;

  record Fixture(String name, DiskFaults faults, Env env) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Fixture> envs() {
    DiskFaults a = new DiskFaults();
    DiskFaults b = new DiskFaults();
    return Stream.of(new Fixture("plain", a, Env.plain(a)),
        new Fixture("encrypted", b, Env.encrypted(KeyMaterial.random(256), 128, b)));
  }

  @ParameterizedTest
  @MethodSource("envs")
  void eioOnSyncFailsSyncsUnderTheDirOnly(Fixture f) {
    Path bad = dir.resolve("bad");
    Path good = dir.resolve("good");
    f.env().createDirs(bad);
    f.env().createDirs(good);
    try (WritableFile w = f.env().newWritableFile(bad.resolve("w"), OpenOptions.SENSITIVE);
        ReadWriteFile rw = f.env().newReadWriteFile(bad.resolve("rw"), OpenOptions.SENSITIVE);
        WritableFile ok = f.env().newWritableFile(good.resolve("w"), OpenOptions.SENSITIVE)) {
      f.faults().inject(Op.SYNC, Kind.EIO, bad);
      w.append(new byte[] {1, 2, 3}); // writes still work
      rw.write(10, new byte[] {4});
      assertFault(w::sync, bad.resolve("w"), "sync", "EIO", "Input/output error");
      assertFault(rw::sync, bad.resolve("rw"), "sync", "EIO", "Input/output error");
      assertFault(() -> f.env().syncDir(bad), bad, "sync", "EIO", "Input/output error");
      assertFault(() -> f.env().replaceFile(bad.resolve("r"), new byte[] {1},
          OpenOptions.SENSITIVE), bad.resolve("r.tmp"), "sync", "EIO", "Input/output error");
      ok.append(new byte[] {7});
      ok.sync();
      f.env().syncDir(good);
      assertThat(f.faults().fired()).isEqualTo(4);

      f.faults().clear();
      w.sync();
      rw.sync();
      assertThat(f.env().readFile(bad.resolve("w"), OpenOptions.SENSITIVE))
          .containsExactly(1, 2, 3);
    }
  }

  @ParameterizedTest
  @MethodSource("envs")
  void enospcOnWriteFailsAppendsAndPositionalWrites(Fixture f) {
    Path bad = dir.resolve("full");
    f.env().createDirs(bad);
    try (WritableFile w = f.env().newWritableFile(bad.resolve("w"), OpenOptions.SENSITIVE);
        ReadWriteFile rw = f.env().newReadWriteFile(bad.resolve("rw"), OpenOptions.SENSITIVE)) {
      w.append(new byte[] {1});
      f.faults().inject(Op.WRITE, Kind.ENOSPC, bad);
      assertFault(() -> w.append(new byte[] {2}), bad.resolve("w"), "write", "ENOSPC",
          "No space left on device");
      assertFault(() -> rw.write(0, new byte[] {3}), bad.resolve("rw"), "write", "ENOSPC",
          "No space left on device");
      assertFault(() -> rw.truncate(8192), bad.resolve("rw"), "write", "ENOSPC",
          "No space left on device");
      w.sync(); // syncing what is there is no write
      f.faults().clear();
      w.append(new byte[] {4});
      w.sync();
      assertThat(f.env().readFile(bad.resolve("w"), OpenOptions.SENSITIVE))
          .containsExactly(1, 4);
    }
  }

  @ParameterizedTest
  @MethodSource("envs")
  void aNewEncryptedFileFailsAtItsHeaderWriteAndAPlainOneAtItsFirstWrite(Fixture f) {
    f.faults().inject(Op.WRITE, Kind.EIO, dir);
    Path p = dir.resolve("new");
    if (f.env().isEncrypting()) {
      assertFault(() -> f.env().newWritableFile(p, OpenOptions.SENSITIVE), p, "write", "EIO",
          "Input/output error");
    } else {
      try (WritableFile w = f.env().newWritableFile(p, OpenOptions.SENSITIVE)) {
        assertFault(() -> w.append(new byte[] {1}), p, "write", "EIO", "Input/output error");
      }
    }
  }

  @Test
  void aOneShotRuleFiresOnceAndAStickyOneUntilCleared() {
    DiskFaults faults = new DiskFaults();
    Env env = Env.plain(faults);
    faults.inject(new Rule(Op.SYNC, Kind.EIO, dir, false));
    try (WritableFile w = env.newWritableFile(dir.resolve("f"), OpenOptions.NOT_SENSITIVE)) {
      assertFault(w::sync, dir.resolve("f"), "sync", "one-shot EIO", "Input/output error");
      w.sync();
      assertThat(faults.rules()).isEmpty();
      faults.inject(Op.SYNC, Kind.EIO, dir);
      for (int i = 0; i < 3; i++) {
        assertFault(w::sync, dir.resolve("f"), "sync", "EIO", "Input/output error");
      }
      assertThat(faults.fired()).isEqualTo(4);
      faults.clear();
      w.sync();
    }
  }

  @Test
  void isNoSpaceTellsAFullDiskFromOtherErrors() {
    DiskFaults faults = new DiskFaults();
    Env env = Env.plain(faults);
    faults.inject(Op.WRITE, Kind.ENOSPC, dir);
    try (WritableFile w = env.newWritableFile(dir.resolve("f"), OpenOptions.NOT_SENSITIVE)) {
      NyalaException e = catchNyala(() -> w.append(new byte[1]));
      assertThat(DiskFaults.isNoSpace(e)).isTrue();
      faults.clear();
      faults.inject(Op.WRITE, Kind.EIO, dir);
      assertThat(DiskFaults.isNoSpace(catchNyala(() -> w.append(new byte[1])))).isFalse();
    }
  }

  @Test
  void parsesSpecsAndNamesABadOne() {
    Rule r = DiskFaults.parse("eio:sync:" + dir);
    assertThat(r).isEqualTo(new Rule(Op.SYNC, Kind.EIO, dir, true));
    assertThat(DiskFaults.parse("ENOSPC:WRITE:/data/2").under()).isEqualTo(Path.of("/data/2"));
    for (String bad : new String[] {"EIO:SYNC", "EIO:SYNC:", "EBADF:SYNC:/d", "EIO:READ:/d"}) {
      assertThatThrownBy(() -> DiskFaults.parse(bad)).isInstanceOf(NyalaException.class)
          .hasMessageContaining("disk fault '" + bad + "'")
          .extracting(e -> ((NyalaException) e).code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
    }
  }

  private static NyalaException catchNyala(Runnable r) {
    try {
      r.run();
    } catch (NyalaException e) {
      return e;
    }
    throw new AssertionError("expected a NyalaException");
  }

  /** IO_ERROR naming the file, the operation, the rule and the file system's message. */
  private static void assertFault(Runnable r, Path file, String op, String rule,
      String strerror) {
    NyalaException e = catchNyala(r);
    assertThat(e.code()).isEqualTo(StatusCode.IO_ERROR);
    assertThat(e.getMessage()).contains(file.toString()).contains(op + " of " + file)
        .contains("injected disk fault: " + rule).contains(strerror);
  }
}
