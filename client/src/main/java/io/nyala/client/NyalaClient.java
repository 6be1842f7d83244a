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
     * @param ms time allowed for each write flush and scan call (default 30 000); keep it
     *     under the tablet servers' retry cache window (60 s by default), see
     *     {@link AsyncNyalaClient.Builder#defaultOperationTimeoutMs}
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
     * @param ms time one tablet RPC attempt may wait for its answer before the client gives up
     *     on it and retries (default 5 000); see
     *     {@link AsyncNyalaClient.Builder#defaultRpcTimeoutMs}
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
     * @return a new client
     * @throws NyalaException NOT_FOUND or INVALID_ARGUMENT naming a trusted CA file that is
     *     missing or holds no certificate
     */
    public NyalaClient build() {
      return new NyalaClient(inner.build());
    }
  }
}
