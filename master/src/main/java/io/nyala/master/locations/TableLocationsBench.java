package io.nyala.master.locations;

import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.ColumnSchemaPB;
import io.nyala.common.proto.DataTypePB;
import io.nyala.common.proto.HashBucketSchemaPB;
import io.nyala.common.proto.PartitionSchemaPB;
import io.nyala.common.proto.SchemaPB;
import io.nyala.common.proto.master.CreateTableRequestPB;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.master.TableIdentifierPB;
import io.nyala.master.MasterServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * {@code nyala bench table-locations}: threads calling GetTableLocations on one master, either
 * directly ({@link Mode#CALL}: the cache and lookup, plus parsing the serialized answer the
 * cache holds, which over RPC the client does) or over gRPC with one channel per thread
 * ({@link Mode#RPC}, with per-call latency in an HdrHistogram). Each measured run follows a
 * warm-up run of the same shape, so the JIT and the cache are warm. {@link #measure} takes any
 * {@link Caller}s, e.g. over TLS to a master process.
 */
public final class TableLocationsBench {
  private TableLocationsBench() {}

  /** How the threads reach the master. */
  public enum Mode { CALL, RPC }

  public record Params(int threads, double seconds, double warmupSeconds, long cacheMb,
      Mode mode) {}

  /** Latency figures in microseconds. */
  public record Latency(long count, double mean, double min, double p25, double p50, double p75,
      double p95, double p99, double p999, double p9999, double max) {}

  /** One measured run; {@code latency} is null for {@link Mode#CALL}. */
  public record Result(Params params, long requests, double seconds, Latency latency) {
    public double requestsPerSecond() {
      return requests / seconds;
    }
  }

  /** Creates a (key int64, val string) table hashed into {@code tablets} and waits for it. */
  public static void createTable(MasterServer master, String name, int tablets) {
    SchemaPB schema = SchemaPB.newBuilder()
        .addColumns(ColumnSchemaPB.newBuilder().setName("key").setType(DataTypePB.INT64)
            .setIsKey(true))
        .addColumns(ColumnSchemaPB.newBuilder().setName("val").setType(DataTypePB.STRING)
            .setIsNullable(true))
        .build();
    CreateTableRequestPB req = CreateTableRequestPB.newBuilder().setName(name).setSchema(schema)
        .setPartitionSchema(PartitionSchemaPB.newBuilder().addHashSchemas(
            HashBucketSchemaPB.newBuilder().addColumns("key").setNumBuckets(tablets)))
        .build();
    master.catalog().createTable(req);
    TableIdentifierPB ident = TableIdentifierPB.newBuilder().setTableName(name).build();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    while (!master.catalog().isCreateTableDone(ident)) {
      if (System.nanoTime() > deadline) {
        throw NyalaException.timedOut("table '%s' not created within 300 s", name);
      }
      sleepQuietly(20);
    }
  }

  /** The request every thread sends: the whole table, interned tserver infos. */
  public static GetTableLocationsRequestPB request(String table) {
    return GetTableLocationsRequestPB.newBuilder()
        .setTable(TableIdentifierPB.newBuilder().setTableName(table))
        .setMaxReturnedLocations(1000)
        .setInternTsInfosInResponse(true)
        .build();
  }

  /**
   * One thread's way to a master: called from that thread only, closed when it is done (a
   * caller over RPC owns its channel, so every thread has its own connection).
   */
  public interface Caller extends AutoCloseable {
    GetTableLocationsResponsePB call(GetTableLocationsRequestPB req);

    @Override
    default void close() {}
  }

  /** Sets the master's cache to {@code p.cacheMb()}, warms up, then measures. */
  public static Result run(MasterServer master, String table, Params p) {
    return run(master, table, p, () -> caller(master, p.mode()));
  }

  /** As {@link #run(MasterServer, String, Params)}, each thread calling through its own caller. */
  public static Result run(MasterServer master, String table, Params p,
      Supplier<Caller> callers) {
    master.locationsCache().setCapacityMb(p.cacheMb());
    GetTableLocationsRequestPB req = request(table);
    measure(callers, req, p, p.warmupSeconds());
    return measure(callers, req, p, p.seconds());
  }

  /**
   * Runs {@code p.threads()} threads, each with a caller of its own from {@code callers},
   * sending {@code req} back to back for {@code seconds}; latency is kept for {@link Mode#RPC}.
   */
  public static Result measure(Supplier<Caller> callers, GetTableLocationsRequestPB req,
      Params p, double seconds) {
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    List<CompletableFuture<Histogram>> workers = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < p.threads(); i++) {
      workers.add(CompletableFuture.supplyAsync(() -> worker(callers, req, deadline),
          r -> new Thread(r, "bench-locations").start()));
    }
    Histogram all = new Histogram(3);
    for (CompletableFuture<Histogram> w : workers) {
      all.add(w.join());
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    return new Result(p, all.getTotalCount(), elapsed,
        p.mode() == Mode.RPC ? latency(all) : null);
  }

  /**
   * A direct call of {@code master}, or a plaintext gRPC channel of its own to it (a master that
   * requires TLS needs callers made with {@link #overChannel}).
   */
  private static Caller caller(MasterServer master, Mode mode) {
    if (mode != Mode.RPC) {
      return master::getTableLocations;
    }
    ManagedChannel channel = NettyChannelBuilder.forAddress(master.rpcAddress().host(),
        master.rpcAddress().port()).usePlaintext().build();
    return overChannel(channel, channel::shutdownNow);
  }

  /** A caller through a blocking stub on {@code channel}; {@code onClose} lets go of it. */
  public static Caller overChannel(Channel channel, Runnable onClose) {
    MasterServiceGrpc.MasterServiceBlockingStub stub = MasterServiceGrpc.newBlockingStub(channel);
    return new Caller() {
      @Override
      public GetTableLocationsResponsePB call(GetTableLocationsRequestPB req) {
        return stub.getTableLocations(req);
      }

      @Override
      public void close() {
        onClose.run();
      }
    };
  }

  /** Calls until the deadline; returns one latency sample (ns) per call. */
  private static Histogram worker(Supplier<Caller> callers, GetTableLocationsRequestPB req,
      long deadline) {
    Histogram h = new Histogram(3);
    try (Caller caller = callers.get()) {
      long now = System.nanoTime();
      while (now < deadline) {
        GetTableLocationsResponsePB r = caller.call(req);
        long end = System.nanoTime();
        if (r.hasError()) {
          throw NyalaException.fromPb(r.getError());
        }
        h.recordValue(end - now);
        now = end;
      }
    }
    return h;
  }

  private static Latency latency(Histogram h) {
    return new Latency(h.getTotalCount(), h.getMean() / 1e3, h.getMinValue() / 1e3,
        us(h, 25), us(h, 50), us(h, 75), us(h, 95), us(h, 99), us(h, 99.9), us(h, 99.99),
        h.getMaxValue() / 1e3);
  }

  private static double us(Histogram h, double percentile) {
    return h.getValueAtPercentile(percentile) / 1e3;
  }

  private static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.illegalState("interrupted while waiting for the table");
    }
  }
}
