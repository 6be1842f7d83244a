package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.row.RowOpType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * CreateTablet and DeleteTablet of different tablets run in parallel on one server, those of
 * one tablet one after the other: a burst of creates, repeated creates of the same ids and
 * deletes racing them leave each tablet created once or deleted, never half of either, and a
 * restart finds exactly the survivors.
 */
@Timeout(120)
class ConcurrentCreateTest {
  private static final int TABLETS = 24;
  @TempDir
  Path dir;

  @Test
  void parallelCreatesAndDeletesLeaveEachTabletWholeOrGone() throws Exception {
    TserverOptions opts = TserverFixture.options(dir, TserverFixture.freePort());
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < TABLETS; i++) {
      ids.add(RaftIds.newId());
    }
    // Every third tablet is deleted while the burst runs; a delete that comes first finds no
    // tablet (NOT_FOUND) and the create then stands, so the survivors are read back below.
    Set<String> deleteTried = new TreeSet<>();
    try (TserverFixture fx = new TserverFixture()) {
      TabletServer ts = TserverFixture.start(opts);
      try {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> calls = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
          for (String id : ids) {
            calls.add(pool.submit(() -> fx.createTablet(id, List.of(ts))));
          }
        }
        for (int i = 0; i < TABLETS; i += 3) {
          String id = ids.get(i);
          deleteTried.add(id);
          calls.add(pool.submit(() -> {
            try {
              ts.tabletManager().deleteTablet(id, "test");
            } catch (NyalaException e) {
              assertThat(e.getMessage()).contains(id).contains("not found");
            }
          }));
        }
        for (Future<?> f : calls) {
          f.get();
        }
        pool.shutdown();
        Set<String> hosted = hosted(ts);
        assertThat(hosted).as("every tablet not deleted").containsAll(ids.stream()
            .filter(id -> !deleteTried.contains(id)).collect(Collectors.toList()));
        assertThat(ids).containsAll(hosted);
        for (String id : hosted) {
          TserverFixture.awaitLeader(id, List.of(ts));
          assertThat(fx.write(ts, inserts(id, 0, 10, RowOpType.INSERT)).hasError())
              .as("a write to %s", id).isFalse();
        }
        ts.close();
        TabletServer again = TserverFixture.start(opts);
        try {
          assertThat(hosted(again)).as("the tablets after a restart").isEqualTo(hosted);
          for (String id : hosted) {
            TserverFixture.awaitLeader(id, List.of(again));
            assertThat(fx.scanAll(again, id, 100)).as("rows of %s", id).hasSize(10);
          }
        } finally {
          again.close();
        }
      } finally {
        ts.close();
      }
    }
  }

  private static Set<String> hosted(TabletServer ts) {
    return ts.tabletManager().replicas().stream().map(r -> r.tabletId())
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
