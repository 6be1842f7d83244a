package io.nyala.tserver.consensus;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.tserver.consensus.TabletStoreOpener.Installer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.server.protocol.TermIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The destination side of tablet copy for one replica (docs/architecture.md, "Tablet copy"):
 * when the leader's log starts after what this replica has, asks the {@link TabletCopier} to pull
 * the leader's image into a new installer, and cancels copies in progress when the replica is
 * deleted or closed. Thread-safe: copies run on the copier's threads.
 */
final class CopyInstalls {
  private static final Logger LOG = LoggerFactory.getLogger(CopyInstalls.class);

  private final String tabletId;
  /** Makes the installer a new copy writes into. */
  private final Supplier<Installer> installers;
  /** Pulls the leader's image when the log cannot catch this replica up; set by the owner. */
  private volatile TabletCopier copier;
  /** Copies into this replica in progress; cancelled when it is deleted or closed. */
  private final Set<Installer> copies = ConcurrentHashMap.newKeySet();
  /** Why copies into this replica are refused from now on, or null. */
  private volatile String copiesCancelled;

  CopyInstalls(String tabletId, Supplier<Installer> installers) {
    this.tabletId = tabletId;
    this.installers = installers;
  }

  void setCopier(TabletCopier c) {
    this.copier = c;
  }

  /** Whether a copy into this replica is in progress right now. */
  boolean inProgress() {
    return !copies.isEmpty();
  }

  /**
   * The replica is being deleted or closed here: copies in progress stop (their received data is
   * deleted, nothing is installed afterwards) and no new copy starts. Waits for a copy step in
   * progress (at most one item append or one install).
   */
  void cancel(String why) {
    copiesCancelled = why;
    for (Installer c : List.copyOf(copies)) {
      c.cancel().accept(why);
    }
  }

  /**
   * Ratis reports that the leader's log starts at {@code firstTermIndexInLog}: copies the
   * leader's image. Completes with the image's (term, index), or with null when the leader has
   * no image but still its whole log (then the log catches this replica up).
   */
  CompletableFuture<TermIndex> installFromLeader(RoleInfoProto roleInfo,
      TermIndex firstTermIndexInLog) {
    boolean wholeLog = firstTermIndexInLog.getIndex() <= 0;
    TabletCopier c = copier;
    HostPort leader = leaderRpcAddress(roleInfo);
    if (c == null || leader == null) {
      if (wholeLog) {
        return CompletableFuture.completedFuture(null);
      }
      return CompletableFuture.failedFuture(NyalaException.unavailable("tablet %s: cannot copy "
          + "from the leader (%s)", tabletId, c == null ? "no copier" : "leader address unknown"));
    }
    String cancelled = copiesCancelled;
    if (cancelled != null) {
      return CompletableFuture.failedFuture(new NyalaException(StatusCode.ABORTED,
          "tablet " + tabletId + ": no copy: " + cancelled));
    }
    LOG.info("tablet {}: leader's log starts at {}; copying the tablet from {}", tabletId,
        firstTermIndexInLog, leader);
    Installer into = installers.get();
    copies.add(into);
    String raced = copiesCancelled;
    if (raced != null) {
      into.cancel().accept(raced); // a cancel raced with this registration
    }
    CompletableFuture<TermIndex> copied = c.copy(tabletId, leader, into.into())
        .whenComplete((ti, t) -> copies.remove(into));
    return wholeLog ? orWholeLog(copied) : copied;
  }

  /**
   * Ratis offers every joining peer an install once, even when the leader still has its whole
   * log. An image is still preferred: replaying from the start would read writes made before
   * an alter against the schema this replica was created with. Without one (ILLEGAL_STATE: no
   * snapshot yet), null tells Ratis to send the whole log instead.
   */
  private CompletableFuture<TermIndex> orWholeLog(CompletableFuture<TermIndex> copied) {
    return copied.exceptionally(t -> {
      NyalaException e = NyalaException.from(t instanceof CompletionException ce
          && ce.getCause() != null ? ce.getCause() : t);
      if (e.code() != StatusCode.ILLEGAL_STATE) {
        throw e;
      }
      LOG.info("tablet {}: no image on the leader ({}); catching up from its whole log",
          tabletId, e.detail());
      return null;
    });
  }

  /** The leader's RPC address: Ratis fills the leader's peer (with clientAddress) from its conf. */
  private static HostPort leaderRpcAddress(RoleInfoProto roleInfo) {
    if (!roleInfo.hasFollowerInfo()) {
      return null;
    }
    String addr = roleInfo.getFollowerInfo().getLeaderInfo().getId().getClientAddress();
    return addr.isEmpty() ? null : HostPort.parse(addr, 0);
  }
}
