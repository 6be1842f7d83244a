package io.nyala.tserver.copy;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.tserver.BeginTabletCopySessionRequestPB;
import io.nyala.common.proto.tserver.BeginTabletCopySessionResponsePB;
import io.nyala.common.proto.tserver.EndTabletCopySessionRequestPB;
import io.nyala.common.proto.tserver.FetchDataRequestPB;
import io.nyala.common.proto.tserver.FetchDataResponsePB;
import io.nyala.common.proto.tserver.TabletCopyItemPB;
import io.nyala.common.proto.tserver.TabletCopyServiceGrpc;
import io.nyala.common.proto.tserver.TabletCopyServiceGrpc.TabletCopyServiceBlockingStub;
import io.nyala.common.rpc.Channels;
import io.nyala.tserver.consensus.TabletCopier;
import io.nyala.tserver.tablet.TabletImageInstaller;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.apache.ratis.server.protocol.TermIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The destination side of tablet copy: opens a session on the leader, fetches every item in
 * chunks (checking each chunk's CRC32C) into the installer, ends the session and installs. Runs
 * on its own executor: Ratis calls in on its RPC threads, which must not block.
 */
public final class TabletCopyClient implements TabletCopier {
  private static final Logger LOG = LoggerFactory.getLogger(TabletCopyClient.class);
  /** Bytes asked per FetchData: large enough to stream, small enough for any gRPC limit. */
  static final int CHUNK = 512 << 10;
  private static final long CALL_TIMEOUT_MS = 30_000;

  private final Channels channels;
  private final String requestorUuid;
  private final ExecutorService executor;
  private final MetricRegistry.Counter completed;

  public TabletCopyClient(Channels channels, String requestorUuid, ExecutorService executor,
      MetricRegistry metrics) {
    this.channels = channels;
    this.requestorUuid = requestorUuid;
    this.executor = executor;
    this.completed = metrics.counter("tablet_copies_completed_total",
        "Tablet replicas rebuilt here by copying the leader's image");
  }

  @Override
  public CompletableFuture<TermIndex> copy(String tabletId, HostPort leaderRpc,
      TabletImageInstaller into) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        TermIndex ti = copyNow(tabletId, leaderRpc, into);
        completed.add(1);
        return ti;
      } catch (IOException | RuntimeException e) {
        into.abort();
        LOG.warn("tablet {}: copy from {} failed: {}", tabletId, leaderRpc, e.getMessage());
        throw e instanceof NyalaException ne ? ne
            : NyalaException.ioError("tablet " + tabletId + ": copy from " + leaderRpc
                + " failed: " + e.getMessage(), e);
      }
    }, executor);
  }

  private TermIndex copyNow(String tabletId, HostPort leaderRpc, TabletImageInstaller into)
      throws IOException {
    TabletCopyServiceBlockingStub stub = stub(leaderRpc);
    BeginTabletCopySessionResponsePB begin = stub.beginTabletCopySession(
        BeginTabletCopySessionRequestPB.newBuilder().setTabletId(tabletId)
            .setRequestorUuid(requestorUuid).build());
    if (NyalaException.isError(begin.getError())) {
      throw NyalaException.fromPb(begin.getError());
    }
    String session = begin.getSessionId();
    long bytes = 0;
    try {
      into.begin(begin.getManifest().toByteArray(), begin.getLastIndex(), begin.getLastTerm());
      for (TabletCopyItemPB item : begin.getItemsList()) {
        fetchItem(leaderRpc, session, item, into);
        bytes += item.getLength();
      }
    } finally {
      endQuietly(leaderRpc, tabletId, session);
    }
    into.install();
    LOG.info("tablet {}: copied {} items ({} bytes) from {} at index {}", tabletId,
        begin.getItemsCount(), bytes, leaderRpc, begin.getLastIndex());
    return TermIndex.valueOf(begin.getLastTerm(), begin.getLastIndex());
  }

  /**
   * Fetches one item from offset 0 in chunks. A failure fails the whole copy; Ratis notifies
   * again and the copy restarts (the server side could resume at any offset).
   */
  private void fetchItem(HostPort leaderRpc, String session, TabletCopyItemPB item,
      TabletImageInstaller into) throws IOException {
    long offset = 0;
    while (offset < item.getLength()) {
      FetchDataResponsePB r = stub(leaderRpc).fetchData(FetchDataRequestPB.newBuilder()
          .setSessionId(session).setItemId(item.getItemId()).setOffset(offset)
          .setMaxLength(CHUNK).build());
      if (NyalaException.isError(r.getError())) {
        throw NyalaException.fromPb(r.getError());
      }
      byte[] data = r.getData().toByteArray();
      if (data.length == 0) {
        throw NyalaException.corruption("tablet copy item '%s' ended at %d of %d bytes",
            item.getItemId(), offset, item.getLength());
      }
      CRC32C crc = new CRC32C();
      crc.update(data);
      if ((int) crc.getValue() != r.getCrc32C()) {
        throw NyalaException.corruption("tablet copy item '%s': CRC mismatch in the chunk at "
            + "offset %d", item.getItemId(), offset);
      }
      into.write(item.getItemId(), offset, data, 0, data.length);
      offset += data.length;
    }
  }

  private void endQuietly(HostPort leaderRpc, String tabletId, String session) {
    try {
      stub(leaderRpc).endTabletCopySession(
          EndTabletCopySessionRequestPB.newBuilder().setSessionId(session).build());
    } catch (RuntimeException e) {
      LOG.warn("tablet {}: cannot end copy session {} on {} (it expires by itself): {}",
          tabletId, session, leaderRpc, e.getMessage());
    }
  }

  private TabletCopyServiceBlockingStub stub(HostPort addr) {
    return TabletCopyServiceGrpc.newBlockingStub(channels.get(addr))
        .withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
  }
}
