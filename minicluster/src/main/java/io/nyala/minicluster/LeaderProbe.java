package io.nyala.minicluster;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.rpc.Channels;
import java.util.concurrent.TimeUnit;

/**
 * Asks a master a question only the ready leader answers (ListTabletServers), so that "it
 * answered" means "it serves": Raft leadership alone is not enough, the catalog must be caught
 * up too.
 */
final class LeaderProbe {
  private static final long DEADLINE_MS = 2_000;

  private LeaderProbe() {}

  /**
   * The tablet servers as the master at {@code master} sees them if it serves as leader; null if
   * it answered with an error (not the leader, or not ready yet); throws if it is unreachable.
   */
  static ListTabletServersResponsePB tabletServers(Channels channels, HostPort master) {
    ListTabletServersResponsePB r = MasterServiceGrpc.newBlockingStub(channels.get(master))
        .withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS)
        .listTabletServers(ListTabletServersRequestPB.getDefaultInstance());
    return NyalaException.isError(r.getError()) ? null : r;
  }
}
