package io.nyala.tserver.tablet.rowset;

import io.nyala.common.NyalaException;
import io.nyala.common.proto.SchemaPB;
import io.nyala.common.row.ByteReader;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.BlockManager.ReadableBlock;
import io.nyala.tserver.tablet.cfile.BloomFilter;
import io.nyala.tserver.tablet.cfile.Checksums;
import io.nyala.tserver.tablet.cfile.ColumnReader;
import io.nyala.tserver.tablet.cfile.KeyIndex;
import io.nyala.tserver.tablet.cfile.PageDirectory;
import io.nyala.tserver.tablet.rowset.RowVersions.Version;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * An immutable layer read from the blocks {@link DiskLayerWriter} wrote. The meta block, key
 * index and bloom filter are loaded at open; column pages are read and verified on demand.
 *
 * <p>Reference counted: the store holds one reference while the layer is part of the tablet, and
 * each reader (scan page, compaction) one while it reads. When the last goes, the release hook
 * deletes the blocks, so a compaction never pulls blocks from under a live reader.
 */
public final class DiskLayer implements Layer {
  private static final int PAGE_CACHE_ENTRIES = 64;
  private final List<BlockId> blocks;
  private final Schema schema;
  private final KeyIndex keys;
  private final BloomFilter bloom;
  /** Index column, deletion flag column, then the schema's columns. */
  private final ColumnReader[] columns;
  private final long sizeBytes;
  private final AtomicInteger refs = new AtomicInteger(1);
  /** Recently decoded pages by (column, page); pages are immutable, so readers share them. */
  private final Map<Long, Object[]> pageCache = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, Object[]> e) {
      return size() > PAGE_CACHE_ENTRIES;
    }
  };
  private volatile Consumer<DiskLayer> onLastRelease = l -> {};

  private DiskLayer(List<BlockId> blocks, Schema schema, KeyIndex keys, BloomFilter bloom,
      ColumnReader[] columns, long sizeBytes) {
    this.blocks = List.copyOf(blocks);
    this.schema = schema;
    this.keys = keys;
    this.bloom = bloom;
    this.columns = columns;
    this.sizeBytes = sizeBytes;
  }

  /** Opens the layer made of {@code blocks} (in {@link DiskLayerWriter} order). */
  public static DiskLayer open(BlockManager bm, List<BlockId> blocks) {
    if (blocks.size() < 5) {
      throw NyalaException.corruption("rowset layer %s has %d blocks, need at least 5",
          blocks, blocks.size());
    }
    ReadableBlock metaBlock = bm.openBlock(blocks.get(0));
    byte[] framed = metaBlock.readAll();
    String id = blocks.get(0).toString();
    int len = Checksums.check(framed, id, 0, "rowset meta");
    ByteReader r = new ByteReader(framed, 4, len, "rowset meta block " + id);
    if (r.readInt() != DiskLayerWriter.MAGIC || r.readInt() != DiskLayerWriter.FORMAT) {
      throw NyalaException.corruption("block %s: not a rowset meta block (bad magic or format)",
          id);
    }
    Schema schema;
    try {
      schema = Schema.fromPb(SchemaPB.parseFrom(r.readLengthPrefixed()));
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw NyalaException.corruption("block %s: bad schema: %s", id, e.getMessage());
    }
    r.readInt(); // key count, also in the key index
    r.readInt(); // version count
    int ncols = r.readInt();
    if (ncols != schema.columnCount() + 2 || blocks.size() != ncols + 3) {
      throw NyalaException.corruption("block %s: %d column blocks for %d columns and %d blocks",
          id, ncols, schema.columnCount(), blocks.size());
    }
    ColumnReader[] cols = new ColumnReader[ncols];
    long size = framed.length;
    for (int c = 0; c < ncols; c++) {
      PageDirectory dir = PageDirectory.readFrom(r);
      ReadableBlock b = bm.openBlock(blocks.get(3 + c));
      size += b.size();
      cols[c] = new ColumnReader(b, dir, typeOf(schema, c), c >= 2, columnName(schema, c));
    }
    ReadableBlock kb = bm.openBlock(blocks.get(1));
    ReadableBlock bb = bm.openBlock(blocks.get(2));
    size += kb.size() + bb.size();
    return new DiskLayer(blocks, schema,
        KeyIndex.decode(kb.readAll(), blocks.get(1).toString()),
        BloomFilter.decode(bb.readAll(), blocks.get(2).toString()), cols, size);
  }

  private static Type typeOf(Schema s, int c) {
    return c == 0 ? Type.INT64 : c == 1 ? Type.BOOL : s.column(c - 2).type();
  }

  private static String columnName(Schema s, int c) {
    return c == 0 ? "(version index)" : c == 1 ? "(deleted)" : s.column(c - 2).name();
  }

  public List<BlockId> blocks() {
    return blocks;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public long sizeBytes() {
    return sizeBytes;
  }

  public int keyCount() {
    return keys.size();
  }

  @Override
  public Version[] get(byte[] key) {
    if (!bloom.mightContain(key)) {
      return null;
    }
    int i = keys.find(key);
    return i < 0 ? null : new Pages().versions(i);
  }

  @Override
  public LayerCursor seek(byte[] from, boolean inclusive) {
    int start = from == null ? 0 : keys.seek(from, inclusive);
    Pages pages = new Pages();
    return new LayerCursor() {
      private int pos = start - 1;

      @Override
      public boolean next() {
        return ++pos < keys.size();
      }

      @Override
      public byte[] key() {
        return keys.key(pos);
      }

      @Override
      public Version[] versions() {
        return pages.versions(pos);
      }
    };
  }

  /** Takes a reader's reference; false if the layer is already gone. */
  public boolean retain() {
    while (true) {
      int n = refs.get();
      if (n == 0) {
        return false;
      }
      if (refs.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  /** Drops a reference; the last one runs the release hook (deleting the blocks). */
  public void release() {
    if (refs.decrementAndGet() == 0) {
      onLastRelease.accept(this);
    }
  }

  public void onLastRelease(Consumer<DiskLayer> hook) {
    this.onLastRelease = hook;
  }

  private Object[] cachedPage(int col, int p) {
    long k = ((long) col << 32) | p;
    synchronized (pageCache) {
      Object[] hit = pageCache.get(k);
      if (hit != null) {
        return hit;
      }
    }
    Object[] page = columns[col].readPage(p);
    synchronized (pageCache) {
      pageCache.put(k, page);
    }
    return page;
  }

  /** The decoded page each column is at, so a sequential walk reads each page once. */
  private final class Pages {
    private final Object[][] page = new Object[columns.length][];
    /** The first ordinal of each column's current page, and of the page after it. */
    private final int[] pageFirst = new int[columns.length];
    private final int[] pageEnd = new int[columns.length];

    Object value(int col, int ordinal) {
      // A scan walks ordinals in order: look the page up only when the ordinal leaves it.
      if (ordinal < pageFirst[col] || ordinal >= pageEnd[col]) {
        PageDirectory dir = columns[col].directory();
        int p = dir.pageOf(ordinal);
        int[] firsts = dir.firstOrdinals();
        page[col] = cachedPage(col, p);
        pageFirst[col] = firsts[p];
        pageEnd[col] = p + 1 < firsts.length ? firsts[p + 1] : Integer.MAX_VALUE;
      }
      return page[col][ordinal - pageFirst[col]];
    }

    Version[] versions(int keyPos) {
      int first = keys.firstVersion(keyPos);
      Version[] out = new Version[keys.versionCount(keyPos)];
      for (int i = 0; i < out.length; i++) {
        int ord = first + i;
        long index = (Long) value(0, ord);
        Object[] row = null;
        if (!(Boolean) value(1, ord)) {
          row = new Object[columns.length - 2];
          for (int c = 0; c < row.length; c++) {
            row[c] = value(c + 2, ord);
          }
        }
        out[i] = new Version(index, row);
      }
      return out;
    }
  }
}
