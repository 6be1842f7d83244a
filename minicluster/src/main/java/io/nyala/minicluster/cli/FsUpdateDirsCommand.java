package io.nyala.minicluster.cli;

import io.nyala.common.NyalaException;
import io.nyala.common.fs.DirLock;
import io.nyala.common.fs.ServerFs;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.KeyProvider;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code nyala fs update_dirs}: the one way to add a data dir to an existing server, since a
 * start refuses dirs without instance file (see docs/data-safety.md, "File systems").
 */
@Command(name = "update_dirs", mixinStandardHelpOptions = true,
    description = {
        "Adds data dirs to a stopped server (master or tablet server): formats each "
            + "listed dir that holds no instance file yet with the server's instance, read from its"
            + " WAL dir. Give the server's --fs_wal_dir and all its --fs_data_dirs, old and new.",
        "Refuses while the server runs (its dirs are locked), a new dir that already holds "
            + "files, and a WAL dir without instance file (its metadata is lost: it cannot be "
            + "re-added). Existing blocks stay in their dirs; new blocks use every dir."})
final class FsUpdateDirsCommand implements Callable<Integer> {
  @Option(names = "--fs_wal_dir", required = true, description = "The server's WAL dir.")
  Path walDir;

  @Option(names = "--fs_data_dirs", split = ",", required = true,
      description = "All the server's data dirs after the change: the existing ones and the new.")
  List<Path> dataDirs;

  @Option(names = "--encrypt_data_at_rest",
      description = "The server encrypts: check the cluster key unwraps its server key first.")
  boolean encrypt;

  @Option(names = "--encryption_key_file", description = "The cluster key file.")
  Path keyFile;

  @Override
  public Integer call() {
    KeyProvider keys = null;
    if (encrypt) {
      if (keyFile == null) {
        throw NyalaException.invalidArgument("--encrypt_data_at_rest needs "
            + "--encryption_key_file (the cluster key file that wraps the server key)");
      }
      keys = FileKeyProvider.open(keyFile);
    }
    List<Path> added;
    try (DirLock lock = DirLock.acquire(ServerFs.allDirs(walDir, dataDirs), "fs update_dirs")) {
      added = ServerFs.addDataDirs(walDir, dataDirs, keys);
    }
    if (added.isEmpty()) {
      System.out.println("nothing to add: every dir of " + ServerFs.allDirs(walDir, dataDirs)
          + " holds the server's instance file");
    }
    for (Path d : added) {
      System.out.println("added " + d);
    }
    return 0;
  }
}
