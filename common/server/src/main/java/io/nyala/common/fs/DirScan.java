package io.nyala.common.fs;

import io.nyala.common.NyalaException;
import io.nyala.common.proto.metadata.InstancePB;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What each of a server's dirs holds: the instance files found (all of one server and role, or
 * CORRUPTION / INVALID_ARGUMENT naming the odd one) and the dirs without one.
 *
 * @param all the WAL dir first, then the data dirs
 * @param instances dir → its instance, in {@code all}'s order
 * @param missing the dirs without instance file
 */
record DirScan(List<Path> all, Map<Path, InstancePB> instances, List<Path> missing) {
  /** The names an interrupted first format can leave in a dir besides nothing at all. */
  private static final Set<String> FORMAT_LEFTOVERS =
      Set.of(ServerFs.INSTANCE, ServerFs.INSTANCE + ".tmp", DirLock.FILE);

  /** Scans the dirs; a null {@code serverType} takes the first instance's. */
  static DirScan of(Path walDir, List<Path> dataDirs, String serverType) {
    List<Path> all = ServerFs.allDirs(walDir, dataDirs);
    Map<Path, InstancePB> found = new LinkedHashMap<>();
    List<Path> missing = new ArrayList<>();
    Path first = null;
    for (Path d : all) {
      Path f = d.resolve(ServerFs.INSTANCE);
      if (!Files.exists(f)) {
        missing.add(d);
        continue;
      }
      InstancePB pb = ServerFs.readInstance(f);
      if (first != null && !found.get(first).getUuid().equals(pb.getUuid())) {
        throw NyalaException.corruption("%s belongs to server %s but %s to server %s",
            f, pb.getUuid(), first.resolve(ServerFs.INSTANCE), found.get(first).getUuid());
      }
      String type = serverType != null ? serverType
          : first != null ? found.get(first).getServerType() : pb.getServerType();
      if (!pb.getServerType().equals(type)) {
        throw NyalaException.invalidArgument("%s belongs to a %s, not a %s",
            f, pb.getServerType(), type);
      }
      found.put(d, pb);
      first = first == null ? d : first;
    }
    return new DirScan(all, found, missing);
  }

  /** The instance file the server's identity is read from: the WAL dir's if it has one. */
  Path instanceFile() {
    return instances.keySet().iterator().next().resolve(ServerFs.INSTANCE);
  }

  /** Whether no dir holds anything but what a first format writes: nothing can be lost. */
  boolean onlyInstanceFiles() {
    return all.stream().allMatch(d -> holdsOnly(d, FORMAT_LEFTOVERS));
  }

  /** Whether {@code dir} is missing or holds no name outside {@code allowed}. */
  static boolean holdsOnly(Path dir, Set<String> allowed) {
    if (!Files.isDirectory(dir)) {
      return !Files.exists(dir);
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.allMatch(p -> allowed.contains(p.getFileName().toString()));
    } catch (IOException e) {
      throw NyalaException.ioError("cannot list " + dir + ": " + e.getMessage(), e);
    }
  }

  /** The refusal of a start on dirs of which only some hold an instance file. */
  NyalaException partial(Path walDir) {
    String uuid = instances.values().iterator().next().getUuid();
    String what = missing.contains(walDir)
        ? String.format(" The WAL dir %s holds the tablet metadata and Raft logs: if it was "
            + "wiped they are lost; restore it, or remove every dir of this server and let the "
            + "cluster re-replicate its tablets.", walDir)
        : " If a dir is new, add it with `nyala fs update_dirs` (the server's --fs_wal_dir and "
            + "all its --fs_data_dirs) while the server is stopped.";
    return NyalaException.illegalState("%s hold%s no instance file while %s belong%s to server "
        + "%s: refusing to start on a partial filesystem (a dir without instance file may be "
        + "wiped, unmounted or mistyped, and its emptiness taken for the truth would delete "
        + "data).%s", missing, missing.size() == 1 ? "s" : "", instances.keySet(),
        instances.size() == 1 ? "s" : "", uuid, what);
  }
}
