package io.nyala.tserver.consensus;

import io.nyala.common.NyalaException;
import io.nyala.tserver.tablet.HistoryRetention;
import io.nyala.tserver.tablet.TabletStore;
import io.nyala.tserver.tablet.image.TabletImage;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.ratis.server.protocol.TermIndex;

/**
 * A {@link TabletStoreOpener} over {@link FakeTabletStore}s: {@link #open} hands out the store
 * set by {@link #next} (what a tablet copy installed, or damage to throw). Copy images are not
 * served; installers are not made (tests of the state machine call {@link #next} instead).
 */
final class FakeStoreOpener implements TabletStoreOpener {
  private FakeTabletStore next;
  private RuntimeException damage;
  private volatile FakeTabletStore current;
  private int opens;

  FakeStoreOpener(FakeTabletStore first) {
    this.next = first;
  }

  /** The store the next {@link #open} returns (as if a tablet copy installed it). */
  void next(FakeTabletStore s) {
    this.next = s;
    this.damage = null;
  }

  /** The next {@link #open} throws {@code e} (damaged durable state). */
  void damaged(RuntimeException e) {
    this.damage = e;
  }

  int opens() {
    return opens;
  }

  @Override
  public String source() {
    return "fake superblock";
  }

  @Override
  public TabletStore open(HistoryRetention history, Consumer<NyalaException> onDamaged) {
    opens++;
    current = null;
    if (damage != null) {
      throw damage;
    }
    current = next;
    return next;
  }

  @Override
  public TermIndex durableTermIndex() {
    FakeTabletStore s = current;
    return s == null || s.durableIndex() <= 0 ? null
        : TermIndex.valueOf(s.durableTerm(), s.durableIndex());
  }

  @Override
  public TabletImage openImage(Function<TermIndex, Runnable> pin) {
    throw new UnsupportedOperationException("the fake opener serves no copy images");
  }

  @Override
  public Installer newInstaller(Runnable beforeInstall) {
    throw new UnsupportedOperationException("the fake opener installs no copies");
  }
}
