package io.nyala.client.fake;

import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.partition.PartitionSchema;
import io.nyala.common.proto.ErrorPB;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.SignedTokenPB;
import io.nyala.common.proto.master.AuthenticateRequestPB;
import io.nyala.common.proto.master.AuthenticateResponsePB;
import io.nyala.common.proto.master.CreateTableRequestPB;
import io.nyala.common.proto.master.CreateTableResponsePB;
import io.nyala.common.proto.master.DeleteTableRequestPB;
import io.nyala.common.proto.master.DeleteTableResponsePB;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.GetTableSchemaRequestPB;
import io.nyala.common.proto.master.GetTableSchemaResponsePB;
import io.nyala.common.proto.master.IsCreateTableDoneRequestPB;
import io.nyala.common.proto.master.IsCreateTableDoneResponsePB;
import io.nyala.common.proto.master.ListTablesRequestPB;
import io.nyala.common.proto.master.ListTablesResponsePB;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.master.TableIdentifierPB;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A fake master: serves the fake cluster's catalog when it leads, NOT_LEADER otherwise. */
public final class FakeMaster extends MasterServiceGrpc.MasterServiceImplBase {
  private final FakeCluster cluster;
  private final int index;
  private final Server server;
  private final HostPort address;
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  /** GetTableLocations requests received (leader or not). */
  public final List<GetTableLocationsRequestPB> locationRequests =
      java.util.Collections.synchronizedList(new ArrayList<>());

  FakeMaster(FakeCluster cluster, int index) {
    this.cluster = cluster;
    this.index = index;
    this.server = GrpcServers.start(this);
    this.address = GrpcServers.address(server);
  }

  /** @return the master's RPC address */
  public HostPort address() {
    return address;
  }

  /**
   * @param method an RPC name, e.g. "GetTableLocations"
   * @return how many such calls this master received
   */
  public int calls(String method) {
    AtomicInteger n = calls.get(method);
    return n == null ? 0 : n.get();
  }

