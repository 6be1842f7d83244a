package io.nyala.tserver.tablet.maintenance;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Which on-disk layers one compaction rewrites; a pure function of the flushed rowsets' layer
 * sizes, so it is tested on numbers alone. No compaction reads more than {@link #budgetBytes},
 * so a big tablet is never rewritten at once.
 *
 * <p>A rowset holds the keys first inserted while it was the MemRowSet: rowsets' key
 * <em>ranges</em> overlap but their key <em>sets</em> are disjoint, so merging any subset keeps
 * every key in exactly one rowset. What many rowsets cost is one bloom probe per rowset on
 * INSERT and one more cursor per rowset in every scan, so the policy reduces their number
 * size-tiered (as Cassandra's STCS, without key ranges), and per rowset the depth of its
 * delta stack (as Kudu's delta compactions):
 * <ol>
 *   <li><b>Rowset merge</b>: rowsets sorted by size form tiers (each within {@link #TIER_RATIO}×
 *       its smallest member, sizes under {@link #minTierBytes} count as that); in the smallest
 *       tier of {@link #mergeAtRowsets} members or more, as many as fit the budget (at least
 *       two), smallest first, are merged into one rowset. A rowset bigger than half the budget
 *       is thus never merged again.
 *   <li><b>Delta compaction</b> of the rowset with the most on-disk layers, once it has
 *       {@link #deltaCompactAtLayers}: <em>major</em> (base and deltas into a new base, dropping
 *       old history and deletions) when its deltas reach {@link #majorDeltaRatio} of its base and
 *       the whole rowset fits the budget; else <em>minor</em> (its deltas into one delta).
 * </ol>
 * A forced pass (an explicit {@code compact()}) ignores tiers and thresholds but not the budget:
 * it merges the smallest rowsets that fit it, then compacts any rowset with deltas.
 */
public record CompactionPolicy(long budgetBytes, int mergeAtRowsets, int deltaCompactAtLayers,
    double majorDeltaRatio, long minTierBytes) {
  /** {@code --compaction_budget_mb}'s default. */
  public static final long DEFAULT_BUDGET_BYTES = 128L << 20;
  /** Members of a size tier are within this factor of its smallest. */
  static final int TIER_RATIO = 2;
  /** Rowsets merged at most at once (one cursor each while merging). */
  static final int MAX_MERGE = 32;
  public static final CompactionPolicy DEFAULT = withBudget(DEFAULT_BUDGET_BYTES);

  public CompactionPolicy {
    if (budgetBytes <= 0 || mergeAtRowsets < 2 || deltaCompactAtLayers < 2) {
      throw new IllegalArgumentException("compaction policy: budget " + budgetBytes
          + " must be positive, merge at " + mergeAtRowsets + " rowsets and delta compaction at "
          + deltaCompactAtLayers + " layers at least 2");
    }
  }

  /** The default thresholds with another budget. */
  public static CompactionPolicy withBudget(long budgetBytes) {
    return new CompactionPolicy(budgetBytes, 4, 3, 0.5, 8L << 20);
  }

  /** A flushed rowset as the policy sees it: its id and on-disk layer sizes, base first. */
  record Candidate(long id, List<Long> layerBytes) {
    long bytes() {
      return layerBytes.stream().mapToLong(Long::longValue).sum();
    }

    long deltaBytes() {
      return bytes() - layerBytes.get(0);
    }

    int layers() {
      return layerBytes.size();
    }
  }

  /** One compaction: rowsets to merge, or one rowset's deltas (with its base when major). */
  sealed interface Plan permits Merge, Deltas {}

  record Merge(List<Long> rowsets) implements Plan {}

  record Deltas(long rowset, boolean major) implements Plan {}

  /** The compaction to run now, or null if none is due. */
  Plan pick(List<Candidate> rowsets, boolean force) {
    List<Long> merge = pickMerge(rowsets, force);
    if (!merge.isEmpty()) {
      return new Merge(merge);
    }
    return pickDeltas(rowsets, force);
  }

  private List<Long> pickMerge(List<Candidate> rowsets, boolean force) {
    List<Candidate> sorted = new ArrayList<>(rowsets);
    sorted.sort(Comparator.comparingLong(Candidate::bytes).thenComparingLong(Candidate::id));
    int min = force ? 2 : mergeAtRowsets;
    int i = 0;
    while (i < sorted.size()) {
      long tierFloor = Math.max(minTierBytes, sorted.get(i).bytes());
      List<Long> chosen = new ArrayList<>();
      long total = 0;
      int j = i;
      for (; j < sorted.size(); j++) {
        long b = sorted.get(j).bytes();
        if (!force && Math.max(minTierBytes, b) > TIER_RATIO * tierFloor) {
          break;
        }
        if (total + b <= budgetBytes && chosen.size() < MAX_MERGE) {
          chosen.add(sorted.get(j).id());
          total += b;
        }
      }
      if (j - i >= min && chosen.size() >= 2) {
        return chosen;
      }
      i = j;
    }
    return List.of();
  }

  private Deltas pickDeltas(List<Candidate> rowsets, boolean force) {
    int min = force ? 2 : deltaCompactAtLayers;
    List<Candidate> deep = new ArrayList<>();
    for (Candidate c : rowsets) {
      if (c.layers() >= min) {
        deep.add(c);
      }
    }
    deep.sort(Comparator.comparingInt(Candidate::layers).thenComparingLong(Candidate::deltaBytes)
        .reversed());
    for (Candidate c : deep) {
      boolean worthMajor = force || c.deltaBytes() >= majorDeltaRatio * c.layerBytes().get(0);
      if (worthMajor && c.bytes() <= budgetBytes) {
        return new Deltas(c.id(), true);
      }
      if (c.layers() >= 3 && c.deltaBytes() <= budgetBytes) {
        return new Deltas(c.id(), false);
      }
    }
    return null;
  }
}
