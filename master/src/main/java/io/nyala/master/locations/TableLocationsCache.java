package io.nyala.master.locations;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.TableIdentifierPB;
import io.nyala.master.catalog.LocationsVersions;
import java.util.concurrent.atomic.AtomicLong;

/**
 * GetTableLocations responses cached in front of {@link TableLocationsLookup}, as their
 * serialized bytes: a hit is sent as it is, never serialized again (docs/performance.md,
 * "Locations over RPC"). An entry's key holds every request field that shapes the answer (the
 * table, by id, the key range, the limit, the replica filter, interning), so an entry is the
 * exact answer to every request that finds it; nothing in an answer depends on the caller.
 *
 * <p>Requirements:
 * <ul>
 *   <li>Bounded by bytes: each entry weighs what it holds, the bytes of its key and of its
 *       serialized response plus a fixed object overhead; the total stays within
 *       {@code --table_locations_cache_capacity_mb} once pending maintenance has run
 *       ({@link #cleanUp}). Capacity 0 turns the cache off. Resizable at run time.</li>
 *   <li>Never stale: a lookup that begins after a change to a table's locations finished
 *       (replicas, leaders, drop, rename, alter) never sees the state before it. The key holds
 *       the table's {@link LocationsVersions locations version} read before any state, so
 *       entries from before a change are never found again and age out; there is no per-table
 *       removal, which would miss loads in flight.</li>
 *   <li>Reset wholesale on a master leader change ({@link #reset}): an epoch in the key
 *       orphans loads in flight, and the entries are dropped.</li>
 *   <li>Errors are never cached: requests are validated first, and a failed load caches
 *       nothing.</li>
 *   <li>Thread-safe; a hit takes no lock of ours and never blocks ({@link #getIfPresent}, which
 *       may run on a transport thread). Duplicate loads of one key may race; both compute the
 *       same answer.</li>
 *   <li>Metrics: {@code table_locations_cache_{hits,misses,lookups,inserts,evictions,
 *       memory_usage}}; memory usage is exact after {@link #cleanUp}.</li>
 * </ul>
 */
public final class TableLocationsCache {
  /** Object headers, references, the key's fixed fields and the bytes' wrapper, roughly. */
  private static final int ENTRY_OVERHEAD_BYTES = 128;

  private record Key(long epoch, String tableId, long version, ByteString start, ByteString end,
      int max, int filter, boolean intern) {}

  private final TableLocationsLookup lookup;
  private final LocationsVersions versions;
  private final Cache<Key, ByteString> cache;
  private final AtomicLong epoch = new AtomicLong();
  private volatile long capacityBytes;
  private final MetricRegistry.Counter hits;
  private final MetricRegistry.Counter misses;
  private final MetricRegistry.Counter lookups;
  private final MetricRegistry.Counter inserts;
  private final MetricRegistry.Counter evictions;

  public TableLocationsCache(TableLocationsLookup lookup, LocationsVersions versions,
      long capacityMb, MetricRegistry metrics) {
    this.lookup = lookup;
    this.versions = versions;
    this.capacityBytes = capacityMb << 20;
    this.hits = metrics.counter("table_locations_cache_hits_total",
        "GetTableLocations answered from the cache");
    this.misses = metrics.counter("table_locations_cache_misses_total",
        "GetTableLocations computed from the catalog");
    this.lookups = metrics.counter("table_locations_cache_lookups_total",
        "Valid GetTableLocations requests");
    this.inserts = metrics.counter("table_locations_cache_inserts_total",
        "Responses added to the table locations cache");
    this.evictions = metrics.counter("table_locations_cache_evictions_total",
        "Responses evicted from the table locations cache to respect its capacity");
    this.cache = Caffeine.newBuilder()
        .maximumWeight(Math.max(1, capacityBytes))
        .weigher((Key k, ByteString v) -> weigh(k, v))
        .evictionListener((Key k, ByteString v, RemovalCause cause) -> {
          if (cause.wasEvicted()) {
            evictions.inc();
          }
        })
        // Maintenance on the calling thread: no pool threads, and cleanUp() settles it all.
        .executor(Runnable::run)
        .build();
    metrics.gauge("table_locations_cache_memory_usage_bytes",
        "Estimated bytes held by the table locations cache", this::memoryUsage);
  }

