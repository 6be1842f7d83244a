package io.nyala.tserver.copy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ServerInterceptors;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.Env;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.rpc.Channels;
import io.nyala.common.rpc.RpcServer;
import io.nyala.tserver.copy.FetchFaults.Fault;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.file.FileBlockManager;
import io.nyala.tserver.tablet.Superblock;
import io.nyala.tserver.tablet.image.BlockImageInstaller;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.apache.ratis.server.protocol.TermIndex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tablet copy over real gRPC on loopback with faults injected between client and service: a
 * failed fetch resumes at the received offset in the same session, a lost session starts over
 * with a new one that keeps the blocks both images list, and retries are bounded. The
 * destination is the real installer on a real block manager.
 */
@Timeout(60)
class TabletCopyClientTest {
  private static final int CHUNK = 16 << 10;
  private static final long TTL_MS = 60_000;
  private static final TabletCopyClient.Options OPTIONS =
      new TabletCopyClient.Options(CHUNK, 10_000, 4, 1, 4, 3);

  @TempDir Path dir;
  private final Env env = Env.plain();
  private final AtomicLong clock = new AtomicLong();
  private final AtomicInteger imagesClosed = new AtomicInteger();
  /** The images the source serves, one per session begun. */
  private final Queue<BytesImage> images = new ArrayDeque<>();
  private final CopySessions sessions = new CopySessions(t -> images.remove(), TTL_MS, clock::get);
  private final MetricRegistry metrics = new MetricRegistry("dest");
  private final Channels channels = new Channels();
  private final ExecutorService executor = Executors.newSingleThreadExecutor();
  private BlockManager blocks;
  private RpcServer server;
  private FetchFaults faults;

  @BeforeEach
  void setUp() {
    blocks = FileBlockManager.open(env, List.of(dir.resolve("blocks")));
  }

  @AfterEach
  void tearDown() {
    executor.shutdownNow();
    channels.close();
    if (server != null) {
      server.close();
    }
    sessions.close();
    blocks.close();
  }

