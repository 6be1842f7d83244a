package io.nyala.tserver.copy;

import io.nyala.common.NyalaException;
import io.nyala.tserver.tablet.image.TabletImage;
import java.io.IOException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The copy sessions this server serves as a source. Each holds an open {@link TabletImage} (so
 * its data and the log after it are pinned) until it is ended, or until it has been idle for the
 * TTL and {@link #sweep()} expires it. Thread-safe; sessions live in a concurrent map.
 */
public final class CopySessions implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CopySessions.class);

  /** Opens the image of a tablet hosted here (NOT_FOUND, ILLEGAL_STATE... as it sees fit). */
  @FunctionalInterface
  public interface ImageOpener {
    TabletImage open(String tabletId) throws IOException;
  }

  /** One session; {@code lastUsedNanos} (monotonic) is touched by every call. */
  static final class Session {
    final String id;
    final String tabletId;
    final String requestor;
    final TabletImage image;
    volatile long lastUsedNanos;

    Session(String id, String tabletId, String requestor, TabletImage image, long now) {
      this.id = id;
      this.tabletId = tabletId;
      this.requestor = requestor;
      this.image = image;
      this.lastUsedNanos = now;
    }
  }

  private final ImageOpener opener;
  private final long ttlMs;
  private final long ttlNanos;
  /** Monotonic: a wall-clock step neither expires nor keeps a session (docs/data-safety.md). */
  private final LongSupplier nanoClock;
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();

  /** @param nanoClock the monotonic clock idle time is measured by (System.nanoTime in servers) */
  public CopySessions(ImageOpener opener, long ttlMs, LongSupplier nanoClock) {
    if (ttlMs <= 0) {
      throw NyalaException.invalidArgument("--tablet_copy_session_ttl_ms must be positive, got %d",
          ttlMs);
    }
    this.opener = opener;
    this.ttlMs = ttlMs;
    this.ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMs);
    this.nanoClock = nanoClock;
  }

  /** Whether a session of the tablet is open (it holds the tablet's image). */
  public boolean hasSessions(String tabletId) {
    return sessions.values().stream().anyMatch(s -> s.tabletId.equals(tabletId));
  }

  Session begin(String tabletId, String requestor) throws IOException {
    TabletImage image = opener.open(tabletId);
    byte[] raw = new byte[16];
    ThreadLocalRandom.current().nextBytes(raw);
    Session s = new Session(HexFormat.of().formatHex(raw), tabletId, requestor, image,
        nanoClock.getAsLong());
    sessions.put(s.id, s);
    LOG.info("tablet {}: copy session {} for {} opened at index {}", tabletId, s.id, requestor,
        image.lastIndex());
    return s;
  }

  /** The live session (its idle clock restarted), or NOT_FOUND naming it. */
  Session get(String sessionId) {
    Session s = sessions.get(sessionId);
    if (s == null) {
      throw NyalaException.notFound("tablet copy session '%s' not found (ended or expired after "
          + "%d ms idle)", sessionId, ttlMs);
    }
    s.lastUsedNanos = nanoClock.getAsLong();
    return s;
  }

  void end(String sessionId) {
    Session s = sessions.remove(sessionId);
    if (s == null) {
      throw NyalaException.notFound("tablet copy session '%s' not found", sessionId);
    }
    s.image.close();
    LOG.info("tablet {}: copy session {} for {} ended", s.tabletId, s.id, s.requestor);
  }

  /** Expires sessions idle longer than the TTL; releases their pins. */
  public void sweep() {
    long now = nanoClock.getAsLong();
    for (Session s : sessions.values()) {
      if (now - s.lastUsedNanos > ttlNanos && sessions.remove(s.id, s)) {
        s.image.close();
        LOG.warn("tablet {}: copy session {} for {} expired after {} ms idle", s.tabletId, s.id,
            s.requestor, ttlMs);
      }
    }
  }

  /** Ends the sessions of a tablet being deleted, so its image's data may go. */
  public void closeForTablet(String tabletId) {
    for (Session s : sessions.values()) {
      if (s.tabletId.equals(tabletId) && sessions.remove(s.id, s)) {
        s.image.close();
        LOG.info("tablet {}: copy session {} for {} closed: tablet deleted", tabletId, s.id,
            s.requestor);
      }
    }
  }

  public int activeCount() {
    return sessions.size();
  }

  @Override
  public void close() {
    for (String id : sessions.keySet()) {
      Session s = sessions.remove(id);
      if (s != null) {
        s.image.close();
      }
    }
  }
}