  /**
   * The serialized answer to a request: from the cache when possible, else computed from the
   * catalog (which may wait for its lock) and cached.
   *
   * @throws io.nyala.common.NyalaException INVALID_ARGUMENT for a malformed request, NOT_FOUND
   *     for an unknown table
   */
  public ByteString get(GetTableLocationsRequestPB req) {
    int max = lookup.validate(req);
    lookups.inc();
    Key key = key(req, max);
    if (key == null) {
      misses.inc(); // off, or no such table (the lookup answers NOT_FOUND)
      return lookup.lookup(req.getTable(), req, max).toByteString();
    }
    ByteString cached = cache.getIfPresent(key);
    if (cached != null) {
      hits.inc();
      return cached;
    }
    misses.inc();
    ByteString resp = lookup.lookup(
        TableIdentifierPB.newBuilder().setTableId(key.tableId()).build(), req, max)
        .toByteString();
    cache.put(key, resp);
    inserts.inc();
    return resp;
  }

  /**
   * The cached serialized answer to a request, or null if it is not cached: without blocking
   * (no catalog read, no lock), so that a transport thread may answer hits itself. Counts a
   * lookup and a hit only when it finds one, so that a miss then passed to {@link #get} is
   * counted once.
   *
   * @throws io.nyala.common.NyalaException INVALID_ARGUMENT for a malformed request
   */
  public ByteString getIfPresent(GetTableLocationsRequestPB req) {
    Key key = key(req, lookup.validate(req));
    ByteString cached = key == null ? null : cache.getIfPresent(key);
    if (cached != null) {
      lookups.inc();
      hits.inc();
    }
    return cached;
  }

  /** The parsed form of an answer of {@link #get} (for tests and tools). */
  public static GetTableLocationsResponsePB parse(ByteString answer) {
    try {
      return GetTableLocationsResponsePB.parseFrom(answer);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("a serialized GetTableLocations answer does not parse", e);
    }
  }

  /** The key of a valid request, or null when the cache is off or the table is unknown. */
  private Key key(GetTableLocationsRequestPB req, int max) {
    LocationsVersions.Version v = capacityBytes == 0 ? null : versions.current(req.getTable());
    if (v == null) {
      return null;
    }
    return new Key(epoch.get(), v.tableId(), v.version(), req.getPartitionKeyStart(),
        req.getPartitionKeyEnd(), max, req.getReplicaTypeFilterValue(),
        req.getInternTsInfosInResponse());
  }

  /** Drops everything, including loads in flight (a new master leadership). */
  public void reset() {
    epoch.incrementAndGet();
    cache.invalidateAll();
  }

  /** Changes the capacity; 0 turns the cache off and empties it. */
  public void setCapacityMb(long mb) {
    long bytes = mb << 20;
    capacityBytes = bytes;
    if (bytes == 0) {
      cache.invalidateAll();
    } else {
      cache.policy().eviction().ifPresent(e -> e.setMaximum(bytes));
    }
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  /** Runs pending maintenance (evictions), so the figures are exact. */
  public void cleanUp() {
    cache.cleanUp();
  }

  public long memoryUsage() {
    return cache.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L);
  }

  public long size() {
    return cache.estimatedSize();
  }

  private static int weigh(Key k, ByteString v) {
    long bytes = ENTRY_OVERHEAD_BYTES + 2L * k.tableId().length() + k.start().size()
        + k.end().size() + v.size();
    return (int) Math.min(Integer.MAX_VALUE, bytes);
  }
}
