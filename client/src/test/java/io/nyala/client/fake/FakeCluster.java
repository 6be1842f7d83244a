package io.nyala.client.fake;

import io.nyala.common.HostPort;
import io.nyala.common.partition.PartitionSchema;
import io.nyala.common.proto.PartitionPB;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A whole fake cluster: masters, tablet servers and the catalog they share. The first master
 * leads unless a test says otherwise. Close it to stop every server.
 */
public final class FakeCluster implements AutoCloseable {
  /** A table in the fake catalog. */
  public static final class FakeTable {
    final String id;
    final String name;
    final Schema schema;
    final PartitionSchema partitionSchema;
    final int numReplicas;
    final List<FakeTablet> tablets = new ArrayList<>();
    /** IsCreateTableDone answers "not done" this many more times. */
    int notDonePolls;

    FakeTable(String id, String name, Schema schema, PartitionSchema ps, int numReplicas) {
      this.id = id;
      this.name = name;
      this.schema = schema;
      this.partitionSchema = ps;
      this.numReplicas = numReplicas;
    }

    /** @return the table's id */
    public String id() {
      return id;
    }

    /** @return the tablets in partition key order */
    public List<FakeTablet> tablets() {
      return tablets;
    }

    /** @return the schema with column ids */
    public Schema schema() {
      return schema;
    }
  }

  /** Every new scan request any tablet server received, in arrival order. */
  public final List<NewScanRequestPB> scanOpens =
      Collections.synchronizedList(new ArrayList<>());
  private final List<FakeMaster> masters = new ArrayList<>();
  private final List<FakeTabletServer> tservers = new ArrayList<>();
  private final Map<String, FakeTable> tablesByName = new ConcurrentHashMap<>();
  private final Map<String, FakeTablet> tablets = new ConcurrentHashMap<>();
  private volatile int leaderMaster;
  /** Whether NOT_LEADER answers carry the leader's identity. */
  volatile boolean leaderHints = true;
  /** The address masters' NOT_LEADER hints name instead of the leader's own, or null. */
  volatile HostPort masterHintAddress;
  /** The ttl_millis the masters send with locations. */
  volatile int locationsTtlMillis = 60_000;
  /** How many times IsCreateTableDone says "not yet" for each new table. */
  volatile int createNotDonePolls;

  /**
   * Starts a cluster.
   *
   * @param numMasters masters to start
   * @param numTabletServers tablet servers to start
   */
  public FakeCluster(int numMasters, int numTabletServers) {
    try {
      for (int i = 0; i < numMasters; i++) {
        masters.add(new FakeMaster(this, i));
      }
      for (int i = 0; i < numTabletServers; i++) {
        tservers.add(new FakeTabletServer(this, "ts-" + i));
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** @return the masters' addresses, comma-separated */
  public String masterAddresses() {
    return String.join(",", masters.stream().map(m -> m.address().toString()).toList());
  }

  /** @return the masters */
  public List<FakeMaster> masters() {
    return masters;
  }

  /** @return the tablet servers */
  public List<FakeTabletServer> tservers() {
    return tservers;
  }

  /** @param index the master that leads from now on */
  public void setLeaderMaster(int index) {
    leaderMaster = index;
  }

  FakeMaster leaderMaster() {
    return masters.get(leaderMaster);
  }

  /** @param on whether NOT_LEADER answers say who leads */
  public void setLeaderHints(boolean on) {
    leaderHints = on;
  }

  /**
   * @param address what the masters' NOT_LEADER hints name instead of the leader's address (a
   *     peer address a client cannot reach), or null for the leader's own
   */
  public void setMasterHintAddress(HostPort address) {
    masterHintAddress = address;
  }

  /** @param millis the locations ttl the masters send */
  public void setLocationsTtlMillis(int millis) {
    locationsTtlMillis = millis;
  }

  /** @param polls how many IsCreateTableDone calls answer "not done" for each new table */
  public void setCreateNotDonePolls(int polls) {
    createNotDonePolls = polls;
  }

  /**
   * @param name a table name
   * @return the table, or null
   */
  public FakeTable table(String name) {
    return tablesByName.get(name);
  }

  FakeTable tableById(String id) {
    for (FakeTable t : tablesByName.values()) {
      if (t.id.equals(id)) {
        return t;
      }
    }
    return null;
  }

  FakeTablet tablet(String id) {
    return tablets.get(id);
  }

  Map<String, FakeTable> tables() {
    return tablesByName;
  }

  /**
   * Creates a table the way a master would: assigns column ids, makes one tablet per partition
   * and places replicas round-robin, the first replica leading.
   */
  synchronized FakeTable createTable(String name, Schema schema, PartitionSchema ps,
      int numReplicas) {
    List<ColumnSchema> cols = new ArrayList<>();
    for (int i = 0; i < schema.columnCount(); i++) {
      cols.add(schema.column(i).withId(i + 1));
    }
    Schema withIds = new Schema(cols, 1);
    int replicas = numReplicas > 0 ? numReplicas : Math.min(3, tservers.size());
    FakeTable t = new FakeTable(UUID.randomUUID().toString().replace("-", ""), name, withIds,
        PartitionSchema.fromPb(ps.toPb(), withIds), replicas);
    t.notDonePolls = createNotDonePolls;
    int next = tablets.size();
    for (PartitionPB p : ps.createPartitions()) {
      List<FakeTabletServer> rs = new ArrayList<>();
      for (int r = 0; r < replicas; r++) {
        rs.add(tservers.get((next + r) % tservers.size()));
      }
      next++;
      FakeTablet tablet = new FakeTablet(
          "tablet-" + name + "-" + t.tablets.size(), t, p, rs);
      t.tablets.add(tablet);
      tablets.put(tablet.id, tablet);
    }
    tablesByName.put(name, t);
    return t;
  }

  synchronized void deleteTable(FakeTable t) {
    tablesByName.remove(t.name);
    for (FakeTablet tablet : t.tablets) {
      tablets.remove(tablet.id);
    }
  }

  @Override
  public void close() {
    for (FakeMaster m : masters) {
      m.stop();
    }
    for (FakeTabletServer ts : tservers) {
      ts.stop();
    }
  }
}
