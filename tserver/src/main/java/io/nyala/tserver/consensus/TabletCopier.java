package io.nyala.tserver.consensus;

import io.nyala.common.HostPort;
import io.nyala.tserver.tablet.image.TabletImageInstaller;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.server.protocol.TermIndex;

/**
 * Pulls a tablet's image from its leader into an installer (docs/architecture.md, "Tablet copy").
 * The state machine calls it when Ratis reports that the leader's log no longer holds what this
 * replica needs; the server implements it over the TabletCopyService RPCs.
 */
public interface TabletCopier {
  /**
   * Copies tablet {@code tabletId} from the tablet server at {@code leaderRpc} into
   * {@code into} and installs it; completes with the (term, index) the image holds everything up
   * to, or fails (after aborting the installer). Must not run on the caller's thread.
   */
  CompletableFuture<TermIndex> copy(String tabletId, HostPort leaderRpc,
      TabletImageInstaller into);
}
