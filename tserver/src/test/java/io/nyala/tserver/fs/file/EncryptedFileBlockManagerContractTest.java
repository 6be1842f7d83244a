package io.nyala.tserver.fs.file;

import io.nyala.common.env.Env;
import io.nyala.common.security.KeyMaterial;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.BlockManagerContractTest;
import java.nio.file.Path;
import java.util.List;

/** The block manager contract for the file block manager, encrypted, over two data dirs. */
class EncryptedFileBlockManagerContractTest extends BlockManagerContractTest {
  private final Env env = Env.encrypted(KeyMaterial.random(256), 256);

  @Override
  protected BlockManager open(Path root) {
    return FileBlockManager.open(env, List.of(root.resolve("d0"), root.resolve("d1")));
  }
}
