package io.nyala.client.locations;

import io.nyala.client.rpc.Deadline;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.TabletLocationsPB;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The client's cache of one table's tablet locations: tablets by the start of their partition
 * key range, so the tablet of a key is the floor entry if its range covers the key.
 *
 * <p>A miss asks the master for the tablets from the missing key onwards (a few at once, so a
 * scan or a batch over many tablets costs few lookups). Entries expire after the master's
 * {@code ttl_millis}, and callers {@link #invalidate} an entry when a tablet server shows it is
 * stale; both lead to a fresh lookup. New entries replace any overlapping old ones.
 *
 * <p>Thread-safe: the map is guarded by this object's monitor; lookups to the master run outside
 * it, so concurrent misses may ask the master twice, which is harmless.
 */
public final class TableLocations {
  /** Entry lifetime when the master sends no ttl. */
  static final long DEFAULT_TTL_MILLIS = TimeUnit.MINUTES.toMillis(5);

  /** Asks the master for the tablets from a partition key onwards. */
  @FunctionalInterface
  public interface Fetcher {
    /**
     * Looks tablets up.
     *
     * @param partitionKeyStart the first partition key wanted
     * @param deadline when to give up
     * @return the master's answer (without an error: failures complete exceptionally)
     */
    CompletableFuture<GetTableLocationsResponsePB> fetch(byte[] partitionKeyStart,
        Deadline deadline);
  }

  private final String tableName;
  private final Fetcher fetcher;
  private final LongSupplier nanoClock;
  /** Guarded by {@code this}. */
  private final TreeMap<byte[], RemoteTablet> tablets = new TreeMap<>(Arrays::compareUnsigned);

  /**
   * An empty cache.
   *
   * @param tableName the table's name, for errors
   * @param fetcher looks locations up at the master
   * @param nanoClock the clock entries expire by ({@link System#nanoTime} outside tests)
   */
  public TableLocations(String tableName, Fetcher fetcher, LongSupplier nanoClock) {
    this.tableName = tableName;
    this.fetcher = fetcher;
    this.nanoClock = nanoClock;
  }

  /** @return the table's name */
  public String tableName() {
    return tableName;
  }

  /**
   * The cached tablet covering a partition key, without asking the master.
   *
   * @param partitionKey the key
   * @return the tablet, or null if not cached or expired
   */
  public synchronized RemoteTablet cached(byte[] partitionKey) {
    Map.Entry<byte[], RemoteTablet> e = tablets.floorEntry(partitionKey);
    if (e == null || !e.getValue().covers(partitionKey)) {
      return null;
    }
    if (e.getValue().expired(nanoClock.getAsLong())) {
      tablets.remove(e.getKey());
      return null;
    }
    return e.getValue();
  }

  /**
   * The tablet covering a partition key, from the cache or else from the master.
   *
   * @param partitionKey the key
   * @param deadline when to give up
   * @return the tablet; fails with the master's error, or SERVICE_UNAVAILABLE (retriable) when
   *     the master's answer does not cover the key
   */
  public CompletableFuture<RemoteTablet> lookup(byte[] partitionKey, Deadline deadline) {
    return lookupCovering(partitionKey, deadline).thenApply(t -> {
      if (t == null) {
        throw NyalaException.unavailable(
            "no tablet of table '%s' covers partition key 0x%s", tableName,
            HexFormat.of().formatHex(partitionKey));
      }
      return t;
    });
  }

  /**
   * The tablet covering a partition key, from the cache or else from the master, or null when
   * the master's answer shows that no tablet covers it: a key in a gap between range partitions
   * (docs/architecture.md, "Partitioning"). A gap is never inferred from the cache.
   *
   * @param partitionKey the key
   * @param deadline when to give up
   * @return the tablet, or null; fails with the master's error
   */
  public CompletableFuture<RemoteTablet> lookupCovering(byte[] partitionKey, Deadline deadline) {
    RemoteTablet t = cached(partitionKey);
    if (t != null) {
      return CompletableFuture.completedFuture(t);
    }
    return fetcher.fetch(partitionKey, deadline).thenApply(resp -> {
      for (RemoteTablet r : insert(resp)) {
        if (r.covers(partitionKey)) {
          return r;
        }
      }
      return null;
    });
  }

  /**
   * The tablet covering a partition key or, if none does, the first tablet after it: what a scan
   * walking the table in partition key order needs next. The first tablet need not start at the
   * empty key (hash partitions start at bucket 0's key), so a walk from the empty key relies on
   * this. A gap is only trusted from the master's answer, never inferred from the cache.
   *
   * @param partitionKey the key
   * @param deadline when to give up
   * @return the tablet, or null if no tablet covers or follows the key
   */
  public CompletableFuture<RemoteTablet> lookupAtOrAfter(byte[] partitionKey, Deadline deadline) {
    RemoteTablet t = cached(partitionKey);
    if (t != null) {
      return CompletableFuture.completedFuture(t);
    }
    return fetcher.fetch(partitionKey, deadline).thenApply(resp -> {
      RemoteTablet first = null;
      for (RemoteTablet r : insert(resp)) {
        if (r.covers(partitionKey)) {
          return r;
        }
        if (Arrays.compareUnsigned(r.partitionKeyStart(), partitionKey) > 0
            && (first == null || Arrays.compareUnsigned(r.partitionKeyStart(),
                first.partitionKeyStart()) < 0)) {
          first = r;
        }
      }
      return first;
    });
  }

  /**
   * Drops a tablet's entry, if it is still the cached one, so the next lookup asks the master.
   *
   * @param tablet the stale tablet
   */
  public synchronized void invalidate(RemoteTablet tablet) {
    tablets.remove(tablet.partitionKeyStart(), tablet);
  }

  /** Drops every entry. */
  public synchronized void clear() {
    tablets.clear();
  }

  /** @return the number of cached tablets (expired ones included until looked at) */
  public synchronized int size() {
    return tablets.size();
  }

  private synchronized List<RemoteTablet> insert(GetTableLocationsResponsePB resp) {
    long ttl = resp.getTtlMillis() > 0 ? resp.getTtlMillis() : DEFAULT_TTL_MILLIS;
    long expiresAt = nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(ttl);
    List<RemoteTablet> added = new ArrayList<>();
    for (TabletLocationsPB pb : resp.getTabletLocationsList()) {
      RemoteTablet t = RemoteTablet.fromPb(pb, resp, expiresAt);
      removeOverlapping(t);
      tablets.put(t.partitionKeyStart(), t);
      added.add(t);
    }
    return added;
  }

  private void removeOverlapping(RemoteTablet t) {
    byte[] start = t.partitionKeyStart();
    byte[] end = t.partitionKeyEnd();
    Map.Entry<byte[], RemoteTablet> before = tablets.lowerEntry(start);
    if (before != null) {
      byte[] beforeEnd = before.getValue().partitionKeyEnd();
      if (beforeEnd.length == 0 || Arrays.compareUnsigned(beforeEnd, start) > 0) {
        tablets.remove(before.getKey());
      }
    }
    Map<byte[], RemoteTablet> inside = end.length == 0
        ? tablets.tailMap(start, true) : tablets.subMap(start, true, end, false);
    inside.clear();
  }
}
