package io.nyala.client;

import io.nyala.client.locations.RemoteTablet;
import io.nyala.client.locations.TableLocations;
import io.nyala.client.rpc.Deadline;
import io.nyala.client.stats.ClientCounters;
import io.nyala.common.NyalaException;
import io.nyala.common.row.ByteWriter;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Turns a list of operations into write requests: finds each row's tablet, groups rows by tablet
 * (keeping their order), splits each group so that no request's encoded rows exceed the client's
 * limit, and sends the requests. Tablets are written in parallel; the requests of one tablet go
 * one after another, so that two operations on the same key apply in the order given.
 *
 * <p>Stateless apart from the client; one flush's state lives in its own objects.
 */
final class Batcher {
  private final AsyncNyalaClient client;

  Batcher(AsyncNyalaClient client) {
    this.client = client;
  }

  /**
   * Writes operations.
   *
   * @param ops the operations, already validated
   * @param deadline when to give up on any of them
   * @return one response per operation, in the same order; never completes exceptionally
   */
  CompletableFuture<List<OperationResponse>> flush(List<Operation> ops, Deadline deadline) {
    Flush f = new Flush(List.copyOf(ops), deadline);
    ClientCounters counters = client.tabletCaller().counters();
    counters.writesApplied(ops.size());
    f.locateFrom(0);
    return f.located.thenCompose(v -> f.sendAll()).handle((v, err) -> {
      NyalaException e = err == null ? null : NyalaException.from(err);
      int rowErrors = 0;
      for (int i = 0; i < f.out.length; i++) {
        if (f.out[i] == null) {
          // Only reachable through a bug; the rows must still get an answer.
          NyalaException why = e != null ? e : NyalaException.illegalState("row was not sent");
          f.out[i] = failed(f.ops.get(i), why, "");
        }
        rowErrors += f.out[i].hasRowError() ? 1 : 0;
      }
      counters.writesFinished(f.out.length - rowErrors, rowErrors);
      return Arrays.asList(f.out);
    });
  }

  private static NyalaException notCovered(Operation op) {
    NyalaTable t = op.getTable();
    return NyalaException.notFound("table '%s': no range partition covers row %s", t.getName(),
        t.getPartitionSchema().rangeSchema().formatRow(op.getRow().valuesUnsafe()));
  }

  private static OperationResponse failed(Operation op, NyalaException e, String tabletId) {
    return new OperationResponse(op, new RowError(op, ErrorStatus.of(e), tabletId), 0);
  }

  /** The state of one flush. */
  private final class Flush {
    final List<Operation> ops;
    final Deadline deadline;
    final OperationResponse[] out;
    final RemoteTablet[] tablets;
    /** A table whose lookup failed fails its other rows too, rather than asking again. */
    final Map<String, NyalaException> failedTables = new HashMap<>();
    final CompletableFuture<Void> located = new CompletableFuture<>();

    Flush(List<Operation> ops, Deadline deadline) {
      this.ops = ops;
      this.deadline = deadline;
      this.out = new OperationResponse[ops.size()];
      this.tablets = new RemoteTablet[ops.size()];
    }

    /**
     * Finds the tablets of rows {@code start..}: from the cache while it hits, else one lookup
     * at a time, since one lookup returns several tablets and usually serves the rows after it.
     */
    void locateFrom(int start) {
      try {
        for (int i = start; i < ops.size(); i++) {
          Operation op = ops.get(i);
          String tableId = op.getTable().getTableId();
          NyalaException failed = failedTables.get(tableId);
          if (failed != null) {
            out[i] = failed(op, failed, "");
            continue;
          }
          byte[] key = op.partitionKey();
          TableLocations locations = client.locations(op.getTable());
          RemoteTablet t = locations.cached(key);
          if (t != null) {
            tablets[i] = t;
            continue;
          }
          int at = i;
          boolean ranged = !op.getTable().getPartitionSchema().rangeSchema().isEmpty();
          (ranged ? locations.lookupCovering(key, deadline) : locations.lookup(key, deadline))
              .whenComplete((tablet, err) -> {
                if (err != null) {
                  NyalaException e = NyalaException.from(err);
                  failedTables.put(tableId, e);
                  out[at] = failed(op, e, "");
                } else if (tablet == null) {
                  // A gap between range partitions fails this row only.
                  out[at] = failed(op, notCovered(op), "");
                } else {
                  tablets[at] = tablet;
                }
                locateFrom(at + 1);
              });
          return;
        }
        located.complete(null);
      } catch (RuntimeException e) {
        located.completeExceptionally(e);
      }
    }

    CompletableFuture<Void> sendAll() {
      Map<String, List<Integer>> byTablet = new LinkedHashMap<>();
      for (int i = 0; i < ops.size(); i++) {
        if (tablets[i] != null) {
          byTablet.computeIfAbsent(tablets[i].id(), k -> new ArrayList<>()).add(i);
        }
      }
      List<CompletableFuture<Void>> perTablet = new ArrayList<>();
      for (List<Integer> rows : byTablet.values()) {
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (WriteBatch b : split(rows)) {
          chain = chain.thenCompose(v -> b.send(ops, out, deadline));
        }
        perTablet.add(chain);
      }
      return CompletableFuture.allOf(perTablet.toArray(new CompletableFuture<?>[0]));
    }

    /** Cuts one tablet's rows into requests of at most the client's byte limit. */
    List<WriteBatch> split(List<Integer> rows) {
      int max = client.getMaxWriteRequestBytes();
      NyalaTable table = ops.get(rows.get(0)).getTable();
      RemoteTablet tablet = tablets[rows.get(0)];
      Schema schema = table.getSchema();
      List<WriteBatch> batches = new ArrayList<>();
      ByteWriter scratch = new ByteWriter(256);
      ByteWriter cur = new ByteWriter(4096);
      List<Integer> curRows = new ArrayList<>();
      for (int i : rows) {
        scratch.reset();
        int size = RowOperations.encodeOne(scratch, schema, ops.get(i).toOp());
        if (size > max) {
          out[i] = failed(ops.get(i), NyalaException.invalidArgument(
              "operation on table '%s' encodes to %d bytes, over the write request limit of %d "
                  + "bytes", table.getName(), size, max), tablet.id());
          continue;
        }
        if (cur.size() + size > max && !curRows.isEmpty()) {
          batches.add(new WriteBatch(client, table, tablet, curRows, cur));
          cur = new ByteWriter(4096);
          curRows = new ArrayList<>();
        }
        cur.writeBytes(scratch.array(), 0, size);
        curRows.add(i);
      }
      if (!curRows.isEmpty()) {
        batches.add(new WriteBatch(client, table, tablet, curRows, cur));
      }
      return batches;
    }
  }
}
