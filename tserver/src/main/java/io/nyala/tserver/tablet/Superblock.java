package io.nyala.tserver.tablet;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.proto.SchemaPB;
import io.nyala.common.row.ByteReader;
import io.nyala.common.row.ByteWriter;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.tablet.cfile.Checksums;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A tablet's durable state: the schema as of the last flush, the last flushed Raft index and term
 * (restart = this + Raft log replay after that index), the history horizon, the live row count,
 * and the rowsets with the block ids of each of their on-disk layers, oldest first. Written
 * through {@link Env} as a sensitive file (temp + fsync + rename + dir fsync), CRC-framed.
 *
 * @param rowsets per rowset its id and its layers' block ids (in {@code DiskLayerWriter} order)
 */
public record Superblock(Schema schema, long durableIndex, long durableTerm, long historyHorizon,
    long liveRows, List<RowSetEntry> rowsets) {
  private static final int MAGIC = 0x4E595342; // "NYSB"
  private static final int FORMAT = 1;

  /** One rowset: its id and its on-disk layers, oldest first. */
  public record RowSetEntry(long id, List<List<BlockId>> layers) {}

  /** Every block the superblock references. */
  public List<BlockId> allBlocks() {
    List<BlockId> out = new ArrayList<>();
    for (RowSetEntry r : rowsets) {
      r.layers().forEach(out::addAll);
    }
    return out;
  }

  /** The same superblock with block ids replaced (a tablet copy writes blocks under new ids). */
  public Superblock withBlocks(java.util.function.UnaryOperator<BlockId> newId) {
    List<RowSetEntry> out = new ArrayList<>();
    for (RowSetEntry r : rowsets) {
      List<List<BlockId>> layers = new ArrayList<>();
      for (List<BlockId> l : r.layers()) {
        layers.add(l.stream().map(newId).toList());
      }
      out.add(new RowSetEntry(r.id(), layers));
    }
    return new Superblock(schema, durableIndex, durableTerm, historyHorizon, liveRows, out);
  }

  public void write(Env env, Path file) {
    env.replaceFile(file, encode(), OpenOptions.SENSITIVE);
  }

  /** The CRC-framed plaintext bytes {@link #write} stores (also a tablet copy's manifest). */
  public byte[] encode() {
    ByteWriter w = new ByteWriter(512);
    w.writeInt(MAGIC);
    w.writeInt(FORMAT);
    w.writeLengthPrefixed(schema.toPb().toByteArray());
    w.writeLong(durableIndex);
    w.writeLong(durableTerm);
    w.writeLong(historyHorizon);
    w.writeLong(liveRows);
    w.writeInt(rowsets.size());
    for (RowSetEntry r : rowsets) {
      w.writeLong(r.id());
      w.writeInt(r.layers().size());
      for (List<BlockId> layer : r.layers()) {
        w.writeInt(layer.size());
        for (BlockId b : layer) {
          w.writeLong(b.value());
        }
      }
    }
    return Checksums.frame(w.array(), w.size());
  }

  /** Reads a superblock; CORRUPTION names the file when it is damaged. */
  public static Superblock read(Env env, Path file) {
    return decode(env.readFile(file, OpenOptions.SENSITIVE), file.toString());
  }

  /** Parses {@link #encode()}'s bytes; CORRUPTION names {@code source} when they are damaged. */
  public static Superblock decode(byte[] framed, String source) {
    int len = Checksums.check(framed, source, 0, "superblock");
    ByteReader r = new ByteReader(framed, 4, len, "superblock " + source);
    if (r.readInt() != MAGIC || r.readInt() != FORMAT) {
      throw NyalaException.corruption("superblock %s: bad magic or format version", source);
    }
    Schema schema;
    try {
      schema = Schema.fromPb(SchemaPB.parseFrom(r.readLengthPrefixed()));
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw NyalaException.corruption("superblock %s: bad schema: %s", source, e.getMessage());
    }
    long durable = r.readLong();
    long term = r.readLong();
    long horizon = r.readLong();
    long live = r.readLong();
    // Counts are checked against the bytes left before allocating: a copy manifest comes from
    // a peer, and a damaged file must not cost more memory than its size.
    int n = r.readCount("rowset", 8 + 4);
    List<RowSetEntry> rowsets = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      long id = r.readLong();
      int layers = r.readCount("layer", 4);
      List<List<BlockId>> ls = new ArrayList<>(layers);
      for (int j = 0; j < layers; j++) {
        int nb = r.readCount("block id", 8);
        List<BlockId> ids = new ArrayList<>(nb);
        for (int k = 0; k < nb; k++) {
          ids.add(new BlockId(r.readLong()));
        }
        ls.add(ids);
      }
      rowsets.add(new RowSetEntry(id, ls));
    }
    return new Superblock(schema, durable, term, horizon, live, rowsets);
  }
}
