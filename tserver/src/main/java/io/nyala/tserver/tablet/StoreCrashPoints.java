package io.nyala.tserver.tablet;

import java.util.Set;

/**
 * The crash points of flush and compaction ({@code --fault_crash_points}, see
 * {@link io.nyala.common.fault.CrashPoints}): the moments where a crash leaves something the
 * next start must clean up or replay.
 */
public final class StoreCrashPoints {
  /** Flush: its blocks are committed, the superblock does not list them yet (they are orphans). */
  public static final String FLUSH_BEFORE_SUPERBLOCK = "flush_before_superblock";
  /** Flush: the superblock is written, Ratis has not been asked for a snapshot yet. */
  public static final String FLUSH_AFTER_SUPERBLOCK = "flush_after_superblock";
  /** Compaction: the superblock lists its output, the replaced layers are not released yet. */
  public static final String COMPACTION_BEFORE_RELEASE = "compaction_before_release";

  public static final Set<String> ALL =
      Set.of(FLUSH_BEFORE_SUPERBLOCK, FLUSH_AFTER_SUPERBLOCK, COMPACTION_BEFORE_RELEASE);

  private StoreCrashPoints() {}
}
