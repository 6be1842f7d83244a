package io.nyala.tserver.copy;

import io.grpc.StatusRuntimeException;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
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
import io.nyala.tserver.tablet.image.TabletImageInstaller;
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
 *
 * <p>Resumable by block: a failed FetchData (a transport error, a deadline, a retriable error
 * or a bad CRC) is retried with backoff from the installer's received offset of the same item in
 * the same session, so committed items and received chunks are never fetched again; only
 * {@link Options#maxFetchRetries} consecutive failures without progress fail the copy. When the
 * session itself is gone (NOT_FOUND: expired or ended on the leader) the copy begins a new
 * session, and the installer keeps the items the new image lists too.
 */
public final class TabletCopyClient implements TabletCopier {
  private static final Logger LOG = LoggerFactory.getLogger(TabletCopyClient.class);

  /**
   * How a copy fetches.
   *
   * @param chunkBytes bytes asked per FetchData: large enough to stream, small enough for any
   *     gRPC limit
   * @param callTimeoutMs deadline of each RPC
   * @param maxFetchRetries consecutive failed fetches (without a chunk received) before the copy
   *     fails
   * @param backoffMs wait before the first retry; doubles per consecutive failure
   * @param maxBackoffMs cap of that wait
   * @param maxSessions sessions a copy may begin (the first plus restarts after a lost one)
   */
  public record Options(int chunkBytes, long callTimeoutMs, int maxFetchRetries, long backoffMs,
      long maxBackoffMs, int maxSessions) {
    public static Options defaults() {
      return new Options(512 << 10, 30_000, 8, 100, 5_000, 3);
    }
  }

  private final Channels channels;
  private final String requestorUuid;
  private final ExecutorService executor;
  private final Options options;
  private final MetricRegistry.Counter completed;
  private final MetricRegistry.Counter retries;
  private final MetricRegistry.Counter sessionRestarts;
  private final MetricRegistry.Counter bytesFetched;
  /** Test fault: a pause before each copy session's fetches ({@link #setFaultFetchDelayMs}). */
  private volatile long faultFetchDelayMs;

  public TabletCopyClient(Channels channels, String requestorUuid, ExecutorService executor,
      MetricRegistry metrics) {
    this(channels, requestorUuid, executor, metrics, Options.defaults());
  }

  public TabletCopyClient(Channels channels, String requestorUuid, ExecutorService executor,
      MetricRegistry metrics, Options options) {
    this.channels = channels;
    this.requestorUuid = requestorUuid;
    this.executor = executor;
    this.options = options;
    this.completed = metrics.counter("tablet_copies_completed_total",
        "Tablet replicas rebuilt here by copying the leader's image");
    this.retries = metrics.counter("tablet_copy_fetch_retries_total",
        "FetchData calls of tablet copies retried (same session, from the received offset)");
    this.sessionRestarts = metrics.counter("tablet_copy_session_restarts_total",
        "Tablet copies that began a new session because theirs was gone on the leader");
    this.bytesFetched = metrics.counter("tablet_copy_bytes_fetched_total",
        "Item bytes received by tablet copies (CRC-checked chunks)");
  }

  /**
   * UNSAFE, for tests only ({@code --fault_tablet_copy_fetch_delay_ms}): each copy session
   * waits this long after it begins and before it fetches, so a test can hold a copy in
   * progress; the session on the leader stays open meanwhile.
   */
  public void setFaultFetchDelayMs(long ms) {
    this.faultFetchDelayMs = ms;
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
    for (int session = 1; ; session++) {
      BeginTabletCopySessionResponsePB begin = begin(tabletId, leaderRpc);
      boolean lost = false;
      try {
        into.begin(begin.getManifest().toByteArray(), begin.getLastIndex(), begin.getLastTerm());
        faultDelay(tabletId);
        for (TabletCopyItemPB item : begin.getItemsList()) {
          fetchItem(leaderRpc, begin.getSessionId(), item, into);
        }
      } catch (SessionLostException e) {
        lost = true;
        if (session >= options.maxSessions()) {
          throw e.cause;
        }
        sessionRestarts.inc();
        LOG.warn("tablet {}: copy session {} on {} is gone ({}); beginning a new one", tabletId,
            begin.getSessionId(), leaderRpc, e.cause.getMessage());
        continue;
      } finally {
        if (!lost) {
          endQuietly(leaderRpc, tabletId, begin.getSessionId());
        }
      }
      into.install();
      LOG.info("tablet {}: copied {} items from {} at index {} (session {} of this copy)",
          tabletId, begin.getItemsCount(), leaderRpc, begin.getLastIndex(), session);
      return TermIndex.valueOf(begin.getLastTerm(), begin.getLastIndex());
    }
  }

  private void faultDelay(String tabletId) {
    long ms = faultFetchDelayMs;
    if (ms <= 0) {
      return;
    }
    LOG.warn("tablet {}: UNSAFE test fault --fault_tablet_copy_fetch_delay_ms: copy waits {} ms",
        tabletId, ms);
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.unavailable("tablet %s: copy interrupted", tabletId);
    }
  }

  private BeginTabletCopySessionResponsePB begin(String tabletId, HostPort leaderRpc) {
    BeginTabletCopySessionResponsePB begin = stub(leaderRpc).beginTabletCopySession(
        BeginTabletCopySessionRequestPB.newBuilder().setTabletId(tabletId)
            .setRequestorUuid(requestorUuid).build());
    if (NyalaException.isError(begin.getError())) {
      throw NyalaException.fromPb(begin.getError());
    }
    return begin;
  }

  /** Fetches the rest of one item, from what the installer holds of it, retrying failures. */
  private void fetchItem(HostPort leaderRpc, String session, TabletCopyItemPB item,
      TabletImageInstaller into) throws IOException {
    long offset = into.received(item.getItemId());
    int failures = 0;
    while (offset < item.getLength()) {
      byte[] data;
      try {
        data = fetchChunk(leaderRpc, session, item, offset);
      } catch (RetriableFetchException e) {
        if (++failures > options.maxFetchRetries()) {
          throw NyalaException.unavailable("tablet copy item '%s': %d fetches at offset %d "
              + "failed, the last with: %s", item.getItemId(), failures, offset, e.getMessage());
        }
        retries.inc();
        LOG.info("tablet copy item '{}': fetch at offset {} failed ({}); retry {} of {}",
            item.getItemId(), offset, e.getMessage(), failures, options.maxFetchRetries());
        backoff(failures);
        continue;
      }
      failures = 0;
      into.write(item.getItemId(), offset, data, 0, data.length);
      bytesFetched.add(data.length);
      offset += data.length;
    }
  }

  /** One CRC-checked chunk; a lost session and retriable failures are told apart. */
  private byte[] fetchChunk(HostPort leaderRpc, String session, TabletCopyItemPB item,
      long offset) throws RetriableFetchException {
    FetchDataResponsePB r;
    try {
      r = stub(leaderRpc).fetchData(FetchDataRequestPB.newBuilder().setSessionId(session)
          .setItemId(item.getItemId()).setOffset(offset).setMaxLength(options.chunkBytes())
          .build());
    } catch (StatusRuntimeException e) {
      throw new RetriableFetchException(e.getStatus().getCode() + ": "
          + e.getStatus().getDescription());
    }
    if (NyalaException.isError(r.getError())) {
      NyalaException ne = NyalaException.fromPb(r.getError());
      if (ne.code() == StatusCode.NOT_FOUND) {
        throw new SessionLostException(ne);
      }
      if (ne.isRetriable()) {
        throw new RetriableFetchException(ne.getMessage());
      }
      throw ne;
    }
    byte[] data = r.getData().toByteArray();
    if (data.length == 0) {
      throw NyalaException.corruption("tablet copy item '%s' ended at %d of %d bytes",
          item.getItemId(), offset, item.getLength());
    }
    CRC32C crc = new CRC32C();
    crc.update(data);
    if ((int) crc.getValue() != r.getCrc32C()) {
      throw new RetriableFetchException("CRC mismatch in the chunk at offset " + offset);
    }
    return data;
  }

  private void backoff(int failures) {
    long ms = Math.min(options.maxBackoffMs(),
        options.backoffMs() << Math.min(20, failures - 1));
    try {
      Thread.sleep(ms); // pacing retries against a struggling leader, not waiting for a state
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.unavailable("tablet copy interrupted while backing off");
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
        .withDeadlineAfter(options.callTimeoutMs(), TimeUnit.MILLISECONDS);
  }

  /** A fetch that may succeed if tried again in the same session. */
  private static final class RetriableFetchException extends Exception {
    RetriableFetchException(String message) {
      super(message, null, false, false);
    }
  }

  /** The session is gone on the leader: only a new session can go on. */
  private static final class SessionLostException extends RuntimeException {
    final NyalaException cause;

    SessionLostException(NyalaException cause) {
      super(cause.getMessage(), cause, false, false);
      this.cause = cause;
    }
  }
}
