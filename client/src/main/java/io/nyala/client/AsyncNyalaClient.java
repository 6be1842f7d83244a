package io.nyala.client;

import com.google.protobuf.ByteString;
import io.nyala.client.authn.TokenAttacher;
import io.nyala.client.authn.UserCredentials;
import io.nyala.client.locations.TableLocations;
import io.nyala.client.locations.TabletCaller;
import io.nyala.client.master.MasterProxy;
import io.nyala.client.rpc.Backoff;
import io.nyala.client.rpc.Transport;
import io.nyala.client.stats.ClientCounters;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.schema.Schema;
import java.security.SecureRandom;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The asynchronous Nyala client: every call returns a {@link CompletableFuture} that fails with a
 * {@link NyalaException}. Thread-safe; make one per application and share it. Close it to release
 * its channels (open sessions are flushed first).
 *
 * <p>It keeps one channel per server, the leader master it last found, and a cache of each
 * table's tablet locations, so steady-state writes and scans go straight to tablet leaders.
 */
public final class AsyncNyalaClient implements AutoCloseable {
  /** Default master RPC port, used for addresses given without one. */
  public static final int DEFAULT_MASTER_PORT = 7051;

  private final List<HostPort> masterAddresses;
  private final long operationTimeoutMs;
  private final long adminOperationTimeoutMs;
  private final int maxWriteRequestBytes;
  private final Transport transport;
  private final TabletCaller tabletCaller;
  private final Batcher batcher;
  private final LocationCache locations;
  private final TableDdl ddl;
  private final ClusterInfo cluster;
  private final Set<NyalaSession> openSessions = ConcurrentHashMap.newKeySet();
  private final ByteString clientId;
  private final AtomicLong nextSeqNo = new AtomicLong(1);
  private final AnsweredWrites answeredWrites = new AnsweredWrites();
  private final WritePositions writePositions = new WritePositions();

  private AsyncNyalaClient(Builder b) {
    this.masterAddresses = List.copyOf(b.masters);
    this.operationTimeoutMs = b.operationTimeoutMs;
    this.adminOperationTimeoutMs = b.adminOperationTimeoutMs;
    this.maxWriteRequestBytes = b.maxWriteRequestBytes;
    this.transport = new Transport(b.trustedCaFile);
    Backoff backoff = Backoff.DEFAULT;
    MasterProxy master = new MasterProxy(masterAddresses, transport, backoff, b.rpcTimeoutMs);
    TokenAttacher.install(b.credentials, master, transport, adminOperationTimeoutMs);
    this.tabletCaller = new TabletCaller(transport, backoff, b.rpcTimeoutMs, new ClientCounters());
    this.batcher = new Batcher(this);
    this.locations = new LocationCache(master);
    this.ddl = new TableDdl(this, master, transport, backoff, locations,
        adminOperationTimeoutMs);
    this.cluster = new ClusterInfo(master, transport, ddl, b.adminOperationTimeoutMs,
        b.rpcTimeoutMs);
    byte[] id = new byte[16];
    new SecureRandom().nextBytes(id);
    this.clientId = ByteString.copyFrom(id);
  }

  /**
   * Starts a builder from the {@value MasterAddresses#ENV} environment variable (a
   * comma-separated list of master addresses, which {@code nyala local-cluster} prints an
   * {@code export} line for).
   *
   * @return the builder
   * @throws NyalaException INVALID_ARGUMENT when the variable is unset or empty
   */
  public static Builder builder() {
    return builder(MasterAddresses.fromEnvironment());
  }

  /**
   * Starts a builder from a comma-separated list of master addresses.
   *
   * @param masterAddresses e.g. {@code "m1:7051,m2:7051,m3:7051"}; a missing port is 7051
   * @return the builder
   */
  public static Builder builder(String masterAddresses) {
    return new Builder(List.of(masterAddresses.split(",")));
  }

  /**
   * Creates a table and waits, within the admin timeout, until the master says all its tablets
   * are created.
   *
   * @param name the table's name
   * @param schema its columns, key columns first
   * @param options partitioning and replication
   * @return the open table; fails with ALREADY_PRESENT if the name is taken, INVALID_ARGUMENT
   *     for a bad schema or partitioning, TIMED_OUT if creation did not finish in time
   */
  public CompletableFuture<NyalaTable> createTable(String name, Schema schema,
      CreateTableOptions options) {
    return ddl.createTable(name, schema, options);
  }

