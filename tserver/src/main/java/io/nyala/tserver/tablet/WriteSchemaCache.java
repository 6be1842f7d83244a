package io.nyala.tserver.tablet;

import io.nyala.common.proto.SchemaPB;
import io.nyala.common.schema.Schema;
import java.util.HashMap;
import java.util.Map;

/**
 * The write schemas one tablet has seen, decoded and checked against its schema, so that a write
 * neither decodes its {@link SchemaPB} nor maps its columns again: on the write path that was a
 * tenth of the bytes allocated per single-row write.
 *
 * <p>Requirements:
 * <ul>
 *   <li>Keyed by the request's {@link SchemaPB} by value and by the tablet schema's version: an
 *       ALTER (a new version) drops every entry, since a write schema valid before may name a
 *       dropped column.
 *   <li>A schema that fails the check is never cached: each such write fails afresh, with the
 *       same INVALID_ARGUMENT as without the cache.
 *   <li>Bounded by {@link #MAX_ENTRIES} (a tablet sees few client schemas; past that it starts
 *       over) and lock-free for readers: RPC threads and the apply thread share it.
 * </ul>
 */
public final class WriteSchemaCache {
  static final int MAX_ENTRIES = 16;

  /** Immutable: replaced whole on a miss. */
  private record Entries(int tabletVersion, Map<SchemaPB, Schema> byPb) {}

  private volatile Entries entries = new Entries(-1, Map.of());

  /**
   * {@code pb} decoded, after checking that each of its columns exists in {@code tablet} with
   * the same type and keyness (INVALID_ARGUMENT naming the column otherwise).
   */
  public Schema resolve(SchemaPB pb, Schema tablet) {
    Entries e = entries;
    if (e.tabletVersion() != tablet.version()) {
      // An ALTER: what was checked against the old schema no longer holds.
      e = new Entries(tablet.version(), Map.of());
      entries = e;
    }
    Schema hit = e.byPb().get(pb);
    if (hit != null) {
      return hit;
    }
    Schema decoded = Schema.fromPb(pb);
    RowMutator.columnMap(tablet, decoded);
    Map<SchemaPB, Schema> next = e.byPb().size() < MAX_ENTRIES ? new HashMap<>(e.byPb())
        : new HashMap<>();
    next.put(pb, decoded);
    // A lost race only drops an entry another thread just added; it is decoded again later.
    entries = new Entries(tablet.version(), Map.copyOf(next));
    return decoded;
  }

  /** Entries held now (for tests). */
  int size() {
    return entries.byPb().size();
  }
}
