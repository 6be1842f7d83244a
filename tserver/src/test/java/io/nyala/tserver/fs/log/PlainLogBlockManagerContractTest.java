package io.nyala.tserver.fs.log;

import io.nyala.common.env.Env;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.BlockManagerContractTest;
import java.nio.file.Path;

/** The block manager contract for the log block manager, plain, over two data dirs. */
class PlainLogBlockManagerContractTest extends BlockManagerContractTest {
  private final Env env = Env.plain();

  @Override
  protected BlockManager open(Path root) {
    return LogBlockManager.open(LbmFixture.options(env, true, root.resolve("d0"),
        root.resolve("d1")));
  }
}
