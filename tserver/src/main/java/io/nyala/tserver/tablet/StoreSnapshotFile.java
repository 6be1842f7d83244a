package io.nyala.tserver.tablet;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.proto.RowBlockPB;
import io.nyala.common.proto.SchemaPB;
import io.nyala.common.row.RowBlock;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.tablet.RowVersions.Version;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;

/**
 * The snapshot file of the in-memory store. Layout: magic, format version, last applied index,
 * history horizon, the schema, then per key its encoded bytes and versions (index, deleted flag),
 * then all non-deleted rows as one {@link RowBlock} in the same order, and a trailing CRC32C of
 * everything before it so a torn or corrupt file is a clear CORRUPTION, not wrong rows.
 */
final class StoreSnapshotFile {
  private static final long MAGIC = 0x4E59414C41534E31L; // "NYALASN1"
  private static final int FORMAT = 1;

  private StoreSnapshotFile() {}

  record Contents(Schema schema, long lastApplied, long historyHorizon,
      Map<byte[], RowVersions> rows) {}

  /**
   * Writes the snapshot through {@code env} as a sensitive file (it holds every row), built in
   * memory first: the store is in memory too, so this at most doubles it briefly.
   */
  static void write(Env env, Path file, Schema schema, long lastApplied, long horizon,
      Map<byte[], RowVersions> rows) throws IOException {
    CRC32C crc = new CRC32C();
    ByteArrayOutputStream raw = new ByteArrayOutputStream(1 << 16);
    DataOutputStream out = new DataOutputStream(new CheckedOutputStream(raw, crc));
    out.writeLong(MAGIC);
    out.writeInt(FORMAT);
    out.writeLong(lastApplied);
    out.writeLong(horizon);
    byte[] schemaBytes = schema.toPb().toByteArray();
    out.writeInt(schemaBytes.length);
    out.write(schemaBytes);
    RowBlock block = new RowBlock(schema);
    // Snapshot the map view once: the caller holds the writer lock, so it cannot change.
    List<Map.Entry<byte[], RowVersions>> entries = new ArrayList<>(rows.entrySet());
    out.writeInt(entries.size());
    for (Map.Entry<byte[], RowVersions> e : entries) {
      out.writeInt(e.getKey().length);
      out.write(e.getKey());
      Version[] vs = e.getValue().all();
      out.writeInt(vs.length);
      for (Version v : vs) {
        out.writeLong(v.index());
        out.writeBoolean(v.isTombstone());
        if (!v.isTombstone()) {
          block.add(v.row());
        }
      }
    }
    byte[] blockBytes = block.toPb().toByteArray();
    out.writeInt(blockBytes.length);
    out.write(blockBytes);
    out.flush();
    new DataOutputStream(raw).writeInt((int) crc.getValue());
    env.replaceFile(file, raw.toByteArray(), OpenOptions.SENSITIVE);
  }

  static Contents read(Env env, Path file) throws IOException {
    byte[] all = env.readFile(file, OpenOptions.SENSITIVE);
    if (all.length < 4) {
      throw NyalaException.corruption("snapshot %s is truncated (%d bytes)", file, all.length);
    }
    CRC32C crc = new CRC32C();
    crc.update(all, 0, all.length - 4);
    int stored = ((all[all.length - 4] & 0xff) << 24) | ((all[all.length - 3] & 0xff) << 16)
        | ((all[all.length - 2] & 0xff) << 8) | (all[all.length - 1] & 0xff);
    if ((int) crc.getValue() != stored) {
      throw NyalaException.corruption("snapshot %s: CRC mismatch", file);
    }
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(all, 0, all.length - 4));
    if (in.readLong() != MAGIC || in.readInt() != FORMAT) {
      throw NyalaException.corruption("snapshot %s: bad magic or format version", file);
    }
    long lastApplied = in.readLong();
    long horizon = in.readLong();
    Schema schema = Schema.fromPb(SchemaPB.parseFrom(in.readNBytes(in.readInt())));
    int keys = in.readInt();
    List<byte[]> keyList = new ArrayList<>(keys);
    List<long[]> indexes = new ArrayList<>(keys);
    List<boolean[]> tombs = new ArrayList<>(keys);
    for (int k = 0; k < keys; k++) {
      keyList.add(in.readNBytes(in.readInt()));
      int n = in.readInt();
      long[] idx = new long[n];
      boolean[] dead = new boolean[n];
      for (int i = 0; i < n; i++) {
        idx[i] = in.readLong();
        dead[i] = in.readBoolean();
      }
      indexes.add(idx);
      tombs.add(dead);
    }
    List<Object[]> rowList = RowBlock.decode(schema,
        RowBlockPB.parseFrom(in.readNBytes(in.readInt())));
    Map<byte[], RowVersions> out = new TreeMap<>(Arrays::compareUnsigned);
    int next = 0;
    for (int k = 0; k < keys; k++) {
      long[] idx = indexes.get(k);
      Version[] vs = new Version[idx.length];
      for (int i = 0; i < idx.length; i++) {
        vs[i] = new Version(idx[i], tombs.get(k)[i] ? null : rowList.get(next++));
      }
      out.put(keyList.get(k), new RowVersions(vs));
    }
    return new Contents(schema, lastApplied, horizon, out);
  }
}
