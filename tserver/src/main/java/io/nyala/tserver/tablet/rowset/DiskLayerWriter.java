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
import io.nyala.tserver.tablet.rowset.RowVersions.Version;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes one immutable layer as blocks of a caller's creation transaction (the caller commits,
 * so a flush or compaction makes all its layers durable at once). Block order, which the
 * superblock keeps: meta, key index, bloom filter, then one column block each for the version's
 * Raft index, its deletion flag and every schema column. Every retained version is a row of the
 * column blocks, so snapshots older than the newest version still read from disk.
 */
public final class DiskLayerWriter {
  static final int MAGIC = 0x4E595253; // "NYRS"
  static final int FORMAT = 1;

  private final Schema schema;
  private final List<byte[]> keys = new ArrayList<>();
  private final List<Integer> counts = new ArrayList<>();
  private final ColumnWriter indexes = new ColumnWriter(Type.INT64, false);
  private final ColumnWriter tombstones = new ColumnWriter(Type.BOOL, false);
  private final ColumnWriter[] columns;
  private int versions;

  public DiskLayerWriter(Schema schema) {
    this.schema = schema;
    columns = new ColumnWriter[schema.columnCount()];
    for (int i = 0; i < columns.length; i++) {
      // Deletions have no values, so on disk every column may hold nulls.
      columns[i] = new ColumnWriter(schema.column(i).type(), true);
    }
  }

  /** Adds a key (greater than the previous one) with its versions, newest first. */
  public void add(byte[] key, Version[] vs) {
    keys.add(key);
    counts.add(vs.length);
    for (Version v : vs) {
      indexes.add(v.index());
      tombstones.add(v.isTombstone());
      for (int c = 0; c < columns.length; c++) {
        columns[c].add(v.isTombstone() ? null : v.row()[c]);
      }
      versions++;
    }
  }

  public boolean isEmpty() {
    return keys.isEmpty();
  }

  /** Writes the layer's blocks into {@code txn}; returns their ids in superblock order. */
  public List<BlockId> writeTo(CreationTransaction txn) {
    List<ColumnWriter.Output> cols = new ArrayList<>();
    cols.add(indexes.finish());
    cols.add(tombstones.finish());
    for (ColumnWriter w : columns) {
      cols.add(w.finish());
    }
    ByteWriter meta = new ByteWriter(256);
    meta.writeInt(MAGIC);
    meta.writeInt(FORMAT);
    meta.writeLengthPrefixed(schema.toPb().toByteArray());
    meta.writeInt(keys.size());
    meta.writeInt(versions);
    meta.writeInt(cols.size());
    for (ColumnWriter.Output o : cols) {
      o.directory().writeTo(meta);
    }
    List<BlockId> ids = new ArrayList<>();
    ids.add(block(txn, Checksums.frame(meta.array(), meta.size())));
    ids.add(block(txn, KeyIndex.encode(keys, counts)));
    ids.add(block(txn, BloomFilter.of(keys).encode()));
    for (ColumnWriter.Output o : cols) {
      ids.add(block(txn, o.block()));
    }
    return ids;
  }

  private static BlockId block(CreationTransaction txn, byte[] bytes) {
    WritableBlock b = txn.create();
    b.append(bytes);
    b.finalizeBlock();
    return b.id();
  }
}
