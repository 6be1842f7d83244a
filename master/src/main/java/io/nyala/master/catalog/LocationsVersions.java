package io.nyala.master.catalog;

import io.nyala.common.proto.master.TableIdentifierPB;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Each table's locations version: a number that changes whenever the answer to
 * GetTableLocations for that table may change (its tablets' replicas or leaders, the table's
 * drop, rename or alter). A locations cache puts the version in its key, so an entry computed
 * before a change is never found again.
 *
 * <p>Why it cannot race: every change first mutates its state, then bumps (catalog changes do
 * both under the catalog lock). A lookup reads the version before it reads any state. Versions
 * come from one counter, so each value is current at most once, and an entry cached under a
 * value was computed from state read after that value was published, i.e. after every change
 * that had finished when the value was read. Reads are lock-free.
 */
public final class LocationsVersions {
  /** A table id with its version at one moment. */
  public record Version(String tableId, long version) {}

  private final AtomicLong counter = new AtomicLong();
  private final Map<String, Long> byTableId = new ConcurrentHashMap<>();
  private final Map<String, String> idByName = new ConcurrentHashMap<>();

  /** The table's current version, or null if no such table (the id wins over the name). */
  public Version current(TableIdentifierPB ident) {
    String id = ident.getTableId().isEmpty() ? idByName.get(ident.getTableName())
        : ident.getTableId();
    if (id == null) {
      return null;
    }
    Long v = byTableId.get(id);
    return v == null ? null : new Version(id, v);
  }

  /** Whether {@code v} is still its table's current version. */
  public boolean isCurrent(Version v) {
    Long now = byTableId.get(v.tableId());
    return now != null && now == v.version();
  }

  /** A table was created, renamed or altered. */
  void tablePut(String tableId, String name, String oldName) {
    if (oldName != null && !oldName.equals(name)) {
      idByName.remove(oldName, tableId);
    }
    idByName.put(name, tableId);
    bump(tableId);
  }

  void tableDeleted(String tableId, String name) {
    idByName.remove(name, tableId);
    byTableId.remove(tableId);
  }

  /** The table's tablets changed (replicas, leader, state) or it was altered. */
  void bump(String tableId) {
    byTableId.put(tableId, counter.incrementAndGet());
  }

  /** The catalog was replaced wholesale (snapshot install): forget everything. */
  void clear() {
    idByName.clear();
    byTableId.clear();
  }
}
