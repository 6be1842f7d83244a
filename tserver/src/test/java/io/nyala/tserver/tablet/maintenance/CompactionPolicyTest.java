package io.nyala.tserver.tablet.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.tserver.tablet.maintenance.CompactionPolicy.Candidate;
import io.nyala.tserver.tablet.maintenance.CompactionPolicy.Deltas;
import io.nyala.tserver.tablet.maintenance.CompactionPolicy.Merge;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the policy picks, on layer sizes alone. */
@Timeout(10)
class CompactionPolicyTest {
  private static final long MB = 1L << 20;
  private static final CompactionPolicy POLICY = CompactionPolicy.withBudget(128 * MB);

  /** A rowset of one base layer of {@code mb} MiB. */
  private static Candidate base(long id, long mb) {
    return new Candidate(id, List.of(mb * MB));
  }

  @Test
  void smallRowsetsOfOneTierAreMergedOnceThereAreEnough() {
    List<Candidate> rs = new ArrayList<>(List.of(base(1, 1), base(2, 2), base(3, 1)));
    assertThat(POLICY.pick(rs, false)).isNull();
    rs.add(base(4, 3));
    assertThat(POLICY.pick(rs, false)).isEqualTo(new Merge(List.of(1L, 3L, 2L, 4L)));
  }

  @Test
  void rowsetsOfAnotherSizeTierAreLeftAlone() {
    List<Candidate> rs = List.of(base(1, 100), base(2, 20), base(3, 20), base(4, 30),
        base(5, 20), base(6, 1));
    // 20, 20, 20, 30 are one tier (within 2x of 20); the 1 MiB and 100 MiB rowsets are not.
    assertThat(POLICY.pick(rs, false)).isEqualTo(new Merge(List.of(2L, 3L, 5L, 4L)));
  }

  @Test
  void aBigTabletIsNeverRewrittenAtOnce() {
    List<Candidate> rs = new ArrayList<>();
    for (long id = 0; id < 40; id++) {
      rs.add(base(id, 40)); // 1.6 GiB in one tier
    }
    Merge m = (Merge) POLICY.pick(rs, false);
    assertThat(m.rowsets()).hasSize(3); // 120 MiB: the most that fits 128
    Merge forced = (Merge) POLICY.pick(rs, true);
    assertThat(forced.rowsets()).hasSize(3);
    // Rowsets bigger than half the budget are never merged again, even when forced.
    assertThat(POLICY.pick(List.of(base(1, 70), base(2, 70)), true)).isNull();
  }

  @Test
  void deepDeltaStacksAreCompactedMajorWhenTheDeltasAreBigElseMinor() {
    Candidate small = new Candidate(1, List.of(10 * MB, MB, MB)); // deltas 20% of the base
    Candidate big = new Candidate(2, List.of(10 * MB, 3 * MB, 3 * MB)); // 60%
    Candidate shallow = new Candidate(3, List.of(MB, 5 * MB)); // two layers: not yet
    assertThat(POLICY.pick(List.of(small), false)).isEqualTo(new Deltas(1, false));
    assertThat(POLICY.pick(List.of(big), false)).isEqualTo(new Deltas(2, true));
    assertThat(POLICY.pick(List.of(shallow), false)).isNull();
    // Deeper stacks first.
    Candidate deeper = new Candidate(4, List.of(10 * MB, MB, MB, MB));
    assertThat(POLICY.pick(List.of(small, deeper), false)).isEqualTo(new Deltas(4, false));
    // A rowset over the budget only gets its deltas merged.
    Candidate huge = new Candidate(5, List.of(200 * MB, 90 * MB, 20 * MB));
    assertThat(POLICY.pick(List.of(huge), true)).isEqualTo(new Deltas(5, false));
  }

  @Test
  void aForcedPassMergesAnyTwoRowsetsAndCompactsAnyDelta() {
    assertThat(POLICY.pick(List.of(base(1, 1), base(2, 60)), true))
        .isEqualTo(new Merge(List.of(1L, 2L)));
    assertThat(POLICY.pick(List.of(new Candidate(3, List.of(50 * MB, MB))), true))
        .isEqualTo(new Deltas(3, true));
    assertThat(POLICY.pick(List.of(base(1, 1)), true)).isNull();
  }
}
