package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.TSInfoPB;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lookups concurrent with replica and leader changes never return locations older than a change
 * that finished before the lookup began. One thread makes numbered changes to tablet 0: even
 * numbers put a replica named {@code gen-N} into the catalog, odd numbers move the leader (by a
 * report with term N). Lookup threads note the last finished change before each lookup and the
 * last started change after it, and check what they saw lies in that window.
 */
@Timeout(180)
class TableLocationsCacheStressTest extends LocationsTestBase {
  private static final int CHANGES = 300;
  private static final int READERS = 3;

  private final AtomicLong started = new AtomicLong(-1);
  private final AtomicLong finished = new AtomicLong(-1);
  /** Change number → leader uuid it set (odd changes only). */
  private final ConcurrentHashMap<Long, String> leaderSetBy = new ConcurrentHashMap<>();

  @Test
  void lookupsNeverSeeStateOlderThanAFinishedChange() throws Exception {
    long seed = System.nanoTime();
    startWithTable("s", 3);
    SysTabletEntryPB tablet0 = tabletsOf(tableId("s")).get(0);
    leaderSetBy.put(-1L, tablet0.getReplicas(0).getUuid());
    ExecutorService pool = Executors.newFixedThreadPool(READERS + 1);
    try {
      List<Future<Long>> readers = new ArrayList<>();
      for (int i = 0; i < READERS; i++) {
        long readerSeed = seed + i;
        readers.add(pool.submit(() -> read(new Random(readerSeed), tablet0)));
      }
      long lookups = 0;
      try {
        pool.submit(() -> change(new Random(seed), tablet0)).get();
        for (Future<Long> f : readers) {
          lookups += f.get();
        }
      } catch (ExecutionException e) {
        throw new AssertionError("stress failed with seed " + seed, e.getCause());
      }
      assertThat(lookups).as("seed %d", seed).isPositive();
    } finally {
      pool.shutdownNow();
    }
    assertThat(metric("hits")).as("seed %d", seed).isPositive();
  }

  private Void change(Random random, SysTabletEntryPB tablet0) {
    SysTabletEntryPB current = tablet0;
    for (long n = 0; n < CHANGES; n++) {
      started.set(n);
      if (n % 2 == 0) {
        current = current.toBuilder().clearReplicas()
            .addAllReplicas(tablet0.getReplicasList())
            .addReplicas(peer("gen-" + n, 1 + (int) n)).build();
        putTablet(current);
      } else {
        String leader = tablet0.getReplicas(random.nextInt(3)).getUuid();
        leaderSetBy.put(n, leader);
        setLeader(tablet0.getTabletId(), leader, 10 + n);
      }
      finished.set(n);
    }
    return null;
  }

  private long read(Random random, SysTabletEntryPB tablet0) {
    long lookups = 0;
    while (finished.get() < CHANGES - 1) {
      long doneBefore = finished.get();
      GetTableLocationsRequestPB.Builder req = GetTableLocationsRequestPB.newBuilder()
          .setTable(Tables.byName("s"))
          .setInternTsInfosInResponse(random.nextBoolean());
      if (random.nextBoolean()) {
        req.setPartitionKeyStart(tablet0.getPartition().getPartitionKeyStart());
      }
      GetTableLocationsResponsePB r = m.master.getTableLocations(req.build());
      long startedAfter = started.get();
      check(r, tablet0.getTabletId(), doneBefore, startedAfter);
      lookups++;
    }
    return lookups;
  }

  private void check(GetTableLocationsResponsePB r, String tabletId, long doneBefore,
      long startedAfter) {
    TabletLocationsPB loc = r.getTabletLocationsList().stream()
        .filter(l -> l.getTabletId().equals(tabletId)).findFirst().orElseThrow();
    long generation = -1;
    String leader = "";
    for (TabletLocationsPB.ReplicaPB rep : loc.getReplicasList()) {
      TSInfoPB info = rep.hasTsInfo() ? rep.getTsInfo() : r.getTsInfos(rep.getTsInfoIdx());
      if (info.getUuid().startsWith("gen-")) {
        generation = Long.parseLong(info.getUuid().substring(4));
      }
      if (rep.getRole() == io.nyala.common.proto.RaftRolePB.LEADER) {
        leader = info.getUuid();
      }
    }
    long lastReplicaChange = doneBefore < 0 ? -1 : doneBefore - (doneBefore % 2);
    assertThat(generation).as("replica generation; last finished change %d", doneBefore)
        .isGreaterThanOrEqualTo(lastReplicaChange);
    long lastLeaderChange = doneBefore % 2 == 1 ? doneBefore : doneBefore - 1;
    List<String> allowed = new ArrayList<>();
    for (long n = Math.max(-1, lastLeaderChange); n <= startedAfter; n++) {
      String l = leaderSetBy.get(n);
      if (l != null) {
        allowed.add(l);
      }
    }
    assertThat(leader).as("leader; changes finished %d, started %d", doneBefore, startedAfter)
        .isIn(allowed);
  }
}
