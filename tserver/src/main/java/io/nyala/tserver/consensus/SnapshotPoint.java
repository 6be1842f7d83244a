package io.nyala.tserver.consensus;

import io.nyala.common.NyalaException;
import io.nyala.tserver.tablet.image.TabletImage;
import java.util.List;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a replica's Ratis snapshot is: the store's last durable flush (term and index, no files;
 * docs/architecture.md, "Decisions": a snapshot is a flush), held back to the lowest copy image
 * still open so that Ratis keeps the log after it for the image's destination to replay.
 * Thread-safe: {@link #take} runs on the apply thread, images open on RPC threads.
 */
final class SnapshotPoint {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotPoint.class);

  private final String tabletId;
  private final TabletStoreOpener opener;
  /** Copy images served from here and still open: snapshots are held back to the lowest. */
  private final ImagePins imagePins = new ImagePins();
  /** What {@link #latest()} reports; written by open and the apply thread. */
  private volatile TermIndex lastSnapshot;

  SnapshotPoint(String tabletId, TabletStoreOpener opener) {
    this.tabletId = tabletId;
    this.opener = opener;
  }

  /** A store was opened at flushed state {@code durable}: that is the snapshot until the next. */
  void opened(TermIndex durable) {
    lastSnapshot = durable;
  }

  /**
   * The snapshot Ratis last took ({@link #take()}), or the flushed state the store was opened at;
   * no files (tablet copy moves blocks); null if none. Not simply the durable index: Ratis skips a
   * snapshot request (and so the log purge) when nothing was applied since this one.
   */
  SnapshotInfo latest() {
    TermIndex ti = lastSnapshot;
    if (ti == null) {
      return null;
    }
    return new SnapshotInfo() {
      @Override
      public TermIndex getTermIndex() {
        return ti;
      }

      @Override
      public List<FileInfo> getFiles() {
        return List.of();
      }

      @Override
      public String toString() {
        return "flushed state at " + ti;
      }
    };
  }

  /**
   * Takes a snapshot: only reports the durable index, the flush did the I/O. While copy images
   * are open it reports the lowest of their indexes instead. Returns the index, or -1 if nothing
   * was flushed yet.
   */
  long take() {
    TermIndex durable = opener.durableTermIndex();
    if (durable == null) {
      return -1;
    }
    TermIndex ti = durable;
    TermIndex held = imagePins.lowest();
    if (held != null && held.getIndex() < durable.getIndex()) {
      ti = held;
      LOG.info("tablet {}: snapshot held back at {} while copy sessions are open", tabletId, ti);
    }
    TermIndex prev = lastSnapshot;
    if (prev == null || ti.getIndex() > prev.getIndex()) {
      lastSnapshot = ti;
    }
    return ti.getIndex();
  }

  /**
   * Opens the durable image a copy session sends, pinned until the image is closed (the state
   * the leader's log continues from). Until then no snapshot moves the log's purge point past
   * it. ILLEGAL_STATE if nothing was flushed yet (then the log itself catches replicas up).
   */
  TabletImage openCopyImage() {
    TermIndex before = opener.durableTermIndex();
    if (before == null) {
      throw NyalaException.illegalState("tablet %s has no snapshot to copy yet (nothing flushed)",
          tabletId);
    }
    // Pinned before the state is captured: a flush meanwhile only moves the durable index up,
    // and its snapshot must not purge past what the image holds.
    imagePins.pin(before.getIndex(), before.getTerm());
    try {
      return opener.openImage(ti -> {
        imagePins.pin(ti.getIndex(), ti.getTerm());
        return () -> imagePins.unpin(ti.getIndex());
      });
    } finally {
      imagePins.unpin(before.getIndex());
    }
  }

  /** Copy images open on this replica. */
  int openImages() {
    return imagePins.count();
  }
}