  /** @return how many calls of any kind this master received */
  public int totalCalls() {
    return calls.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  /** Stops the server: calls to it fail as unreachable. */
  public void stop() {
    GrpcServers.stop(server);
  }

  /** Counts the call; returns the NOT_LEADER error if this master does not lead, else null. */
  private ErrorPB enter(String method) {
    calls.computeIfAbsent(method, k -> new AtomicInteger()).incrementAndGet();
    FakeMaster leader = cluster.leaderMaster();
    if (leader == this) {
      return null;
    }
    HostPort other = cluster.masterHintAddress;
    HostPort hint = !cluster.leaderHints ? null : other != null ? other : leader.address;
    return NyalaException.notLeader("master " + index + " is not the leader", "", hint).toPb();
  }

  private static <T> void reply(StreamObserver<T> obs, T resp) {
    obs.onNext(resp);
    obs.onCompleted();
  }

  private FakeCluster.FakeTable find(TableIdentifierPB id) {
    return id.getTableId().isEmpty() ? cluster.table(id.getTableName())
        : cluster.tableById(id.getTableId());
  }

  private static ErrorPB notFound(TableIdentifierPB id) {
    String n = id.getTableName().isEmpty() ? id.getTableId() : id.getTableName();
    return NyalaException.notFound("table '%s' not found", n).toPb();
  }

  @Override
  public void createTable(CreateTableRequestPB req, StreamObserver<CreateTableResponsePB> obs) {
    ErrorPB e = enter("CreateTable");
    if (e == null && cluster.table(req.getName()) != null) {
      e = NyalaException.alreadyPresent("table '%s' already exists", req.getName()).toPb();
    }
    if (e != null) {
      reply(obs, CreateTableResponsePB.newBuilder().setError(e).build());
      return;
    }
    Schema schema = Schema.fromPb(req.getSchema());
    FakeCluster.FakeTable t = cluster.createTable(req.getName(), schema,
        PartitionSchema.fromPb(req.getPartitionSchema(), schema), req.getNumReplicas());
    reply(obs, CreateTableResponsePB.newBuilder().setTableId(t.id).build());
  }

  @Override
  public void isCreateTableDone(IsCreateTableDoneRequestPB req,
      StreamObserver<IsCreateTableDoneResponsePB> obs) {
    ErrorPB e = enter("IsCreateTableDone");
    FakeCluster.FakeTable t = e == null ? find(req.getTable()) : null;
    if (e == null && t == null) {
      e = notFound(req.getTable());
    }
    if (e != null) {
      reply(obs, IsCreateTableDoneResponsePB.newBuilder().setError(e).build());
      return;
    }
    boolean done;
    synchronized (t) {
      done = t.notDonePolls <= 0;
      t.notDonePolls--;
    }
    reply(obs, IsCreateTableDoneResponsePB.newBuilder().setDone(done).build());
  }

  @Override
  public void getTableSchema(GetTableSchemaRequestPB req,
      StreamObserver<GetTableSchemaResponsePB> obs) {
    ErrorPB e = enter("GetTableSchema");
    FakeCluster.FakeTable t = e == null ? find(req.getTable()) : null;
    if (e == null && t == null) {
      e = notFound(req.getTable());
    }
    if (e != null) {
      reply(obs, GetTableSchemaResponsePB.newBuilder().setError(e).build());
      return;
    }
    reply(obs, GetTableSchemaResponsePB.newBuilder().setTableId(t.id).setTableName(t.name)
        .setSchema(t.schema.toPb()).setPartitionSchema(t.partitionSchema.toPb())
        .setNumReplicas(t.numReplicas).setCreateTableDone(true).build());
  }

  @Override
  public void deleteTable(DeleteTableRequestPB req, StreamObserver<DeleteTableResponsePB> obs) {
    ErrorPB e = enter("DeleteTable");
    FakeCluster.FakeTable t = e == null ? find(req.getTable()) : null;
    if (e == null && t == null) {
      e = notFound(req.getTable());
    }
    if (e != null) {
      reply(obs, DeleteTableResponsePB.newBuilder().setError(e).build());
      return;
    }
    cluster.deleteTable(t);
    reply(obs, DeleteTableResponsePB.getDefaultInstance());
  }

  /**
   * Answers any credentials with a token the fake tablet servers take unchecked, valid for a
   * minute; each one different, so a renewal is visible in the calls counted.
   */
  @Override
  public void authenticate(AuthenticateRequestPB req,
      StreamObserver<AuthenticateResponsePB> obs) {
    ErrorPB e = enter("Authenticate");
    if (e != null) {
      reply(obs, AuthenticateResponsePB.newBuilder().setError(e).build());
      return;
    }
    SignedTokenPB token = SignedTokenPB.newBuilder()
        .setTokenData(com.google.protobuf.ByteString.copyFromUtf8(req.getUser() + "#"
            + calls("Authenticate"))).build();
    reply(obs, AuthenticateResponsePB.newBuilder().setToken(token)
        .setExpireTimeMs(System.currentTimeMillis() + 60_000).build());
  }

  @Override
  public void listTables(ListTablesRequestPB req, StreamObserver<ListTablesResponsePB> obs) {
    ErrorPB e = enter("ListTables");
    if (e != null) {
      reply(obs, ListTablesResponsePB.newBuilder().setError(e).build());
      return;
    }
    ListTablesResponsePB.Builder b = ListTablesResponsePB.newBuilder();
    cluster.tables().values().stream().sorted((x, y) -> x.name.compareTo(y.name))
        .filter(t -> t.name.contains(req.getNameFilter()))
        .forEach(t -> b.addTables(ListTablesResponsePB.TableInfo.newBuilder().setId(t.id)
            .setName(t.name).setNumTablets(t.tablets.size()).setNumReplicas(t.numReplicas)));
    reply(obs, b.build());
  }

  @Override
  public void listTabletServers(ListTabletServersRequestPB req,
      StreamObserver<ListTabletServersResponsePB> obs) {
    ErrorPB e = enter("ListTabletServers");
    if (e != null) {
      reply(obs, ListTabletServersResponsePB.newBuilder().setError(e).build());
      return;
    }
    ListTabletServersResponsePB.Builder b = ListTabletServersResponsePB.newBuilder();
    for (FakeTabletServer ts : cluster.tservers()) {
      int replicas = (int) cluster.tables().values().stream().flatMap(t -> t.tablets.stream())
          .filter(t -> t.replicas().contains(ts)).count();
      b.addServers(ListTabletServersResponsePB.Entry.newBuilder().setTsInfo(ts.tsInfo())
          .setLive(!ts.isStopped()).setNumReplicas(replicas).setNumAwakeReplicas(replicas));
    }
    reply(obs, b.build());
  }

  @Override
  public void getTableLocations(GetTableLocationsRequestPB req,
      StreamObserver<GetTableLocationsResponsePB> obs) {
    locationRequests.add(req);
    ErrorPB e = enter("GetTableLocations");
    FakeCluster.FakeTable t = e == null ? find(req.getTable()) : null;
    if (e == null && t == null) {
      e = notFound(req.getTable());
    }
    if (e != null) {
      reply(obs, GetTableLocationsResponsePB.newBuilder().setError(e).build());
      return;
    }
    byte[] start = req.getPartitionKeyStart().toByteArray();
    int max = req.getMaxReturnedLocations() == 0 ? 10 : req.getMaxReturnedLocations();
    GetTableLocationsResponsePB.Builder b = GetTableLocationsResponsePB.newBuilder()
        .setTtlMillis(cluster.locationsTtlMillis);
    List<String> interned = new ArrayList<>();
    for (FakeTablet tablet : t.tablets) {
      byte[] end = tablet.partition.getPartitionKeyEnd().toByteArray();
      if (end.length > 0 && Arrays.compareUnsigned(end, start) <= 0) {
        continue;
      }
      if (b.getTabletLocationsCount() >= max) {
        break;
      }
      TabletLocationsPB.Builder tl = TabletLocationsPB.newBuilder().setTabletId(tablet.id)
          .setPartition(tablet.partition);
      for (FakeTabletServer ts : tablet.replicas) {
        TabletLocationsPB.ReplicaPB.Builder r = TabletLocationsPB.ReplicaPB.newBuilder()
            .setRole(ts == tablet.leaderAsMasterSees() ? RaftRolePB.LEADER : RaftRolePB.FOLLOWER);
        if (req.getInternTsInfosInResponse()) {
          int idx = interned.indexOf(ts.uuid());
          if (idx < 0) {
            idx = interned.size();
            interned.add(ts.uuid());
            b.addTsInfos(ts.tsInfo());
          }
          r.setTsInfoIdx(idx);
        } else {
          r.setTsInfo(ts.tsInfo()).setTsInfoIdx(-1);
        }
        tl.addReplicas(r);
      }
      b.addTabletLocations(tl);
    }
    reply(obs, b.build());
  }
}
