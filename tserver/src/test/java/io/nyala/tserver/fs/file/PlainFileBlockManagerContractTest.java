package io.nyala.tserver.fs.file;

import io.nyala.common.env.Env;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.BlockManagerContractTest;
import java.nio.file.Path;
import java.util.List;

/** The block manager contract for the file block manager, plain, over two data dirs. */
class PlainFileBlockManagerContractTest extends BlockManagerContractTest {
  private final Env env = Env.plain();

  @Override
  protected BlockManager open(Path root) {
    return FileBlockManager.open(env, List.of(root.resolve("d0"), root.resolve("d1")));
  }
}
