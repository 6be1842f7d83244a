package io.nyala.tserver.fs.log;

import io.nyala.common.env.Env;
import io.nyala.common.env.OpenMode;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.env.WritableFile;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Rewrites the metadata of a mostly-dead full container to just its live CREATE records, so
 * that startup stops replaying records of blocks long gone. Crash-safe: temp file, fsync,
 * rename over the old file, fsync the directory; a crash leaves the old or the new file (and
 * maybe a temp file, deleted at the next startup).
 */
final class MetadataCompactor {
  static final String TMP_SUFFIX = ".metadata.tmp";

  private MetadataCompactor() {}

  static void rewrite(Env env, Container c, Map<Long, ContainerLoader.Extent> blocks) {
    // Offset order keeps nextOffset and reads of the new file as sequential as the old.
    Map<Long, Long> byOffset = new TreeMap<>();
    blocks.forEach((id, ext) -> byOffset.put(ext.offset(), id));
    byte[] buf = new byte[RecordFormat.HEADER_SIZE
        + blocks.size() * (RecordFormat.FRAME + RecordFormat.CREATE_SIZE)];
    byte[] header = RecordFormat.header();
    System.arraycopy(header, 0, buf, 0, header.length);
    int pos = header.length;
    for (long id : byOffset.values()) {
      ContainerLoader.Extent ext = blocks.get(id);
      pos = RecordFormat.putCreate(buf, pos, id, ext.offset(), ext.length(), ext.timestamp());
    }
    replace(env, c.metaPath(), buf, pos);
    c.created = blocks.size();
  }

  /**
   * Replaces metadata file {@code meta} with {@code len} bytes of {@code buf}, crash-safely. The
   * new file gets a new file key, so none of the old file's keystream is used again.
   */
  static void replace(Env env, Path meta, byte[] buf, int len) {
    String name = meta.getFileName().toString();
    Path tmp = meta.resolveSibling(name.substring(0, name.length() - ".metadata".length())
        + TMP_SUFFIX);
    try (WritableFile w = env.newWritableFile(tmp, OpenOptions.SENSITIVE.withMode(
        OpenMode.CREATE_OR_TRUNCATE))) {
      w.append(buf, 0, len);
      w.sync();
    }
    env.renameFile(tmp, meta);
    env.syncDir(meta.getParent());
  }
}
