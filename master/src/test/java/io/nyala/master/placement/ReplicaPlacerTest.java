package io.nyala.master.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ReplicaPlacerTest {
  private static Map<String, Integer> loads(int... counts) {
    Map<String, Integer> m = new HashMap<>();
    for (int i = 0; i < counts.length; i++) {
      m.put("ts" + i, counts[i]);
    }
    return m;
  }

  @Test
  void spreadsEvenlyAndNeverTwiceOnOneTServer() {
    for (long seed = 0; seed < 20; seed++) {
      ReplicaPlacer p = new ReplicaPlacer(new Random(seed));
      List<List<String>> placed = p.place(loads(0, 0, 0, 0, 0), 7, 3);
      Map<String, Integer> count = new HashMap<>();
      for (List<String> replicas : placed) {
        assertThat(new HashSet<>(replicas)).as("seed %d", seed).hasSize(3);
        replicas.forEach(u -> count.merge(u, 1, Integer::sum));
      }
      assertThat(count.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(21);
      int max = count.values().stream().max(Integer::compare).orElseThrow();
      int min = count.values().stream().min(Integer::compare).orElse(0);
      assertThat(max - min).as("seed %d: %s", seed, count).isLessThanOrEqualTo(1);
    }
  }

  @Test
  void prefersTheLeastLoaded() {
    ReplicaPlacer p = new ReplicaPlacer(new Random(1));
    // ts0 is far ahead: 3 tablets x 1 replica fill the others first.
    List<List<String>> placed = p.place(loads(10, 0, 0, 0), 3, 1);
    assertThat(placed).flatExtracting(l -> l).doesNotContain("ts0")
        .containsExactlyInAnyOrder("ts1", "ts2", "ts3");
  }

  @Test
  void tiesAreBrokenAtRandom() {
    Map<String, Integer> firstChoice = new HashMap<>();
    for (long seed = 0; seed < 50; seed++) {
      String u = new ReplicaPlacer(new Random(seed)).place(loads(0, 0, 0), 1, 1).get(0).get(0);
      firstChoice.merge(u, 1, Integer::sum);
    }
    assertThat(firstChoice).hasSize(3);
  }

  @Test
  void rejectsImpossibleReplicationFactors() {
    ReplicaPlacer p = new ReplicaPlacer(new Random(1));
    assertThatThrownBy(() -> p.place(loads(0, 0), 1, 3))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("not enough live tablet servers to create a table with "
            + "replication factor 3: 2 are alive");
    assertThatThrownBy(() -> p.place(loads(0, 0), 1, 0))
        .hasMessageContaining("replication factor must be at least 1, got 0");
  }

  @Test
  void pickOneTakesTheLeastLoadedOutsideTheExcludedAtRandom() {
    HashSet<String> seen = new HashSet<>();
    ReplicaPlacer p = new ReplicaPlacer(new Random(7));
    for (int i = 0; i < 60; i++) {
      String pick = p.pickOne(loads(0, 5, 1, 1, 1), java.util.Set.of("ts0"));
      assertThat(pick).isIn("ts2", "ts3", "ts4");
      seen.add(pick);
    }
    assertThat(seen).hasSize(3); // ties broken at random
    assertThat(new ReplicaPlacer(new Random(1)).pickOne(loads(0, 0), java.util.Set.of("ts0",
        "ts1"))).isNull();
  }

  @Test
  void maxCreateTabletsPerTsLimitsNewTables() {
    ReplicaPlacer p = new ReplicaPlacer(new Random(1), 2);
    assertThat(p.place(loads(0, 0, 0), 2, 3)).hasSize(2); // 6 replicas on 3 tservers
    assertThatThrownBy(() -> p.place(loads(0, 0, 0), 3, 3))
        .isInstanceOfSatisfying(NyalaException.class, e -> {
          assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("--max_create_tablets_per_ts").contains("3 tablets");
        });
  }
}
