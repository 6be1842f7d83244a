package io.nyala.master;

import io.grpc.ManagedChannel;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.ServerRegistrationPB;
import io.nyala.common.proto.master.GetMasterRegistrationRequestPB;
import io.nyala.common.proto.master.GetMasterRegistrationResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.rpc.Channels;
import io.nyala.master.catalog.SysCatalog;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.ratis.protocol.RaftPeer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First start of a multi-master cluster: asks every address of {@code --master_addresses}
 * (this master's own included, over its RPC server, which is already up) for its uuid and Raft
 * address, retrying until all have answered, and returns them as the sys catalog's initial
 * peers. Later starts never come here: Ratis recovers the configuration it persisted.
 */
final class MasterDiscovery {
  private static final Logger LOG = LoggerFactory.getLogger(MasterDiscovery.class);
  private static final long ATTEMPT_DEADLINE_MS = 2_000;
  private static final long RETRY_MS = 200;
  private static final long LOG_EVERY_MS = 5_000;

  private final String selfUuid;
  private final List<HostPort> masters;
  private final Channels channels;
  private final BooleanSupplier stopped;

  MasterDiscovery(String selfUuid, List<HostPort> masters, Channels channels,
      BooleanSupplier stopped) {
    this.selfUuid = selfUuid;
    this.masters = List.copyOf(masters);
    this.channels = channels;
    this.stopped = stopped;
  }

  /** The masters as Raft peers in {@code --master_addresses} order; waits up to the timeout. */
  List<RaftPeer> discover(long timeoutMs) {
    Map<HostPort, ServerRegistrationPB> found = new LinkedHashMap<>();
    // Monotonic: a wall-clock step must not end or stretch the wait (docs/data-safety.md).
    long start = TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    long lastLog = start;
    while (found.size() < masters.size()) {
      List<String> missing = new ArrayList<>();
      for (HostPort m : masters) {
        if (!found.containsKey(m)) {
          String error = ask(m, found);
          if (error != null) {
            missing.add(m + " (" + error + ")");
          }
        }
      }
      if (missing.isEmpty()) {
        break;
      }
      long now = TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
      if (now - start >= timeoutMs) {
        throw NyalaException.timedOut("masters %s did not answer GetMasterRegistration within "
            + "%d ms: %s", HostPort.toString(masters), timeoutMs, String.join(", ", missing));
      }
      if (now - lastLog >= LOG_EVERY_MS) {
        lastLog = now;
        LOG.info("waiting for masters to answer: {}", String.join(", ", missing));
      }
      pause();
    }
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime()) - start;
    return toPeers(found, tookMs);
  }

  /** Records the registration of {@code m}; returns why it failed, or null. */
  private String ask(HostPort m, Map<HostPort, ServerRegistrationPB> found) {
    // Channels#get cuts gRPC's reconnect backoff short: without that, the first master to
    // start found the others a second or more after they were up, and started its Raft late.
    ManagedChannel channel = channels.get(m);
    try {
      GetMasterRegistrationResponsePB r = MasterServiceGrpc.newBlockingStub(channel)
          .withDeadlineAfter(ATTEMPT_DEADLINE_MS, TimeUnit.MILLISECONDS)
          .getMasterRegistration(GetMasterRegistrationRequestPB.getDefaultInstance());
      if (NyalaException.isError(r.getError())) {
        return NyalaException.fromPb(r.getError()).getMessage();
      }
      found.put(m, r.getRegistration());
      return null;
    } catch (RuntimeException e) {
      return NyalaException.from(e).getMessage();
    }
  }

  private List<RaftPeer> toPeers(Map<HostPort, ServerRegistrationPB> found, long tookMs) {
    Set<String> uuids = new HashSet<>();
    List<RaftPeer> peers = new ArrayList<>();
    for (Map.Entry<HostPort, ServerRegistrationPB> e : found.entrySet()) {
      ServerRegistrationPB reg = e.getValue();
      if (!uuids.add(reg.getUuid())) {
        throw NyalaException.invalidArgument("--master_addresses %s names master %s twice (%s)",
            HostPort.toString(masters), reg.getUuid(), e.getKey());
      }
      // The address we reached it on, which is what the other masters and clients use.
      peers.add(SysCatalog.peer(reg.getUuid(), HostPort.fromPb(reg.getRaftAddress()),
          e.getKey()));
    }
    if (!uuids.contains(selfUuid)) {
      throw NyalaException.invalidArgument("this master (%s) is not among --master_addresses %s",
          selfUuid, HostPort.toString(masters));
    }
    // How long it took tells a late Raft start (docs/testing.md, "Network partitions").
    LOG.info("sys catalog peers discovered in {} ms: {}", tookMs, peers);
    return peers;
  }

  private void pause() {
    if (stopped.getAsBoolean()) {
      throw NyalaException.illegalState("master stopped while discovering masters %s",
          HostPort.toString(masters));
    }
    try {
      Thread.sleep(RETRY_MS); // the other masters are starting; nothing to wait on but time
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.illegalState("interrupted while discovering masters %s",
          HostPort.toString(masters));
    }
  }
}
