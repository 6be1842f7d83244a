package io.nyala.client;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.schema.Schema;
import java.nio.file.Path;
import java.util.List;

/**
 * The blocking Nyala client: each call waits for its {@link AsyncNyalaClient} counterpart and
 * throws its failure as a {@link NyalaException}. Thread-safe; make one per application and
 * close it when done.
 */
public final class NyalaClient implements AutoCloseable {
  private final AsyncNyalaClient async;

  private NyalaClient(AsyncNyalaClient async) {
    this.async = async;
  }

  /**
   * Starts a builder from the environment, as {@code nyala local-cluster} prints it: the masters
   * of {@value MasterAddresses#ENV} (a comma-separated list of master addresses), else those of
   * the {@value ClientConfig#ENV} file; and that file's CA and user when it is set
   * ({@link Builder#clientConfig}).
   *
   * @return the builder
   * @throws NyalaException INVALID_ARGUMENT when neither names a master
   */
  public static Builder builder() {
    ClientConfig config = ClientConfig.fromEnvironment();
    String env = System.getenv(MasterAddresses.ENV);
    boolean fromConfig = (env == null || env.isBlank()) && config != null
        && config.masters() != null;
    Builder b = builder(fromConfig ? config.masters() : MasterAddresses.fromEnvironment());
    return config == null ? b : b.apply(config);
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
   * Creates a table and waits until its tablets exist.
   *
   * @param name the table's name
   * @param schema its columns, key columns first
   * @param options partitioning and replication
   * @return the open table
   * @throws NyalaException ALREADY_PRESENT, INVALID_ARGUMENT (naming the column), TIMED_OUT
   */
  public NyalaTable createTable(String name, Schema schema, CreateTableOptions options) {
    return Sync.join(async.createTable(name, schema, options));
  }

  /**
   * Opens a table.
   *
   * @param name the table's name
   * @return the table
   * @throws NyalaException NOT_FOUND if there is no such table
   */
  public NyalaTable openTable(String name) {
    return Sync.join(async.openTable(name));
  }

  /**
   * Deletes a table and its data.
   *
   * @param name the table's name
   * @throws NyalaException NOT_FOUND if there is no such table
   */
  public void deleteTable(String name) {
    Sync.join(async.deleteTable(name));
  }

  /**
   * Alters a table (renames it, adds, drops or renames columns) and waits until every tablet
   * runs the new schema.
   *
   * @param name the table's current name
   * @param options the changes
   * @return the table as it is now, with its new name and schema; tables opened earlier keep
   *     their old schema, so open them again
   * @throws NyalaException NOT_FOUND (no such table), INVALID_ARGUMENT (naming the column),
   *     ALREADY_PRESENT (the new name is taken), TIMED_OUT (the tablets did not all follow in
   *     time; the change itself is made and they will still follow)
   */
  public NyalaTable alterTable(String name, AlterTableOptions options) {
    return Sync.join(async.alterTable(name, options));
  }

  /**
   * A snapshot of this client's counters: writes, scans, tablet RPCs and per-tablet figures.
   *
   * @return the snapshot; take two and subtract to measure a stretch of work
   */
  public ClientStatistics getStatistics() {
    return async.getStatistics();
  }

  /**
   * The tablet servers the leader master knows (Kudu's {@code listTabletServers()}).
   *
   * @return every one, live or not, in the master's order
   */
  public List<TabletServerInfo> listTabletServers() {
    return Sync.join(async.listTabletServers());
  }

  /**
   * A table's size as its tablet servers report it (Kudu's {@code getTableStatistics}).
   *
   * @param name the table's name
   * @return its live row count estimate
   * @throws NyalaException NOT_FOUND if there is no such table
   */
  public TableStatistics getTableStatistics(String name) {
    return Sync.join(async.getTableStatistics(name));
  }

  /** @return every table's name */
  public List<String> listTables() {
    return Sync.join(async.listTables());
  }

  /**
   * @param nameFilter a substring of the names wanted; empty for all
   * @return the matching tables' names
   */
  public List<String> listTables(String nameFilter) {
    return Sync.join(async.listTables(nameFilter));
  }

  /**
   * @param nameFilter a substring of the names wanted; empty for all
   * @return the matching tables with ids and sizes
   */
  public List<TableInfo> listTableInfos(String nameFilter) {
    return Sync.join(async.listTableInfos(nameFilter));
  }

  /**
   * @param name a table name
   * @return whether the table exists
   */
  public boolean tableExists(String name) {
    return Sync.join(async.tableExists(name));
  }

  /** @return a new session in AUTO_FLUSH_SYNC mode */
  public NyalaSession newSession() {
    return async.newSession();
  }

  /**
   * @param table the table to scan
   * @return a scanner builder
   */
  public ScannerBuilder newScannerBuilder(NyalaTable table) {
    return async.newScannerBuilder(table);
  }

  /**
   * A builder for scan tokens: one serializable scan per tablet, see {@link NyalaScanToken}.
   *
   * @param table the table to scan
   * @return the builder; its {@link NyalaScanTokenBuilder#build()} blocks
   */
  public NyalaScanTokenBuilder newScanTokenBuilder(NyalaTable table) {
    return async.newScanTokenBuilder(table);
  }

  /** @return the asynchronous client underneath */
  public AsyncNyalaClient getAsyncClient() {
    return async;
  }

  /** @return the configured master addresses */
  public List<HostPort> getMasterAddresses() {
    return async.getMasterAddresses();
  }

  /** Flushes open sessions and closes every channel. Idempotent. */
  @Override
  public void close() {
    async.close();
  }

  /** Configures and builds a {@link NyalaClient}. */
  public static final class Builder {
    private final AsyncNyalaClient.Builder inner;

    /**
     * A builder over the given masters.
     *
     * @param masterAddresses {@code host:port} of each master (port defaults to 7051)
     */
    public Builder(List<String> masterAddresses) {
      this.inner = new AsyncNyalaClient.Builder(masterAddresses);
    }

    /**
     * Sets the time allowed for each write flush and each scan call, retries included.
     *
     * <p>A write is retried with the same sequence number, and a tablet server answers a retry
     * from its first outcome only while it remembers that outcome: for its Raft retry cache's
     * expiry ({@code raft.server.retrycache.expirytime}, 60 s by default). Keep this timeout
     * under that window, or a retry arriving later is applied again (an insert then fails
     * with ALREADY_PRESENT).
     *
     * @param ms milliseconds, positive (default 30 000)
     * @return this
     */
    public Builder defaultOperationTimeoutMs(long ms) {
      inner.defaultOperationTimeoutMs(ms);
      return this;
    }

    /**
     * @param ms time allowed for DDL and other master calls (default 30 000)
     * @return this
     */
    public Builder defaultAdminOperationTimeoutMs(long ms) {
      inner.defaultAdminOperationTimeoutMs(ms);
      return this;
    }

    /**
     * Sets how long one attempt of a tablet RPC (a write batch or a scan page) or of a master
     * RPC may wait for its answer; a master that does not answer in time is skipped for the
     * next one, so one dead master never stalls a DDL or location lookup. When it passes, the
     * attempt is abandoned and the same request is sent again — to whichever replica is leader
     * by then — while the operation timeout has time left. Without
     * it, a leader that froze, or that committed a write but whose answer was lost, would hold
     * the operation until its deadline. Retried writes keep their sequence number, so a write
     * that did commit is answered with its first outcome, not applied twice.
     *
     * <p>Keep it well under the operation timeout, and above the longest a healthy server takes
     * to answer one request.
     *
     * @param ms milliseconds, positive (default 5 000); capped by the operation's deadline
     * @return this
     */
    public Builder defaultRpcTimeoutMs(long ms) {
      inner.defaultRpcTimeoutMs(ms);
      return this;
    }

    /**
     * @param bytes cap on one write request's encoded rows (default 208 KiB)
     * @return this
     */
    public Builder maxWriteRequestBytes(int bytes) {
      inner.maxWriteRequestBytes(bytes);
      return this;
    }

    /**
     * Connects over TLS, trusting only servers whose certificate the CA in {@code caFile} issued
     * (the servers' {@code --trusted_ca_file}); the client presents no certificate. Without it
     * the client speaks plaintext, which a cluster running {@code --rpc_encryption=required}
     * refuses. A server whose certificate the CA did not issue, or that does not name the
     * address dialled, fails the call with a RUNTIME_ERROR saying the TLS handshake failed.
     *
     * @param caFile a PEM file of the cluster's CA certificate, read when the client is built;
     *     null for plaintext (the default)
     * @return this
     */
    public Builder trustedCaFile(Path caFile) {
      inner.trustedCaFile(caFile);
      return this;
    }

    /**
     * Authenticates as {@code user} (docs/architecture.md, "Who may call what"): on its first
     * call the client exchanges the credentials with the leader master for a signed token,
     * sends the token with every call, and gets a new one before it expires (and again if a
     * server says it has). A cluster running {@code --rpc_authentication=required} refuses
     * clients without credentials with NOT_AUTHORIZED. The masters accept credentials only
     * over TLS ({@link #trustedCaFile}). Neither password nor token is ever logged.
     *
     * @param user a user of the masters' {@code --user_credentials_file}
     * @param password its password
     * @return this
     * @throws NyalaException INVALID_ARGUMENT for an empty user or password; wrong ones fail
     *     the first call with NOT_AUTHORIZED
     */
    public Builder credentials(String user, String password) {
      inner.credentials(user, password);
      return this;
    }

    /**
     * Trusts the CA and authenticates as the user of a client configuration file
     * ({@link ClientConfig}), such as the one {@code nyala local-cluster} writes; its masters
     * are not used (this builder has its own). See {@link #trustedCaFile} and
     * {@link #credentials}.
     *
     * @param file the configuration file
     * @return this
     * @throws NyalaException as {@link ClientConfig#read} and {@link ClientConfig#password} do
     */
    public Builder clientConfig(Path file) {
      return apply(ClientConfig.read(file));
    }

    /**
     * {@link #clientConfig} with the file the {@value ClientConfig#ENV} environment variable
     * names (which {@code nyala local-cluster} prints an {@code export} line for); nothing when
     * it is unset, so that the same code reaches a plaintext cluster.
     *
     * @return this
     * @throws NyalaException as {@link ClientConfig#read} and {@link ClientConfig#password} do
     */
    public Builder clientConfigFromEnvironment() {
      ClientConfig config = ClientConfig.fromEnvironment();
      return config == null ? this : apply(config);
    }

    private Builder apply(ClientConfig config) {
      if (config.trustedCaFile() != null) {
        trustedCaFile(config.trustedCaFile());
      }
      if (config.user() != null) {
        credentials(config.user(), config.password());
      }
      return this;
    }

    /**
     * @return a new client
     * @throws NyalaException NOT_FOUND or INVALID_ARGUMENT naming a trusted CA file that is
     *     missing or holds no certificate
     */
    public NyalaClient build() {
      return new NyalaClient(inner.build());
    }
  }
}
