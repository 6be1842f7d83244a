package io.nyala.tserver.tablet;

import io.nyala.common.env.Env;
import io.nyala.common.row.RowOperations.Op;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.file.FileBlockManager;
import io.nyala.tserver.fs.log.LbmOptions;
import io.nyala.tserver.fs.log.LogBlockManager;
import java.nio.file.Path;
import java.util.List;

/**
 * A real block manager in a test directory and one tablet store on it, driven the way the state
 * machine drives it (apply, then markApplied), with close + reopen from the superblock.
 */
public final class StoreFixture implements AutoCloseable {
  public final Path dir;
  public final Env env;
  public final boolean fileBlocks;
  public final Schema initialSchema;
  public BlockManager blocks;
  public BlockTabletStore store;
  public long index;
  /** The history the store keeps; set with {@link #keepHistory}. */
  public HistoryRetention retention = HistoryRetention.NONE;

  public StoreFixture(Path dir, Env env, boolean fileBlocks, Schema schema) {
    this.dir = dir;
    this.env = env;
    this.fileBlocks = fileBlocks;
    this.initialSchema = schema;
    openBlocks();
    open();
  }

  public static StoreFixture plain(Path dir, Schema schema) {
    return new StoreFixture(dir, Env.plain(), false, schema);
  }

  private void openBlocks() {
    List<Path> dirs = List.of(dir.resolve("data"));
    // Data fsync off: these tests are about the engine, and fsyncs cost ~7 ms each here.
    blocks = fileBlocks ? FileBlockManager.open(env, dirs)
        : LogBlockManager.open(LbmOptions.defaults(env, dirs).withDataFsync(false));
  }

  public Path superblock() {
    return dir.resolve("superblock");
  }

  public void open() {
    store = BlockTabletStore.open("t1", initialSchema, env, blocks, superblock(), retention);
  }

  /** Reopens the store keeping {@code r}'s history (and does so after each restart). */
  public void keepHistory(HistoryRetention r) {
    store.close();
    retention = r;
    open();
  }

  public List<RowOpError> apply(Schema writeSchema, List<Op> ops) {
    long i = ++index;
    List<RowOpError> errs = store.apply(writeSchema, ops, i);
    store.markApplied(1, i);
    return errs;
  }

  public void alter(Schema next) {
    long i = ++index;
    store.alterSchema(next, i);
    store.markApplied(1, i);
  }

  /** Closes the store and the block manager, then opens both again (a tserver restart). */
  public void restart() {
    store.close();
    blocks.close();
    openBlocks();
    open();
  }

  @Override
  public void close() {
    store.close();
    blocks.close();
  }
}
