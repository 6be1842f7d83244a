package io.nyala.tserver;

import io.nyala.common.NyalaException;
import io.nyala.common.fs.ServerFs;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.file.FileBlockManager;
import io.nyala.tserver.fs.log.LbmOptions;
import io.nyala.tserver.fs.log.LogBlockManager;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the tablet server's block manager. */
final class BlockManagers {
  private static final Logger LOG = LoggerFactory.getLogger(TabletServer.class);

  private BlockManagers() {}

  /** The block manager chosen by {@code --block_manager}, on a "blocks" dir per data dir. */
  static BlockManager open(TserverOptions topts, ServerFs fs) {
    List<Path> dirs = new ArrayList<>();
    for (Path d : fs.dataDirs()) {
      dirs.add(d.resolve("blocks"));
    }
    BlockManager bm = switch (topts.blockManager) {
      case "log" -> LogBlockManager.open(LbmOptions.defaults(fs.env(), dirs)
          .withPreallocateBytes(topts.logContainerPreallocateBytes));
      case "file" -> FileBlockManager.open(fs.env(), dirs);
      default -> throw NyalaException.invalidArgument(
          "--block_manager must be 'log' or 'file', not '%s'", topts.blockManager);
    };
    LOG.info("{} block manager on {}: {} blocks", topts.blockManager, dirs,
        bm.metrics().blocksUnderManagement());
    return bm;
  }
}
