package io.nyala.client.locations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.nyala.client.rpc.Deadline;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.HostPortPB;
import io.nyala.common.proto.PartitionPB;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.TSInfoPB;
import io.nyala.common.proto.master.TabletLocationsPB;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cache against a scripted master: four tablets over [0x00, 0x40), [0x40, 0x80),
 * [0x80, 0xc0), [0xc0, end); each lookup returns at most two tablets from the asked key.
 */
@Timeout(10)
class TableLocationsTest {
  private static final byte[][] STARTS = {{0x00}, {0x40}, {(byte) 0x80}, {(byte) 0xc0}};

  private final List<byte[]> fetches = new ArrayList<>();
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private int generation;
  private int ttlMillis = 1000;
  private final TableLocations cache = new TableLocations("metrics", this::fetch, now::get);

  private CompletableFuture<GetTableLocationsResponsePB> fetch(byte[] start, Deadline d) {
    fetches.add(start);
    generation++;
    GetTableLocationsResponsePB.Builder b = GetTableLocationsResponsePB.newBuilder()
        .setTtlMillis(ttlMillis)
        .addTsInfos(ts("ts-a", 1)).addTsInfos(ts("ts-b", 2));
    for (int i = 0; i < STARTS.length && b.getTabletLocationsCount() < 2; i++) {
      byte[] end = i + 1 < STARTS.length ? STARTS[i + 1] : new byte[0];
      if (end.length > 0 && Arrays.compareUnsigned(end, start) <= 0) {
        continue;
      }
      b.addTabletLocations(TabletLocationsPB.newBuilder()
          .setTabletId("t" + i + "-gen" + generation)
          .setPartition(PartitionPB.newBuilder().addHashBuckets(i)
              .setPartitionKeyStart(ByteString.copyFrom(STARTS[i]))
              .setPartitionKeyEnd(ByteString.copyFrom(end)))
          .addReplicas(replica(0, RaftRolePB.LEADER))
          .addReplicas(replica(1, RaftRolePB.FOLLOWER)));
    }
    return CompletableFuture.completedFuture(b.build());
  }

  private static TSInfoPB ts(String uuid, int port) {
    return TSInfoPB.newBuilder().setUuid(uuid)
        .setRpcAddress(HostPortPB.newBuilder().setHost("127.0.0.1").setPort(port)).build();
  }

  private static TabletLocationsPB.ReplicaPB replica(int idx, RaftRolePB role) {
    return TabletLocationsPB.ReplicaPB.newBuilder().setTsInfoIdx(idx).setRole(role).build();
  }

  private RemoteTablet lookup(int key) {
    return cache.lookup(new byte[] {(byte) key, 7}, Deadline.after(1000)).join();
  }

  @Test
  void findsTheTabletCoveringAKeyAndCachesTheBatch() {
    RemoteTablet t = lookup(0x50);
    assertThat(t.id()).startsWith("t1-");
    assertThat(t.leader().uuid()).isEqualTo("ts-a");
    assertThat(t.leader().rpcAddress().port()).isEqualTo(1);
    assertThat(t.hashBuckets()).containsExactly(1);
    // The lookup returned t1 and t2; both now hit the cache.
    assertThat(lookup(0x41)).isSameAs(t);
    assertThat(lookup(0x90).id()).startsWith("t2-");
    assertThat(fetches).hasSize(1);
    assertThat(fetches.get(0)).containsExactly(0x50, 7);
    // t3 was not returned: a miss asks from that key on.
    assertThat(lookup(0xff).id()).startsWith("t3-");
    assertThat(fetches).hasSize(2);
    assertThat(cache.cached(new byte[] {0x10})).isNull();
  }

  @Test
  void invalidationDropsOnlyThatTabletAndRefetches() {
    RemoteTablet t1 = lookup(0x50);
    RemoteTablet t2 = lookup(0x90);
    cache.invalidate(t1);
    assertThat(cache.cached(new byte[] {0x50})).isNull();
    assertThat(cache.cached(new byte[] {(byte) 0x90})).isSameAs(t2);
    RemoteTablet again = lookup(0x50);
    assertThat(again).isNotSameAs(t1);
    assertThat(again.id()).isEqualTo("t1-gen2");
    assertThat(fetches).hasSize(2);
    // The refetch also brought a fresh t2, which replaced the old entry.
    assertThat(lookup(0x90).id()).isEqualTo("t2-gen2");
  }

  @Test
  void entriesExpireAfterTheMastersTtl() {
    RemoteTablet t = lookup(0x00);
    now.addAndGet(999_000_000L);
    assertThat(lookup(0x01)).isSameAs(t);
    now.addAndGet(2_000_000L);
    assertThat(lookup(0x01)).isNotSameAs(t);
    assertThat(fetches).hasSize(2);
  }

  @Test
  void aLeaderGuessFollowsCorrections() {
    RemoteTablet t = lookup(0x00);
    Set<String> avoid = new HashSet<>();
    assertThat(t.pickReplica(avoid).uuid()).isEqualTo("ts-a");
    t.demoteLeader("ts-a");
    assertThat(t.leader()).isNull();
    avoid.add("ts-a");
    assertThat(t.pickReplica(avoid).uuid()).isEqualTo("ts-b");
    avoid.add("ts-b");
    // Every replica failed: start the round over rather than give up.
    assertThat(t.pickReplica(avoid).uuid()).isEqualTo("ts-a");
    assertThat(avoid).isEmpty();
    assertThat(t.setLeader("ts-b")).isTrue();
    assertThat(t.setLeader("ts-zzz")).isFalse();
    assertThat(t.leader().uuid()).isEqualTo("ts-b");
  }

  @Test
  void anAnswerThatDoesNotCoverTheKeyIsRetriable() {
    TableLocations empty = new TableLocations("metrics",
        (k, d) -> CompletableFuture.completedFuture(GetTableLocationsResponsePB.newBuilder()
            .build()), now::get);
    assertThatThrownBy(() -> empty.lookup(new byte[] {1}, Deadline.after(1000)).join()).cause()
        .isInstanceOfSatisfying(NyalaException.class, e -> {
          assertThat(e.code()).isEqualTo(StatusCode.SERVICE_UNAVAILABLE);
          assertThat(e.getMessage()).contains("table 'metrics'", "0x01");
        });
  }
}
