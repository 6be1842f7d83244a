package io.nyala.common.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.security.KeyMaterial;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Interrupts never reach a file (FileBackend): an interrupted thread's reads, writes and syncs
 * succeed and it keeps its interrupt flag, and an interrupt that closes a shared file's channel
 * under other threads costs them nothing. A server's clean stop interrupts its pools' threads,
 * and one interrupted flush used to close its block container and fail later writes there as a
 * disk error.
 */
@Timeout(60)
class InterruptedIoTest {
  @TempDir
  Path dir;

  private final KeyMaterial serverKey = KeyMaterial.random(256);

  private Env env(boolean encrypted) {
    return encrypted ? Env.encrypted(serverKey, 256) : Env.plain();
  }

  @ParameterizedTest(name = "encrypted={0}")
  @ValueSource(booleans = {false, true})
  void anInterruptedThreadsWriteSyncAndReadSucceedAndItStaysInterrupted(boolean encrypted) {
    Path p = dir.resolve("f");
    byte[] data = "interrupted but written".getBytes();
    try (ReadWriteFile f = env(encrypted).newReadWriteFile(p, OpenOptions.SENSITIVE)) {
      Thread.currentThread().interrupt();
      f.write(0, data);
      assertThat(Thread.currentThread().isInterrupted()).as("flag kept after a write").isTrue();
      f.sync();
      assertThat(f.readFully(0, data.length)).isEqualTo(data);
      assertThat(f.size()).isEqualTo(data.length);
      DurableDirs.sync(dir);
      assertThat(Thread.interrupted()).as("flag kept after the reads and syncs").isTrue();
      // The same file, not interrupted now: its channel is still usable.
      f.write(data.length, data);
      assertThat(f.readFully(0, 2 * data.length)).startsWith(data).endsWith(data);
    } finally {
      Thread.interrupted();
    }
  }

  /**
   * A writer interrupted over and over while it writes (its channel closed mid-write, some of
   * the time) and a reader sharing the file: every write lands, every read is right, and
   * neither sees an error. (Only the writes are interrupted, every 10-110 us: an fsync takes
   * milliseconds, and no operation finishes if interrupts come faster than it takes.)
   */
  @ParameterizedTest(name = "encrypted={0}")
  @ValueSource(booleans = {false, true})
  void interruptsInTheMiddleOfWritesCloseNothingForTheFilesOtherUsers(boolean encrypted)
      throws Exception {
    Path p = dir.resolve("shared");
    int chunk = 64 << 10;
    int chunks = 64;
    byte[] model = new byte[chunk * chunks];
    new Random(7).nextBytes(model);
    try (ReadWriteFile f = env(encrypted).newReadWriteFile(p, OpenOptions.SENSITIVE)) {
      f.write(0, model, 0, chunk); // the reader's range, written before it starts
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicBoolean done = new AtomicBoolean();
      AtomicInteger interrupts = new AtomicInteger();
      AtomicBoolean writing = new AtomicBoolean();
      Thread writer = new Thread(() -> {
        try {
          for (int round = 0; round < 20; round++) {
            writing.set(true);
            for (int i = 1; i < chunks; i++) {
              f.write((long) i * chunk, model, i * chunk, chunk);
            }
            writing.set(false);
            Thread.interrupted(); // the flag was kept: clear it before the sync
            f.sync();
          }
        } catch (Throwable t) {
          failure.compareAndSet(null, t);
        } finally {
          done.set(true);
        }
      }, "writer");
      Thread reader = new Thread(() -> {
        try {
          while (!done.get()) {
            assertThat(f.readFully(0, chunk)).isEqualTo(Arrays.copyOf(model, chunk));
          }
        } catch (Throwable t) {
          failure.compareAndSet(null, t);
        }
      }, "reader");
      writer.start();
      reader.start();
      Random pace = new Random(11);
      while (!done.get()) {
        if (writing.get()) {
          writer.interrupt();
          interrupts.incrementAndGet();
        }
        LockSupport.parkNanos(10_000 + pace.nextInt(100_000)); // about a write's time
      }
      writer.join();
      reader.join();
      assertThat(failure.get()).as("after %d interrupts", interrupts.get()).isNull();
      assertThat(f.readFully(0, model.length)).isEqualTo(model);
    }
    // And on disk, read back through a new handle.
    try (RandomReadFile r = env(encrypted).newRandomReadFile(p, OpenOptions.SENSITIVE)) {
      assertThat(r.readFully(0, model.length)).isEqualTo(model);
    }
    assertThat(Files.size(p)).isGreaterThanOrEqualTo(model.length);
  }

  @Test
  void aFileClosedOnPurposeStaysClosed() {
    Path p = dir.resolve("closed");
    ReadWriteFile f = env(false).newReadWriteFile(p, OpenOptions.SENSITIVE);
    f.write(0, new byte[] {1});
    f.close();
    assertThatThrownBy(() -> f.write(1, new byte[] {2}))
        .hasMessageContaining(p.toString());
  }
}
