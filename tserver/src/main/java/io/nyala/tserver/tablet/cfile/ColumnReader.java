package io.nyala.tserver.tablet.cfile;

import io.nyala.common.NyalaException;
import io.nyala.common.schema.Type;
import io.nyala.tserver.fs.BlockManager.ReadableBlock;

/**
 * Reads and verifies pages of one column block. Stateless apart from the block handle, so one
 * reader serves concurrent scans; callers cache the decoded page they are walking.
 */
public final class ColumnReader {
  private final ReadableBlock block;
  private final PageDirectory dir;
  private final Type type;
  private final boolean nullable;
  private final String column;

  public ColumnReader(ReadableBlock block, PageDirectory dir, Type type, boolean nullable,
      String column) {
    // Page lengths come from the directory: it must describe this block, not a bigger one.
    if (dir.blockSize() != block.size()) {
      throw NyalaException.corruption("block %s: column '%s' page directory is for %d bytes, "
          + "the block has %d", block.id(), column, dir.blockSize(), block.size());
    }
    this.block = block;
    this.dir = dir;
    this.type = type;
    this.nullable = nullable;
    this.column = column;
  }

  public PageDirectory directory() {
    return dir;
  }

  /** Decodes page {@code page}; CORRUPTION names the block and the page's offset. */
  public Object[] readPage(int page) {
    long off = dir.offsets()[page];
    byte[] framed = new byte[Math.toIntExact(dir.pageLength(page))];
    block.read(off, framed, 0, framed.length);
    String what = "page of column '" + column + "'";
    int len = Checksums.check(framed, block.id().toString(), off, what);
    return PageCodec.decode(type, nullable, framed, 4, len,
        "block " + block.id() + ": " + what + " at offset " + off);
  }
}
