package io.nyala.client;

import io.nyala.client.master.MasterProxy;
import io.nyala.client.rpc.Backoff;
import io.nyala.client.rpc.Deadline;
import io.nyala.client.rpc.Transport;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.partition.PartitionSchema;
import io.nyala.common.partition.RangeSchema;
import io.nyala.common.proto.master.AlterTableRequestPB;
import io.nyala.common.proto.master.AlterTableResponsePB;
import io.nyala.common.proto.master.CreateTableRequestPB;
import io.nyala.common.proto.master.CreateTableResponsePB;
import io.nyala.common.proto.master.DeleteTableRequestPB;
import io.nyala.common.proto.master.DeleteTableResponsePB;
import io.nyala.common.proto.master.GetTableSchemaRequestPB;
import io.nyala.common.proto.master.GetTableSchemaResponsePB;
import io.nyala.common.proto.master.IsAlterTableDoneRequestPB;
import io.nyala.common.proto.master.IsAlterTableDoneResponsePB;
import io.nyala.common.proto.master.IsCreateTableDoneRequestPB;
import io.nyala.common.proto.master.IsCreateTableDoneResponsePB;
import io.nyala.common.proto.master.ListTablesRequestPB;
import io.nyala.common.proto.master.ListTablesResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc.MasterServiceStub;
import io.nyala.common.proto.master.TableIdentifierPB;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The client's DDL and table opening: each call goes to the leader master through
 * {@link MasterProxy} within the admin operation timeout, and CreateTable and AlterTable then
 * poll IsCreateTableDone / IsAlterTableDone with backoff until the master says every tablet has
 * caught up (see docs/architecture.md, the master's catalog).
 *
 * <p>Renames and deletes drop the table's cached locations. Stateless apart from that cache, so
 * thread-safe. {@link AsyncNyalaClient} documents each operation's outcome and errors.
 */
final class TableDdl {
  private final AsyncNyalaClient client;
  private final MasterProxy master;
  private final Transport transport;
  private final Backoff backoff;
  private final LocationCache locations;
  private final long adminOperationTimeoutMs;

  TableDdl(AsyncNyalaClient client, MasterProxy master, Transport transport, Backoff backoff,
      LocationCache locations, long adminOperationTimeoutMs) {
    this.client = client;
    this.master = master;
    this.transport = transport;
    this.backoff = backoff;
    this.locations = locations;
    this.adminOperationTimeoutMs = adminOperationTimeoutMs;
  }

  /** Creates a table, waits until its tablets are created, and opens it. */
  CompletableFuture<NyalaTable> createTable(String name, Schema schema,
      CreateTableOptions options) {
    PartitionSchema ps;
    try {
      checkTableName(name);
      if (schema.keyColumnCount() == 0) {
        throw NyalaException.invalidArgument("table '%s': schema has no primary key column", name);
      }
      ps = options.partitionSchema(schema);
    } catch (NyalaException e) {
      return CompletableFuture.failedFuture(e);
    }
    Deadline d = Deadline.after(adminOperationTimeoutMs);
    CreateTableRequestPB req = CreateTableRequestPB.newBuilder().setName(name)
        .setSchema(schema.toPb()).setPartitionSchema(ps.toPb())
        .setNumReplicas(options.getNumReplicas())
        // The same id on every retry: a retry of a create that took effect is not refused.
        .setRequestId(UUID.randomUUID().toString()).build();
    return master.call("CreateTable '" + name + "'", req, MasterServiceStub::createTable,
            CreateTableResponsePB::getError, d)
        .thenCompose(resp -> waitForCreation(name, resp.getTableId(), d, 0))
        .thenCompose(id -> getTableSchema(TableIdentifierPB.newBuilder().setTableId(id).build(),
            name, d));
  }

  private CompletableFuture<String> waitForCreation(String name, String id, Deadline d,
      int attempt) {
    IsCreateTableDoneRequestPB req = IsCreateTableDoneRequestPB.newBuilder()
        .setTable(TableIdentifierPB.newBuilder().setTableId(id)).build();
    return pollUntil(() -> master.call("IsCreateTableDone '" + name + "'", req,
            MasterServiceStub::isCreateTableDone, IsCreateTableDoneResponsePB::getError, d)
            .thenApply(IsCreateTableDoneResponsePB::getDone), d, attempt,
        () -> NyalaException.timedOut("table '%s' was not created within %d ms", name,
            d.timeoutMillis()))
        .thenApply(v -> id);
  }

  /** Asks {@code done} with backoff until it answers true; fails with {@code timeout}. */
  private CompletableFuture<Void> pollUntil(Supplier<CompletableFuture<Boolean>> done,
      Deadline d, int attempt, Supplier<NyalaException> timeout) {
    return done.get().thenCompose(ok -> {
      if (ok) {
        return CompletableFuture.completedFuture(null);
      }
      if (d.expired()) {
        throw timeout.get();
      }
      long delay = Math.min(backoff.delayMillis(attempt), d.remainingMillis());
      return transport.delay(delay).thenCompose(v -> pollUntil(done, d, attempt + 1, timeout));
    });
  }

  /** Opens a table by name: fetches its schema and partitioning. */
  CompletableFuture<NyalaTable> openTable(String name) {
    return getTableSchema(TableIdentifierPB.newBuilder().setTableName(name).build(), name,
        Deadline.after(adminOperationTimeoutMs));
  }

  /**
   * Opens a table by id, which survives renames (a scan token's table).
   *
   * @param id the table's id
   * @param name its name, for messages
   */
  CompletableFuture<NyalaTable> openTableById(String id, String name) {
    return getTableSchema(TableIdentifierPB.newBuilder().setTableId(id).build(), name,
        Deadline.after(adminOperationTimeoutMs));
  }

  private CompletableFuture<NyalaTable> getTableSchema(TableIdentifierPB id, String name,
      Deadline d) {
    GetTableSchemaRequestPB req = GetTableSchemaRequestPB.newBuilder().setTable(id).build();
    return master.call("GetTableSchema '" + name + "'", req, MasterServiceStub::getTableSchema,
        GetTableSchemaResponsePB::getError, d).thenApply(resp -> {
          Schema schema = Schema.fromPb(resp.getSchema());
          PartitionSchema ps = PartitionSchema.fromPb(resp.getPartitionSchema(), schema);
          return new NyalaTable(client, resp.getTableId(), resp.getTableName(), schema, ps,
              resp.getNumReplicas());
        });
  }

  /** Alters a table, waits until every tablet runs the new schema, and reopens it. */
  CompletableFuture<NyalaTable> alterTable(String name, AlterTableOptions options) {
    if (!options.changesRanges()) {
      return alterTable(name, options, null);
    }
    // Range bounds are encoded by the table's range columns.
    return openTable(name).thenCompose(t -> alterTable(name, options,
        t.getPartitionSchema().rangeSchema()));
  }

  private CompletableFuture<NyalaTable> alterTable(String name, AlterTableOptions options,
      RangeSchema rs) {
    Deadline d = Deadline.after(adminOperationTimeoutMs);
    AlterTableRequestPB req;
    try {
      req = options.toPb(rs)
          .setTable(TableIdentifierPB.newBuilder().setTableName(name))
          .setRequestId(UUID.randomUUID().toString()).build();
    } catch (NyalaException e) {
      return CompletableFuture.failedFuture(NyalaException.invalidArgument("alter table '%s': %s",
          name, e.detail()));
    }
    return master.call("AlterTable '" + name + "'", req, MasterServiceStub::alterTable,
            AlterTableResponsePB::getError, d)
        .thenCompose(resp -> {
          // Cached locations carry the old name or ranges; the next lookup refetches them.
          locations.forgetTableId(resp.getTableId());
          TableIdentifierPB id = TableIdentifierPB.newBuilder().setTableId(resp.getTableId())
              .build();
          return waitForAlter(name, id, d).thenCompose(v -> getTableSchema(id, name, d));
        });
  }

  private CompletableFuture<Void> waitForAlter(String name, TableIdentifierPB id, Deadline d) {
    IsAlterTableDoneRequestPB req = IsAlterTableDoneRequestPB.newBuilder().setTable(id).build();
    return pollUntil(() -> master.call("IsAlterTableDone '" + name + "'", req,
            MasterServiceStub::isAlterTableDone, IsAlterTableDoneResponsePB::getError, d)
            .thenApply(IsAlterTableDoneResponsePB::getDone), d, 0,
        () -> NyalaException.timedOut("alter of table '%s' did not reach every tablet within "
            + "%d ms", name, d.timeoutMillis()));
  }

  /** Deletes a table and drops its cached locations. */
  CompletableFuture<Void> deleteTable(String name) {
    DeleteTableRequestPB req = DeleteTableRequestPB.newBuilder()
        .setTable(TableIdentifierPB.newBuilder().setTableName(name))
        .setRequestId(UUID.randomUUID().toString()).build();
    return master.call("DeleteTable '" + name + "'", req, MasterServiceStub::deleteTable,
        DeleteTableResponsePB::getError, Deadline.after(adminOperationTimeoutMs)).thenApply(r -> {
          locations.forgetTableNamed(name);
          return null;
        });
  }

  /** Lists the tables whose name contains {@code nameFilter}, with their ids and sizes. */
  CompletableFuture<List<TableInfo>> listTableInfos(String nameFilter) {
    ListTablesRequestPB req = ListTablesRequestPB.newBuilder().setNameFilter(nameFilter).build();
    return master.call("ListTables", req, MasterServiceStub::listTables,
        ListTablesResponsePB::getError, Deadline.after(adminOperationTimeoutMs)).thenApply(r -> {
          List<TableInfo> out = new ArrayList<>(r.getTablesCount());
          for (ListTablesResponsePB.TableInfo t : r.getTablesList()) {
            out.add(new TableInfo(t.getId(), t.getName(), t.getNumTablets(), t.getNumReplicas()));
          }
          return out;
        });
  }

  /** Whether the master knows a table of this name: NOT_FOUND answers false. */
  CompletableFuture<Boolean> tableExists(String name) {
    return openTable(name).handle((t, err) -> {
      if (err == null) {
        return true;
      }
      NyalaException e = NyalaException.from(err);
      if (e.code() == StatusCode.NOT_FOUND) {
        return false;
      }
      throw e;
    });
  }

  private static void checkTableName(String name) {
    if (name == null || name.isBlank()) {
      throw NyalaException.invalidArgument("table name must not be empty");
    }
  }
}
