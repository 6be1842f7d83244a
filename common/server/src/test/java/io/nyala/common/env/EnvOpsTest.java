package io.nyala.common.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.security.KeyMaterial;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Directory operations and open modes; the same contract for a plain and an encrypting env. */
@Timeout(20)
class EnvOpsTest {
  @TempDir
  Path dir;

  static Stream<Env> envs() {
    return Stream.of(Env.plain(), Env.encrypted(KeyMaterial.random(256), 128));
  }

  @ParameterizedTest
  @MethodSource("envs")
  void directoryOperations(Env env) {
    Path sub = dir.resolve("a/b");
    env.createDirs(sub);
    env.replaceFile(sub.resolve("z"), new byte[] {1, 2, 3}, OpenOptions.SENSITIVE);
    env.replaceFile(sub.resolve("y"), new byte[] {4}, OpenOptions.SENSITIVE);
    env.replaceFile(sub.resolve("y"), new byte[] {5, 6}, OpenOptions.SENSITIVE);
    assertThat(env.listDir(sub)).containsExactly("y", "z");
    assertThat(env.readFile(sub.resolve("y"), OpenOptions.SENSITIVE)).containsExactly(5, 6);
    env.renameFile(sub.resolve("z"), sub.resolve("x"));
    env.syncDir(sub);
    assertThat(env.exists(sub.resolve("z"))).isFalse();
    assertThat(env.readFile(sub.resolve("x"), OpenOptions.SENSITIVE)).containsExactly(1, 2, 3);
    env.deleteFile(sub.resolve("x"));
    assertThat(env.listDir(sub)).containsExactly("y");
    assertCode(() -> env.deleteFile(sub.resolve("x")), StatusCode.NOT_FOUND);
    assertCode(() -> env.listDir(dir.resolve("nope")), StatusCode.NOT_FOUND);
  }

  @ParameterizedTest
  @MethodSource("envs")
  void openModes(Env env) {
    Path p = dir.resolve("f");
    OpenOptions s = OpenOptions.SENSITIVE;
    assertCode(() -> env.newRandomReadFile(p, s), StatusCode.NOT_FOUND);
    assertCode(() -> env.newWritableFile(p, s.withMode(OpenMode.OPEN_EXISTING)),
        StatusCode.NOT_FOUND);
    try (WritableFile w = env.newWritableFile(p, s.withMode(OpenMode.CREATE_NEW))) {
      w.append(new byte[100]);
      w.sync();
    }
    assertCode(() -> env.newWritableFile(p, s.withMode(OpenMode.CREATE_NEW)),
        StatusCode.ALREADY_PRESENT);
    try (ReadWriteFile f = env.newReadWriteFile(p, s)) {
      assertThat(f.size()).isEqualTo(100);
      assertCode(() -> f.readFully(90, 20), StatusCode.CORRUPTION);
    }
    try (WritableFile w = env.newWritableFile(p, s)) {
      assertThat(w.size()).isZero();
    }
    assertThat(env.readFile(p, s)).isEmpty();
  }

  private static void assertCode(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable call, StatusCode code) {
    assertThatThrownBy(call).isInstanceOfSatisfying(NyalaException.class,
        e -> assertThat(e.code()).isEqualTo(code));
  }
}
