package io.nyala.master.locations;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.google.protobuf.ByteString;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.TableIdentifierPB;
import io.nyala.master.catalog.LocationsVersions;
import java.util.concurrent.atomic.AtomicLong;

/**
 * GetTableLocations responses cached in front of {@link TableLocationsLookup}.
 *
 * <p>Requirements:
 * <ul>
 *   <li>Bounded by bytes: each entry weighs the estimated bytes of its key and its response
 *       (serialized size plus a fixed object overhead); the total stays within
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
 *   <li>Thread-safe; a hit takes no lock of ours. Duplicate loads of one key may race; both
 *       compute the same answer.</li>
 *   <li>Metrics: {@code table_locations_cache_{hits,misses,lookups,inserts,evictions,
 *       memory_usage}}; memory usage is exact after {@link #cleanUp}.</li>
 * </ul>
 */
public final class TableLocationsCache {
  /** Object headers, references and the key's fixed fields, roughly. */
  private static final int ENTRY_OVERHEAD_BYTES = 128;

  private record Key(long epoch, String tableId, long version, ByteString start, ByteString end,
      int max, int filter, boolean intern) {}

  private final TableLocationsLookup lookup;
  private final LocationsVersions versions;
  private final Cache<Key, GetTableLocationsResponsePB> cache;
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
        .weigher((Key k, GetTableLocationsResponsePB v) -> weigh(k, v))
        .evictionListener((Key k, GetTableLocationsResponsePB v, RemovalCause cause) -> {
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

  /** The locations a request asks for: from the cache when possible. */
  public GetTableLocationsResponsePB get(GetTableLocationsRequestPB req) {
    int max = lookup.validate(req);
    lookups.inc();
    LocationsVersions.Version v = capacityBytes == 0 ? null : versions.current(req.getTable());
    if (v == null) {
      misses.inc(); // off, or no such table (the lookup answers NOT_FOUND)
      return lookup.lookup(req.getTable(), req, max);
    }
    Key key = new Key(epoch.get(), v.tableId(), v.version(), req.getPartitionKeyStart(),
        req.getPartitionKeyEnd(), max, req.getReplicaTypeFilterValue(),
        req.getInternTsInfosInResponse());
    GetTableLocationsResponsePB cached = cache.getIfPresent(key);
    if (cached != null) {
      hits.inc();
      return cached;
    }
    misses.inc();
    GetTableLocationsResponsePB resp = lookup.lookup(
        TableIdentifierPB.newBuilder().setTableId(v.tableId()).build(), req, max);
    cache.put(key, resp);
    inserts.inc();
    return resp;
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

  private static int weigh(Key k, GetTableLocationsResponsePB v) {
    long bytes = ENTRY_OVERHEAD_BYTES + 2L * k.tableId().length() + k.start().size()
        + k.end().size() + v.getSerializedSize();
    return (int) Math.min(Integer.MAX_VALUE, bytes);
  }
}