  /**
   * Opens a table: fetches its schema and partitioning.
   *
   * @param name the table's name
   * @return the table; fails with NOT_FOUND if there is no such table
   */
  public CompletableFuture<NyalaTable> openTable(String name) {
    return ddl.openTable(name);
  }

  CompletableFuture<NyalaTable> openTableById(String id, String name) {
    return ddl.openTableById(id, name);
  }

  /**
   * Alters a table and waits until every tablet runs the new schema. See
   * {@link NyalaClient#alterTable}.
   *
   * @param name the table's current name
   * @param options the changes
   * @return the table with its new name and schema
   */
  public CompletableFuture<NyalaTable> alterTable(String name, AlterTableOptions options) {
    return ddl.alterTable(name, options);
  }

  /**
   * @param name the name of a table to delete, with its data
   * @return completes when the master has deleted it; fails with NOT_FOUND if absent
   */
  public CompletableFuture<Void> deleteTable(String name) {
    return ddl.deleteTable(name);
  }

  /** @return every table's name, in the master's order */
  public CompletableFuture<List<String>> listTables() {
    return listTables("");
  }

  /**
   * @param nameFilter a substring of the names wanted; empty for all tables
   * @return the names of the tables whose name contains it
   */
  public CompletableFuture<List<String>> listTables(String nameFilter) {
    return listTableInfos(nameFilter).thenApply(infos -> infos.stream().map(TableInfo::name)
        .toList());
  }

  /**
   * @param nameFilter a substring of the names wanted; empty for all tables
   * @return one entry per table, with its id and size
   */
  public CompletableFuture<List<TableInfo>> listTableInfos(String nameFilter) {
    return ddl.listTableInfos(nameFilter);
  }

  /**
   * @param name a table's name
   * @return whether the master knows a table of that name
   */
  public CompletableFuture<Boolean> tableExists(String name) {
    return ddl.tableExists(name);
  }

  /**
   * A new session for writing rows, in AUTO_FLUSH_SYNC mode.
   *
   * @return the session; close it when done
   */
  public NyalaSession newSession() {
    if (transport.isClosed()) {
      throw NyalaException.illegalState("client is closed");
    }
    NyalaSession s = new NyalaSession(this);
    openSessions.add(s);
    return s;
  }

  /**
   * A builder for a scanner over a table.
   *
   * @param table the table
   * @return the builder
   */
  public ScannerBuilder newScannerBuilder(NyalaTable table) {
    return new ScannerBuilder(table);
  }

  /**
   * @param table the table
   * @return a builder of scan tokens: one serializable scan per tablet ({@link NyalaScanToken})
   */
  public NyalaScanTokenBuilder newScanTokenBuilder(NyalaTable table) {
    return new NyalaScanTokenBuilder(table);
  }

  /** @return what this client has done since it was built, see {@link ClientStatistics} */
  public ClientStatistics getStatistics() {
    return ClientStatistics.of(tabletCaller.counters());
  }

  /** @return every tablet server the leader master knows, live or not, in its order */
  public CompletableFuture<List<TabletServerInfo>> listTabletServers() {
    return cluster.listTabletServers();
  }

  /** @return the named table's size as its tablet servers report it (NOT_FOUND if absent) */
  public CompletableFuture<TableStatistics> getTableStatistics(String name) {
    return cluster.tableStatistics(name);
  }

  /** @return the configured master addresses */
  public List<HostPort> getMasterAddresses() {
    return masterAddresses;
  }

  /** @return the timeout of writes and scan calls, in milliseconds */
  public long getDefaultOperationTimeoutMs() {
    return operationTimeoutMs;
  }

  /** @return the timeout of DDL and other master calls, in milliseconds */
  public long getDefaultAdminOperationTimeoutMs() {
    return adminOperationTimeoutMs;
  }

  /** @return how long one tablet RPC attempt waits for its answer, in milliseconds */
  public long getDefaultRpcTimeoutMs() {
    return tabletCaller.attemptTimeoutMs();
  }

  /** @return the cap on the encoded row bytes of one write request */
  public int getMaxWriteRequestBytes() {
    return maxWriteRequestBytes;
  }

  /** @return this client's 16-byte id, which with a sequence number makes writes exactly-once */
  public byte[] getClientId() {
    return clientId.toByteArray();
  }