  /** Serves the copy service behind {@code plan}'s faults; expiry moves the clock past the TTL. */
  private HostPort serve(IntFunction<Fault> plan) {
    faults = new FetchFaults(plan, () -> {
      clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(TTL_MS) + 1);
      sessions.sweep();
    });
    server = new RpcServer("source", new HostPort("127.0.0.1", 0), 2, new MetricRegistry("src"));
    server.addService(() -> ServerInterceptors.intercept(new TabletCopyService(sessions), faults));
    server.start();
    return server.boundAddress();
  }

  private static BytesImage image(long index, long[] ids, int[] sizes, AtomicInteger closes) {
    Map<Long, Integer> m = new LinkedHashMap<>();
    for (int i = 0; i < ids.length; i++) {
      m.put(ids[i], sizes[i]);
    }
    return new BytesImage(index, m, closes);
  }

  private TermIndex copy(HostPort source) throws Exception {
    return copy(source, OPTIONS);
  }

  private TermIndex copy(HostPort source, TabletCopyClient.Options options) throws Exception {
    BlockImageInstaller into = new BlockImageInstaller(env, blocks, superblockFile(), () -> {});
    TabletCopyClient client = new TabletCopyClient(channels, "dest", executor, metrics, options);
    return client.copy("t1", source, into).get(30, TimeUnit.SECONDS);
  }

  private Path superblockFile() {
    return dir.resolve("superblock");
  }

  /** The installed superblock lists new blocks holding exactly the image's bytes, and no more. */
  private void assertInstalled(BytesImage image) {
    Superblock sb = Superblock.read(env, superblockFile());
    assertThat(sb.durableIndex()).isEqualTo(image.lastIndex());
    List<BlockId> local = sb.allBlocks();
    assertThat(local).hasSize(image.items().size());
    for (int i = 0; i < local.size(); i++) {
      assertThat(blocks.openBlock(local.get(i)).readAll()).as("block %d", i)
          .isEqualTo(image.block(i));
    }
    assertThat(blocks.blockIds()).containsExactlyInAnyOrderElementsOf(local);
  }

  private long metric(String name) {
    return metrics.value(name);
  }

  @Test
  void failedFetchesResumeAtTheReceivedOffsetInTheSameSession() throws Exception {
    BytesImage image = image(7, new long[] {11, 12, 13, 14},
        new int[] {100_000, 50_000, 1, 70_001}, imagesClosed);
    images.add(image);
    // Every 3rd fetch breaks, alternating connection loss and a deadline error; every 5th has a
    // bad CRC; the 4th is never answered, so the client's own (short) deadline ends it.
    HostPort source = serve(n -> n == 4 ? Fault.STALL : n % 3 == 0 ? (n % 2 == 0
        ? Fault.UNAVAILABLE : Fault.DEADLINE_EXCEEDED) : n % 5 == 0 ? Fault.BAD_CRC : Fault.NONE);

    TermIndex ti = copy(source, new TabletCopyClient.Options(CHUNK, 1_000, 4, 1, 4, 3));

    assertThat(ti.getIndex()).isEqualTo(7);
    assertInstalled(image);
    assertThat(faults.begins).hasValue(1);
    assertThat(metric("tablet_copy_fetch_retries_total")).isPositive()
        .isEqualTo(faults.fetches.get() - chunks(image));
    // Nothing was fetched twice: every byte received once, none from a restart at 0.
    assertThat(metric("tablet_copy_bytes_fetched_total")).isEqualTo(image.totalBytes());
    assertThat(metric("tablet_copy_session_restarts_total")).isZero();
    assertThat(sessions.activeCount()).isZero();
    assertThat(imagesClosed).hasValue(1);
  }

  private static long chunks(BytesImage image) {
    return image.items().stream().mapToLong(i -> (i.length() + CHUNK - 1) / CHUNK).sum();
  }

  @Test
  void aLostSessionStartsOverWithANewOneKeepingTheBlocksBothImagesList() throws Exception {
    // Between the sessions the leader compacted block 14 away and flushed block 15.
    BytesImage first = image(7, new long[] {11, 14, 12, 13},
        new int[] {100_000, 20_000, 50_000, 1}, imagesClosed);
    BytesImage second = image(9, new long[] {11, 12, 13, 15},
        new int[] {100_000, 50_000, 1, 30_000}, imagesClosed);
    images.add(first);
    images.add(second);
    // Fetches 1-7 take block 11, 8-9 block 14, 10 the first chunk of block 12; then the session
    // expires.
    HostPort source = serve(n -> n == 11 ? Fault.EXPIRE_SESSION : Fault.NONE);

    TermIndex ti = copy(source);

    assertThat(ti.getIndex()).isEqualTo(9);
    assertInstalled(second); // also: the copy of block 14 was deleted
    assertThat(faults.begins).hasValue(2);
    assertThat(metric("tablet_copy_session_restarts_total")).isEqualTo(1);
    assertThat(metric("tablet_copy_fetch_retries_total")).isZero();
    // Block 11 was not fetched again; block 14 and block 12's first chunk were wasted.
    assertThat(metric("tablet_copy_bytes_fetched_total"))
        .isEqualTo(second.totalBytes() + 20_000 + CHUNK);
    assertThat(sessions.activeCount()).isZero();
    assertThat(imagesClosed).hasValue(2);
  }

  @Test
  void aFetchThatKeepsFailingFailsTheCopyAfterBoundedRetriesAndLeavesNoBlock() {
    images.add(image(7, new long[] {11, 12}, new int[] {40_000, 10}, imagesClosed));
    HostPort source = serve(n -> n <= 2 ? Fault.NONE : Fault.UNAVAILABLE);

    assertThatThrownBy(() -> copy(source)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOfSatisfying(NyalaException.class, e -> {
          assertThat(e.code()).isEqualTo(StatusCode.SERVICE_UNAVAILABLE);
          assertThat(e.getMessage()).contains(new BlockId(11).toString()).contains("offset 32768");
        });
    assertThat(faults.fetches).hasValue(2 + OPTIONS.maxFetchRetries() + 1);
    assertThat(metric("tablet_copy_fetch_retries_total")).isEqualTo(OPTIONS.maxFetchRetries());
    assertThat(blocks.blockIds()).isEmpty();
    assertThat(sessions.activeCount()).isZero();
  }
}
