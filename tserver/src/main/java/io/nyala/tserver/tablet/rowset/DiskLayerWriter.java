package io.nyala.tserver.tablet.rowset;

import io.nyala.common.row.ByteWriter;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager.CreationTransaction;
import io.nyala.tserver.fs.BlockManager.WritableBlock;
import io.nyala.tserver.tablet.cfile.BloomFilter;
import io.nyala.tserver.tablet.cfile.Checksums;
import io.nyala.tserver.tablet.cfile.ColumnWriter;
import io.nyala.tserver.tablet.cfile.KeyIndex;
import io.nyala.tserver.tablet.cfile.PageDirectory;
import io.nyala.tserver.tablet.rowset.RowVersions.Version;
import java.util.ArrayList;
import java.util.List;

/**
 * Streams one immutable layer into blocks of a caller's creation transaction (the caller commits,
 * so a flush makes all its layers durable at once). Block order, which the superblock keeps:
 * meta, key index, bloom filter, then one column block each for the version's Raft index, its
 * deletion flag and every schema column. Every retained version is a row of the column blocks, so
 * snapshots older than the newest version still read from disk.
 *
 * <p>Memory is bounded by one page per column plus the key index: the column blocks are opened
 * at the first {@link #add} and each page goes to its block as soon as it is full; the key index
 * and bloom filter grow key by key; meta, index and filter blocks are written by {@link #finish}.
 * A writer that got no key creates no block at all. Not thread-safe.
 */
public final class DiskLayerWriter {
  static final int MAGIC = 0x4E595253; // "NYRS"
  static final int FORMAT = 1;

  private final Schema schema;
  private final CreationTransaction txn;
  private final KeyIndex.Builder keys = new KeyIndex.Builder();
  private final BloomFilter bloom;
  /** Index column, deletion flag column, then the schema's columns; null until the first add. */
  private ColumnWriter[] columns;
  private final List<BlockId> columnIds = new ArrayList<>();
  private int versions;
  private int peakBufferedRows;

  /**
   * A writer into {@code txn}; {@code maxKeys} bounds the keys it will get (sizes the bloom
   * filter: more keys only raise its false-positive rate).
   */
  public DiskLayerWriter(Schema schema, CreationTransaction txn, long maxKeys) {
    this.schema = schema;
    this.txn = txn;
    this.bloom = BloomFilter.sized(maxKeys);
  }

  /**
   * Streams the merge of {@code oldestFirst} (the layers of one rowset, or of rowsets with
   * disjoint keys, each rowset's oldest first) into a writer on {@code txn}, keeping what readers
   * at or after {@code horizon} need; {@code dropTombstones} when no older layer can hold the
   * keys. The caller {@link #finish()}es it.
   */
  public static DiskLayerWriter merge(List<? extends Layer> oldestFirst, Projection proj,
      long horizon, boolean dropTombstones, CreationTransaction txn) {
    List<Layer> newestFirst = new ArrayList<>(oldestFirst);
    java.util.Collections.reverse(newestFirst);
    long maxKeys = 0;
    for (Layer l : newestFirst) {
      maxKeys += l instanceof DiskLayer d ? d.keyCount() : ((MemLayer) l).keyCount();
    }
    MergeCursor m = MergeCursor.ofLayers(newestFirst);
    DiskLayerWriter w = new DiskLayerWriter(proj.target(), txn, maxKeys);
    while (m.next()) {
      Version[] vs = m.allVersions(proj);
      int keep = RowVersions.prunedLength(vs, horizon, dropTombstones);
      if (keep > 0) {
        w.add(m.key(), keep == vs.length ? vs : java.util.Arrays.copyOf(vs, keep));
      }
    }
    return w;
  }

  private void open() {
    columns = new ColumnWriter[schema.columnCount() + 2];
    columns[0] = new ColumnWriter(Type.INT64, false, create());
    columns[1] = new ColumnWriter(Type.BOOL, false, create());
    for (int i = 0; i < schema.columnCount(); i++) {
      // Deletions have no values, so on disk every column may hold nulls.
      columns[i + 2] = new ColumnWriter(schema.column(i).type(), true, create());
    }
  }

  private WritableBlock create() {
    WritableBlock b = txn.create();
    columnIds.add(b.id());
    return b;
  }

  /** Adds a key (greater than the previous one) with its versions, newest first. */
  public void add(byte[] key, Version[] vs) {
    if (columns == null) {
      open();
    }
    keys.add(key, vs.length);
    bloom.add(key);
    for (Version v : vs) {
      columns[0].add(v.index());
      columns[1].add(v.isTombstone());
      for (int c = 2; c < columns.length; c++) {
        columns[c].add(v.isTombstone() ? null : v.row()[c - 2]);
      }
      versions++;
      // Every column holds the same number of values, so column 0 speaks for all.
      peakBufferedRows = Math.max(peakBufferedRows, columns[0].buffered());
    }
  }

  public boolean isEmpty() {
    return keys.size() == 0;
  }

  /** Versions written so far. */
  public int versionCount() {
    return versions;
  }

  /** The most versions ever held in memory at once (waiting for their page to fill). */
  public int peakBufferedRows() {
    return peakBufferedRows;
  }

  /**
   * Writes the last pages, the meta block, key index and bloom filter; returns the layer's block
   * ids in superblock order, or an empty list if no key was added (then no block was created).
   */
  public List<BlockId> finish() {
    if (columns == null) {
      return List.of();
    }
    List<PageDirectory> dirs = new ArrayList<>();
    for (ColumnWriter w : columns) {
      dirs.add(w.finish());
    }
    ByteWriter meta = new ByteWriter(256);
    meta.writeInt(MAGIC);
    meta.writeInt(FORMAT);
    meta.writeLengthPrefixed(schema.toPb().toByteArray());
    meta.writeInt(keys.size());
    meta.writeInt(versions);
    meta.writeInt(dirs.size());
    for (PageDirectory d : dirs) {
      d.writeTo(meta);
    }
    List<BlockId> ids = new ArrayList<>();
    WritableBlock m = txn.create();
    m.append(Checksums.frame(meta.array(), meta.size()));
    ids.add(finalized(m));
    WritableBlock k = txn.create();
    keys.writeTo(k);
    ids.add(finalized(k));
    WritableBlock b = txn.create();
    b.append(bloom.encode());
    ids.add(finalized(b));
    ids.addAll(columnIds);
    return ids;
  }

  private static BlockId finalized(WritableBlock b) {
    b.finalizeBlock();
    return b.id();
  }
}
