package io.nyala.tserver.scan;

import io.nyala.common.NyalaException;
import io.nyala.tserver.tablet.ScanSpec;
import io.nyala.tserver.tablet.TabletStore;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open scanners of a server, by id. A scanner unused for the TTL is expired by
 * {@link #sweep} (the server calls it periodically) and its snapshot released.
 */
public final class ScannerManager implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ScannerManager.class);

  private final long ttlNanos;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Scanner> scanners = new ConcurrentHashMap<>();

  public ScannerManager(long ttlMs) {
    this.ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMs);
  }

  /** Opens a scanner on a snapshot the caller already pinned in {@code store}. */
  public Scanner register(String tabletId, TabletStore store, ScanSpec spec, long limit) {
    byte[] id = new byte[16];
    random.nextBytes(id);
    Scanner s = new Scanner(id, tabletId, store, spec, limit);
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
    s.touch();
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

  /** Expires idle scanners; returns how many. */
  public int sweep() {
    long now = System.nanoTime();
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
