package io.nyala.master;

import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.nyala.common.HostPort;
import io.nyala.common.proto.master.MasterServiceGrpc;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import picocli.CommandLine;

/**
 * Several real masters in this JVM sharing one {@code --master_addresses} (free loopback ports
 * kept across restarts), each with its own clock offset and a blocking stub.
 */
final class MastersFixture implements AutoCloseable {
  private final Path dir;
  private final List<String> extraFlags;
  private final List<HostPort> rpc = new ArrayList<>();
  private final List<HostPort> raft = new ArrayList<>();
  final List<AtomicLong> clockOffsetNanos = new ArrayList<>();
  private final MasterServer[] masters;
  private final ManagedChannel[] channels;
  /** Per master, flags after the shared ones (so they win), for its next start. */
  private final List<List<String>> ownFlags = new ArrayList<>();
  /** Per master, what runs (given the master) just before its Raft server starts, or null. */
  private final List<Consumer<MasterServer>> beforeRaft = new ArrayList<>();

  private MastersFixture(Path dir, int n, List<String> extraFlags) {
    this.dir = dir;
    this.extraFlags = extraFlags;
    this.masters = new MasterServer[n];
    this.channels = new ManagedChannel[n];
    for (int i = 0; i < n; i++) {
      rpc.add(new HostPort("127.0.0.1", MasterFixture.freePort()));
      raft.add(new HostPort("127.0.0.1", MasterFixture.freePort()));
      clockOffsetNanos.add(new AtomicLong());
      beforeRaft.add(null);
      ownFlags.add(List.of());
    }
  }

  /** {@code n} masters' addresses and options, none started. */
  static MastersFixture create(Path dir, int n, String... extraFlags) {
    return new MastersFixture(dir, n, List.of(extraFlags));
  }

  /** Starts {@code n} masters at once (each waits in discovery for the others). */
  static MastersFixture start(Path dir, int n, String... extraFlags) {
    MastersFixture f = create(dir, n, extraFlags);
    List<CompletableFuture<Void>> starts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int index = i;
      starts.add(CompletableFuture.runAsync(() -> f.startMaster(index)));
    }
    try {
      CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).join();
    } catch (RuntimeException e) {
      f.close();
      throw e;
    }
    return f;
  }

  String masterAddresses() {
    return rpc.stream().map(HostPort::toString).collect(Collectors.joining(","));
  }

  MasterOptions options(int i) {
    List<String> args = new ArrayList<>(List.of(
        "--fs_data_dirs=" + dir.resolve("m" + i).resolve("data"),
        "--fs_wal_dir=" + dir.resolve("m" + i).resolve("wal"),
        "--rpc_bind_addresses=" + rpc.get(i),
        "--raft_bind_address=" + raft.get(i),
        "--webserver_port=0",
        "--server_name=m" + i,
        "--master_addresses=" + masterAddresses(),
        "--tablet_creation_retry_ms=500"));
    args.addAll(extraFlags);
    args.addAll(ownFlags.get(i));
    MasterOptions o = new MasterOptions();
    CommandLine cmd = new CommandLine(o);
    cmd.setOverwrittenOptionsAllowed(true);
    cmd.parseArgs(args.toArray(String[]::new));
    return o;
  }

  /** Gives master {@code i} {@code flags} after the shared ones, for its next start. */
  void ownFlags(int i, String... flags) {
    ownFlags.set(i, List.of(flags));
  }

  /**
   * Makes master {@code i} run {@code hook} after its discovery, just before its Raft server
   * starts (e.g. to hold it back); for its next start.
   */
  void beforeRaftStart(int i, Consumer<MasterServer> hook) {
    beforeRaft.set(i, hook);
  }

  void startMaster(int i) {
    AtomicLong offset = clockOffsetNanos.get(i);
    Consumer<MasterServer> hook = beforeRaft.get(i);
    MasterServer m = hook == null
        ? new MasterServer(options(i), () -> System.nanoTime() + offset.get())
        : new MasterServer(options(i), () -> System.nanoTime() + offset.get()) {
          @Override
          protected void beforeRaftStart() {
            hook.accept(this);
          }
        };
    try {
      m.start();
    } catch (RuntimeException e) {
      m.close();
      throw e;
    }
    masters[i] = m;
    channels[i] = NettyChannelBuilder.forAddress(rpc.get(i).host(), rpc.get(i).port())
        .usePlaintext().build();
  }

  void stopMaster(int i) {
    if (channels[i] != null) {
      channels[i].shutdownNow();
      channels[i] = null;
    }
    if (masters[i] != null) {
      masters[i].close();
      masters[i] = null;
    }
  }

  MasterServer master(int i) {
    return masters[i];
  }

  HostPort rpcAddress(int i) {
    return rpc.get(i);
  }

  HostPort raftAddress(int i) {
    return raft.get(i);
  }

  MasterServiceGrpc.MasterServiceBlockingStub stub(int i) {
    return MasterServiceGrpc.newBlockingStub(channels[i]).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  /** Waits until one running master is the ready leader; returns its index. */
  int awaitLeader() {
    int[] found = {-1};
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      for (int i = 0; i < masters.length; i++) {
        if (masters[i] != null && masters[i].isLeader()) {
          found[0] = i;
          return true;
        }
      }
      return false;
    });
    return found[0];
  }

  /**
   * Waits until every running master's catalog holds {@code tables}. A test that stops the
   * leader needs it first: Ratis never counts the vote of a member whose log is empty once the
   * group has committed entries (RATIS-1995, against a re-formatted disk voting), so a master
   * that started late and has received nothing cannot help the survivors elect.
   */
  void awaitEveryMasterHolds(String... tables) {
    for (MasterServer m : masters) {
      if (m == null) {
        continue;
      }
      await().atMost(Duration.ofSeconds(20)).until(() -> m.catalog().catalog().read(s -> {
        for (String t : tables) {
          if (s.tableByName(t) == null) {
            return false;
          }
        }
        return true;
      }));
    }
  }

  /** Waits until master {@code i} is the ready leader. */
  void awaitLeader(int i) {
    await().atMost(Duration.ofSeconds(30)).until(() -> masters[i].isLeader());
  }

  void advanceClock(int i, Duration d) {
    clockOffsetNanos.get(i).addAndGet(d.toNanos());
  }

  @Override
  public void close() {
    for (int i = 0; i < masters.length; i++) {
      stopMaster(i);
    }
  }
}