  ByteString clientIdBytes() {
    return clientId;
  }

  long nextSeqNo() {
    return nextSeqNo.getAndIncrement();
  }

  AnsweredWrites answeredWrites() {
    return answeredWrites;
  }

  WritePositions writePositions() {
    return writePositions;
  }

  Transport transport() {
    return transport;
  }

  TabletCaller tabletCaller() {
    return tabletCaller;
  }

  Batcher batcher() {
    return batcher;
  }

  void sessionClosed(NyalaSession s) {
    openSessions.remove(s);
  }

  /**
   * The location cache of a table.
   *
   * @param table the table
   * @return its cache, made on first use
   */
  TableLocations locations(NyalaTable table) {
    return locations.of(table);
  }

  /**
   * Flushes open sessions (best effort, within the operation timeout), then closes every
   * channel. Calls still in flight fail. Idempotent.
   */
  @Override
  public void close() {
    for (NyalaSession s : List.copyOf(openSessions)) {
      try {
        s.close();
      } catch (NyalaException e) {
        // A failed final flush must not keep the channels open; its rows were reported to the
        // session's own callers or pending errors.
      }
    }
    transport.close();
  }

  /** Configures and builds an {@link AsyncNyalaClient}. */
  public static final class Builder {
    private final List<HostPort> masters;
    private long operationTimeoutMs = TimeUnit.SECONDS.toMillis(30);
    private long adminOperationTimeoutMs = TimeUnit.SECONDS.toMillis(30);
    private long rpcTimeoutMs = TimeUnit.SECONDS.toMillis(5);
    private int maxWriteRequestBytes = 208 << 10;
    private java.nio.file.Path trustedCaFile;
    private UserCredentials credentials;

    /**
     * A builder over the given masters.
     *
     * @param masterAddresses {@code host:port} of each master (port defaults to 7051)
     */
    public Builder(List<String> masterAddresses) {
      this.masters = MasterAddresses.parse(masterAddresses, DEFAULT_MASTER_PORT);
    }

    /**
     * @param ms the time allowed for each write flush and each scan call, retries included,
     *     see {@link NyalaClient.Builder#defaultOperationTimeoutMs}
     * @return this
     */
    public Builder defaultOperationTimeoutMs(long ms) {
      this.operationTimeoutMs = positive("operation timeout", ms);
      return this;
    }

    /**
     * Sets the time allowed for DDL and other master calls, retries included.
     *
     * @param ms milliseconds, positive (default 30 000)
     * @return this
     */
    public Builder defaultAdminOperationTimeoutMs(long ms) {
      this.adminOperationTimeoutMs = positive("admin operation timeout", ms);
      return this;
    }

    /**
     * @param ms how long one tablet or master RPC attempt may wait for its answer before it is
     *     sent again (default 5 000), see {@link NyalaClient.Builder#defaultRpcTimeoutMs}
     * @return this
     */
    public Builder defaultRpcTimeoutMs(long ms) {
      this.rpcTimeoutMs = positive("RPC timeout", ms);
      return this;
    }

    /**
     * Sets the cap on the encoded row bytes of one write request; larger batches are split.
     * Keep it under the servers' {@code --max_write_request_bytes} (240 KiB by default) with
     * room for the request's schema; it is also the largest single row the client can write.
     *
     * @param bytes the cap, positive (default 208 KiB)
     * @return this
     */
    public Builder maxWriteRequestBytes(int bytes) {
      this.maxWriteRequestBytes = (int) positive("write request limit", bytes);
      return this;
    }

    /**
     * @param caFile the CA to trust over TLS, see {@link NyalaClient.Builder#trustedCaFile}
     * @return this
     */
    public Builder trustedCaFile(java.nio.file.Path caFile) {
      this.trustedCaFile = caFile;
      return this;
    }

    /** Authenticates as {@code user}: see {@link NyalaClient.Builder#credentials}. */
    public Builder credentials(String user, String password) {
      this.credentials = new UserCredentials(user, password);
      return this;
    }

    private static long positive(String what, long v) {
      if (v <= 0) {
        throw NyalaException.invalidArgument("%s must be positive, got %d", what, v);
      }
      return v;
    }

    /** @return a new client */
    public AsyncNyalaClient build() {
      return new AsyncNyalaClient(this);
    }
  }
}
