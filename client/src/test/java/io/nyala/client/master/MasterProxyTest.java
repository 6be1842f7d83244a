package io.nyala.client.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.nyala.client.fake.FakeCluster;
import io.nyala.client.rpc.Backoff;
import io.nyala.client.rpc.Deadline;
import io.nyala.client.rpc.Transport;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.master.GetTableSchemaRequestPB;
import io.nyala.common.proto.master.GetTableSchemaResponsePB;
import io.nyala.common.proto.master.ListTablesRequestPB;
import io.nyala.common.proto.master.ListTablesResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.master.MasterServiceGrpc.MasterServiceStub;
import io.nyala.common.proto.master.TableIdentifierPB;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class MasterProxyTest {
  private FakeCluster cluster;
  private Transport transport;
  private MasterProxy proxy;

  @BeforeEach
  void setUp() {
    cluster = new FakeCluster(3, 0);
    transport = new Transport();
    List<HostPort> addrs = cluster.masters().stream().map(m -> m.address()).toList();
    proxy = new MasterProxy(addrs, transport, new Backoff(5, 50), 5000);
  }

  @AfterEach
  void tearDown() {
    transport.close();
    cluster.close();
  }

  private ListTablesResponsePB listTables(long timeoutMs) {
    return proxy.call("ListTables", ListTablesRequestPB.getDefaultInstance(),
        MasterServiceStub::listTables, ListTablesResponsePB::getError,
        Deadline.after(timeoutMs)).join();
  }

  private int calls(int master) {
    return cluster.masters().get(master).calls("ListTables");
  }

  @Test
  void followsTheLeaderHintAndRemembersTheLeader() {
    cluster.setLeaderMaster(2);
    listTables(5000);
    // Master 0 answered NOT_LEADER naming master 2, so master 1 was never asked.
    assertThat(List.of(calls(0), calls(1), calls(2))).containsExactly(1, 0, 1);
    assertThat(proxy.knownLeader()).isEqualTo(cluster.masters().get(2).address());

    listTables(5000);
    assertThat(List.of(calls(0), calls(1), calls(2))).containsExactly(1, 0, 2);
  }

  @Test
  void aHintNamingAnAddressNotConfiguredIsFollowed() {
    // Any one master is enough to find the leader: its hint names one the client was not given.
    MasterProxy one = new MasterProxy(List.of(cluster.masters().get(0).address()), transport,
        new Backoff(5, 50), 5000);
    cluster.setLeaderMaster(2);
    one.call("ListTables", ListTablesRequestPB.getDefaultInstance(),
        MasterServiceStub::listTables, ListTablesResponsePB::getError,
        Deadline.after(5000)).join();
    assertThat(List.of(calls(0), calls(1), calls(2))).containsExactly(1, 0, 1);
    assertThat(one.knownLeader()).isEqualTo(cluster.masters().get(2).address());
  }

  @Test
  void anUnreachableHintIsTriedOnceThenTheConfiguredMastersInTurn() {
    // The leader's peer address, e.g. a container's name a client outside Docker cannot reach
    // (docs/architecture.md, "Listeners and addresses"): nothing listens on port 1.
    cluster.setMasterHintAddress(new HostPort("127.0.0.1", 1));
    cluster.setLeaderMaster(2);
    listTables(5000);
    assertThat(List.of(calls(0), calls(1), calls(2))).containsExactly(1, 1, 1);
    assertThat(proxy.knownLeader()).isEqualTo(cluster.masters().get(2).address());
  }

  @Test
  void withoutHintsTriesMastersInTurn() {
    cluster.setLeaderHints(false);
    cluster.setLeaderMaster(2);
    listTables(5000);
    assertThat(List.of(calls(0), calls(1), calls(2))).containsExactly(1, 1, 1);
  }

  @Test
  void skipsAnUnreachableMaster() {
    cluster.masters().get(0).stop();
    cluster.setLeaderHints(false);
    cluster.setLeaderMaster(1);
    listTables(5000);
    assertThat(calls(1)).isEqualTo(1);
    assertThat(proxy.knownLeader()).isEqualTo(cluster.masters().get(1).address());
  }

  @Test
  void followsALeaderChangeAfterSuccess() {
    listTables(5000);
    assertThat(proxy.knownLeader()).isEqualTo(cluster.masters().get(0).address());
    cluster.setLeaderMaster(1);
    listTables(5000);
    assertThat(List.of(calls(0), calls(1), calls(2))).containsExactly(2, 1, 0);
    assertThat(proxy.knownLeader()).isEqualTo(cluster.masters().get(1).address());
  }

  @Test
  void timesOutNamingTheLastErrorWhenNoMasterLeads() {
    cluster.setLeaderHints(false);
    cluster.masters().get(2).stop();
    cluster.setLeaderMaster(2);
    assertThatThrownBy(() -> listTables(300)).cause()
        .isInstanceOfSatisfying(NyalaException.class, e -> {
          assertThat(e.code()).isEqualTo(StatusCode.TIMED_OUT);
          assertThat(e.getMessage()).contains("ListTables", "300 ms");
          assertThat(e.getMessage()).containsAnyOf("NOT_LEADER", "unreachable");
        });
    // Whole rounds failed, so it kept cycling (with backoff) rather than giving up early.
    assertThat(calls(0)).isGreaterThan(1);
  }

  @Test
  void anAttemptToAMasterThatNeverAnswersEndsInTimeForTheNext() throws Exception {
    // A master that accepts calls and never answers, like one frozen or cut off by a firewall.
    Server silent = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new MasterServiceGrpc.MasterServiceImplBase() {
          @Override
          public void listTables(ListTablesRequestPB req,
              StreamObserver<ListTablesResponsePB> out) {
            // never answers
          }
        }).build().start();
    try {
      HostPort dead = new HostPort("127.0.0.1", silent.getPort());
      MasterProxy p = new MasterProxy(List.of(dead, cluster.masters().get(1).address()),
          transport, new Backoff(5, 50), 200);
      cluster.setLeaderMaster(1);
      // Without a per-attempt deadline the first attempt would use up the whole 10 s.
      p.call("ListTables", ListTablesRequestPB.getDefaultInstance(),
          MasterServiceStub::listTables, ListTablesResponsePB::getError,
          Deadline.after(10_000)).join();
      assertThat(p.knownLeader()).isEqualTo(cluster.masters().get(1).address());
      assertThat(calls(1)).isEqualTo(1);
    } finally {
      silent.shutdownNow();
    }
  }

  @Test
  void returnsTheLeadersErrorsAtOnce() {
    cluster.setLeaderMaster(1);
    GetTableSchemaRequestPB req = GetTableSchemaRequestPB.newBuilder()
        .setTable(TableIdentifierPB.newBuilder().setTableName("metrics")).build();
    assertThatThrownBy(() -> proxy.call("GetTableSchema", req, MasterServiceStub::getTableSchema,
            GetTableSchemaResponsePB::getError, Deadline.after(5000)).join()).cause()
        .isInstanceOfSatisfying(NyalaException.class, e -> {
          assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND);
          assertThat(e.getMessage()).contains("table 'metrics' not found");
        });
    assertThat(cluster.masters().get(1).calls("GetTableSchema")).isEqualTo(1);
  }
}
