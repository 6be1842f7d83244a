package io.nyala.tserver.consensus;

import io.nyala.common.NyalaException;
import io.nyala.tserver.tablet.HistoryRetention;
import io.nyala.tserver.tablet.TabletStore;
import io.nyala.tserver.tablet.image.TabletImage;
import io.nyala.tserver.tablet.image.TabletImageInstaller;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.ratis.server.protocol.TermIndex;

/**
 * What the state machine needs of one replica's storage engine beyond {@link TabletStore}:
 * opening the store from its durable state, that state's (term, index), and the two sides of
 * tablet copy (docs/architecture.md, "Tablet copy"). One per replica; it knows the store it
 * opened last ("the open store"). The production one is {@link BlockStoreOpener}.
 *
 * <p>Threads: {@link #open} runs on Ratis' threads (initialize, reinitialize), one at a time;
 * the other methods may be called from any thread.
 */
public interface TabletStoreOpener {
  /** What the store opens from, for messages (e.g. "superblock /data/1/t1.superblock"). */
  String source();

  /**
   * Opens the replica's store at its durable state (an empty store with the replica's initial
   * schema if nothing was ever flushed); Ratis replays the log after its durable index. A store
   * opened before (a reopen after a tablet copy installed new state) lets go of what the new one
   * does not use, once no reader holds it. Damage that reads find later is reported to
   * {@code onDamaged}. Throws (CORRUPTION, IO_ERROR, ...) when the durable state is damaged;
   * then no store is open.
   */
  TabletStore open(HistoryRetention history, Consumer<NyalaException> onDamaged);

  /**
   * The open store's durable (term, index), read together; null if no store is open or nothing
   * was flushed yet. No I/O.
   */
  TermIndex durableTermIndex();

  /**
   * Pins the open store's durable state and opens it as a copy image. Calls {@code pin} with the
   * image's (term, index) as soon as that is captured, before the image is opened; the
   * {@link Runnable} it returns runs once, when the image is closed or fails to open.
   */
  TabletImage openImage(Function<TermIndex, Runnable> pin);

  /**
   * Where a copied image goes: new durable state of this replica, which the next {@link #open}
   * loads. {@code beforeInstall} runs just before the current durable state is replaced.
   */
  Installer newInstaller(Runnable beforeInstall);

  /**
   * A copy's installer and how to stop it for good: {@code cancel} drops what it received, waits
   * for a step in progress, and makes every later call fail ABORTED naming the reason.
   */
  record Installer(TabletImageInstaller into, Consumer<String> cancel) {}
}
