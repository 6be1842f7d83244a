package io.nyala.tserver.scan;

import io.nyala.common.NyalaException;
import io.nyala.tserver.tablet.TabletScanSpec;
import io.nyala.tserver.tablet.TabletStore;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open scanners of a server, by id. A scanner unused for the TTL is expired by
 * {@link #sweep} (the server calls it periodically) and its snapshot released. Idle time is
 * measured on a monotonic clock, so a wall-clock step neither expires nor keeps a scanner
 * (docs/data-safety.md, "Time").
 */
public final class ScannerManager implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ScannerManager.class);

  private final long ttlNanos;
  private final LongSupplier nanoClock;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Scanner> scanners = new ConcurrentHashMap<>();

  public ScannerManager(long ttlMs) {
    this(ttlMs, System::nanoTime);
  }

  /** @param nanoClock the monotonic clock idle time is measured by (System.nanoTime in servers) */
  public ScannerManager(long ttlMs, LongSupplier nanoClock) {
    this.ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMs);
    this.nanoClock = nanoClock;
  }

  /** Opens a scanner on a snapshot the caller already pinned in {@code store}. */
  public Scanner register(String tabletId, TabletStore store, TabletScanSpec spec, long limit) {
    byte[] id = new byte[16];
    random.nextBytes(id);
    Scanner s = new Scanner(id, tabletId, store, spec, limit, nanoClock.getAsLong());
    scanners.put(s.idHex(), s);
    return s;
  }

  /** The scanner with this id, its TTL refreshed; NOT_FOUND if unknown or expired. */
  public Scanner get(byte[] id) {
    String hex = HexFormat.of().formatHex(id);
    Scanner s = scanners.get(hex);
    if (s == null) {
      throw NyalaException.notFound("scanner %s not found or expired", hex);
    }
    s.touch(nanoClock.getAsLong());
    return s;
  }

  public void close(Scanner s) {
    if (scanners.remove(s.idHex(), s)) {
      s.release();
    }
  }

  /** Closes the scanners of a tablet (it is being deleted). */
  public void closeForTablet(String tabletId) {
    for (Scanner s : scanners.values()) {
      if (s.tabletId().equals(tabletId)) {
        close(s);
      }
    }
  }

  /** Whether a scanner of the tablet is open (it holds the tablet's store). */
  public boolean hasScanners(String tabletId) {
    for (Scanner s : scanners.values()) {
      if (s.tabletId().equals(tabletId)) {
        return true;
      }
    }
    return false;
  }

  /** Expires idle scanners; returns how many. */
  public int sweep() {
    long now = nanoClock.getAsLong();
    int n = 0;
    for (Scanner s : scanners.values()) {
      if (now - s.lastAccessNanos() > ttlNanos) {
        close(s);
        n++;
        LOG.info("expired idle scanner {} of tablet {}", s.idHex(), s.tabletId());
      }
    }
    return n;
  }

  public int activeCount() {
    return scanners.size();
  }

  @Override
  public void close() {
    scanners.values().forEach(this::close);
  }
}
