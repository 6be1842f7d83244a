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
 * exact answer to every request that finds it; nothing in an answer depends on the caller. A
 * non-empty start key is replaced in the key by the start of the first tablet the answer lists
 * (read from the table's {@link TabletBounds}, cached too), so that requests from any key of one
 * tablet, as the Java client sends them (a row's partition key), share one entry.
 *
 * <p>Requirements:
 * <ul>
 *   <li>Bounded by bytes: each entry weighs what it holds, the bytes of its key and of its
 *       serialized response (or tablet bounds) plus a fixed object overhead; the total stays
 *       within {@code --table_locations_cache_capacity_mb} once pending maintenance has run
 *       ({@link #cleanUp}). Capacity 0 turns the cache off. Resizable at run time.</li>
 *   <li>Never stale: a lookup that begins after a change to a table's locations finished
 *       (replicas, leaders, drop, rename, alter) never sees the state before it. The key holds
 *       the table's {@link LocationsVersions locations version} read before any state, so
 *       entries from before a change are never found again and age out; there is no per-table
 *       removal, which would miss loads in flight.</li>
 *   <li>Coherent: an answer or bounds are cached only when the catalog state they were read
 *       from is that of the version in their key (checked under the catalog lock, which every
 *       change that bumps a version holds), so bounds map a start key to the answer the request
 *       itself would get at that version.</li>
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

  /** What entries are kept under: answers, and the tablet bounds that lead to them. */
  private sealed interface Slot {
    String tableId();
  }

  /** An answer's key; {@code start} as {@link #startOfAnswer} makes it. */
  private record Key(long epoch, String tableId, long version, ByteString start, ByteString end,
      int max, int filter, boolean intern) implements Slot {}

  /** A table's tablet bounds at one version. */
  private record BoundsKey(long epoch, String tableId, long version) implements Slot {}

  private final TableLocationsLookup lookup;
  private final LocationsVersions versions;
  /** Answers as {@link ByteString}s, bounds as {@link TabletBounds}. */
  private final Cache<Slot, Object> cache;
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
        .weigher(TableLocationsCache::weigh)
        .evictionListener((Slot k, Object v, RemovalCause cause) -> {
          if (cause.wasEvicted() && k instanceof Key) {
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
    long e = epoch.get();
    LocationsVersions.Version v = version(req);
    if (v == null) {
      misses.inc(); // off, or no such table (the lookup answers NOT_FOUND)
      return lookup.lookup(req.getTable(), req, max).toByteString();
    }
    ByteString start = req.getPartitionKeyStart();
    TabletBounds known = start.isEmpty() ? null : bounds(e, v);
    ByteString cached = known == null && !start.isEmpty() ? null : answer(e, v, known, req, max);
    if (cached != null) {
      hits.inc();
      return cached;
    }
    misses.inc();
    TableLocationsLookup.Read read = lookup.lookup(
        TableIdentifierPB.newBuilder().setTableId(v.tableId()).build(), req, max,
        () -> versions.isCurrent(v), !start.isEmpty() && known == null);
    ByteString resp = read.answer().toByteString();
    if (!read.atVersion()) {
      return resp; // read from a later state than v's: not v's answer to cache
    }
    TabletBounds bounds = known;
    if (bounds == null && read.bounds() != null) {
      bounds = read.bounds();
      cache.asMap().putIfAbsent(new BoundsKey(e, v.tableId(), v.version()), bounds);
    }
    cache.put(key(e, v, startOfAnswer(bounds, start), req, max), resp);
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
    int max = lookup.validate(req);
    long e = epoch.get();
    LocationsVersions.Version v = version(req);
    if (v == null) {
      return null;
    }
    TabletBounds bounds = null;
    if (!req.getPartitionKeyStart().isEmpty()) {
      bounds = bounds(e, v);
      if (bounds == null) {
        return null;
      }
    }
    ByteString cached = answer(e, v, bounds, req, max);
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

  /** The table's current version, or null when the cache is off or the table is unknown. */
  private LocationsVersions.Version version(GetTableLocationsRequestPB req) {
    return capacityBytes == 0 ? null : versions.current(req.getTable());
  }

  private TabletBounds bounds(long epoch, LocationsVersions.Version v) {
    return (TabletBounds) cache.getIfPresent(new BoundsKey(epoch, v.tableId(), v.version()));
  }

  /** The cached answer; {@code bounds} may be null only for a request from the empty key. */
  private ByteString answer(long epoch, LocationsVersions.Version v, TabletBounds bounds,
      GetTableLocationsRequestPB req, int max) {
    return (ByteString) cache.getIfPresent(
        key(epoch, v, startOfAnswer(bounds, req.getPartitionKeyStart()), req, max));
  }

  /**
   * The start key an answer is kept under: the empty key as it is (the whole table, the most
   * common request, needs no bounds), else the start of the first tablet the answer lists,
   * which every key of that tablet shares; past the last tablet, the key itself.
   */
  private static ByteString startOfAnswer(TabletBounds bounds, ByteString start) {
    if (start.isEmpty()) {
      return start;
    }
    ByteString first = bounds.firstFrom(start);
    return first != null ? first : start;
  }

  private static Key key(long epoch, LocationsVersions.Version v, ByteString start,
      GetTableLocationsRequestPB req, int max) {
    return new Key(epoch, v.tableId(), v.version(), start, req.getPartitionKeyEnd(), max,
        req.getReplicaTypeFilterValue(), req.getInternTsInfosInResponse());
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

  private static int weigh(Slot k, Object v) {
    long bytes = ENTRY_OVERHEAD_BYTES + 2L * k.tableId().length();
    if (k instanceof Key a) {
      bytes += a.start().size() + a.end().size() + ((ByteString) v).size();
    } else {
      bytes += ((TabletBounds) v).weight();
    }
    return (int) Math.min(Integer.MAX_VALUE, bytes);
  }
}
