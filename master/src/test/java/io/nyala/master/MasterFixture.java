package io.nyala.master;

import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.nyala.common.net.TestPorts;
import io.nyala.common.proto.master.MasterServiceGrpc;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;

/**
 * One real master on loopback (ephemeral RPC and HTTP ports, a free Raft port kept across
 * restarts) with a blocking stub, and a clock tests can move forward.
 */
final class MasterFixture implements AutoCloseable {
  final Path dir;
  final List<String> extraFlags;
  final int raftPort;
  /** Added to System.nanoTime: tests advance it to age heartbeats. */
  final AtomicLong clockOffsetNanos = new AtomicLong();
  MasterServer master;
  ManagedChannel channel;
  MasterServiceGrpc.MasterServiceBlockingStub stub;

  private MasterFixture(Path dir, List<String> extraFlags) {
    this.dir = dir;
    this.extraFlags = extraFlags;
    this.raftPort = freePort();
  }

  static MasterFixture start(Path dir, String... extraFlags) {
    MasterFixture f = new MasterFixture(dir, List.of(extraFlags));
    f.startMaster();
    return f;
  }

  /** See {@link TestPorts}: never from the ephemeral range. */
  static int freePort() {
    return TestPorts.freePort();
  }

  MasterOptions options() {
    List<String> args = new ArrayList<>(List.of(
        "--fs_data_dirs=" + dir.resolve("data"),
        "--fs_wal_dir=" + dir.resolve("wal"),
        "--rpc_bind_addresses=127.0.0.1:0",
        "--raft_bind_address=127.0.0.1:" + raftPort,
        "--webserver_port=0",
        "--server_name=m-test",
        "--raft_election_timeout_min_ms=300",
        "--raft_election_timeout_max_ms=600",
        "--tablet_creation_retry_ms=500"));
    args.addAll(extraFlags);
    MasterOptions o = new MasterOptions();
    CommandLine cmd = new CommandLine(o);
    cmd.setOverwrittenOptionsAllowed(true); // a test's flags override the defaults above
    cmd.parseArgs(args.toArray(String[]::new));
    return o;
  }

  void startMaster() {
    master = new MasterServer(options(), () -> System.nanoTime() + clockOffsetNanos.get());
    master.start();
    channel = NettyChannelBuilder.forAddress(master.rpcAddress().host(),
        master.rpcAddress().port()).usePlaintext().build();
    stub = MasterServiceGrpc.newBlockingStub(channel);
    await().atMost(Duration.ofSeconds(20)).until(master::isLeader);
  }

  MasterServiceGrpc.MasterServiceBlockingStub stub() {
    return stub.withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  void restart() {
    stopMaster();
    startMaster();
  }

  void advanceClock(Duration d) {
    clockOffsetNanos.addAndGet(d.toNanos());
  }

  private void stopMaster() {
    if (channel != null) {
      channel.shutdownNow();
    }
    if (master != null) {
      master.close();
    }
  }

  @Override
  public void close() {
    stopMaster();
  }
}
