package io.nyala.tserver.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.NyalaException;
import io.nyala.common.proto.metadata.HibernatedStatePB;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a start puts a replica's group dir, on real directories: as its metadata says, which
 * finishes a hibernation or a wake a crash cut between its metadata write and its move.
 */
@Timeout(10)
class RaftGroupsTest {
  private static final String TABLET = "0123456789abcdef0123456789abcdef";

  @TempDir
  Path dir;

  @Test
  void aHibernatedReplicasGroupDirLeavesRatisStorage() throws Exception {
    RaftGroups groups = new RaftGroups(dir.resolve("raft"));
    TabletReplica r = replica(true);
    Files.createDirectories(groups.groupDir(r.groupId()).resolve("current"));
    groups.placeGroupDir(r);
    assertThat(groups.groupDir(r.groupId())).doesNotExist();
    assertThat(groups.coldGroupDir(r.groupId()).resolve("current")).isDirectory();
    assertThat(groups.coldGroupDir(r.groupId()).getParent())
        .isEqualTo(dir.resolve(TabletManager.HIBERNATED_RAFT_DIR));
  }

  @Test
  void anAwakeReplicasGroupDirComesBack() throws Exception {
    RaftGroups groups = new RaftGroups(dir.resolve("raft"));
    TabletReplica r = replica(false);
    Files.createDirectories(groups.coldGroupDir(r.groupId()).resolve("current"));
    groups.placeGroupDir(r);
    assertThat(groups.coldGroupDir(r.groupId())).doesNotExist();
    assertThat(groups.groupDir(r.groupId()).resolve("current")).isDirectory();
  }

  @Test
  void aFailedReplicasGroupDirStaysWhereItIs() throws Exception {
    RaftGroups groups = new RaftGroups(dir.resolve("raft"));
    TabletReplica r = replica(true);
    r.markFailed(NyalaException.corruption("damaged"));
    Files.createDirectories(groups.groupDir(r.groupId()));
    groups.placeGroupDir(r);
    assertThat(groups.groupDir(r.groupId())).isDirectory();
    assertThat(groups.coldGroupDir(r.groupId())).doesNotExist();
  }

  @Test
  void deletingTheGroupDirsCoversBothPlaces() throws Exception {
    RaftGroups groups = new RaftGroups(dir.resolve("raft"));
    TabletReplica r = replica(false);
    Files.createDirectories(groups.groupDir(r.groupId()));
    Files.createDirectories(groups.coldGroupDir(r.groupId()));
    groups.deleteGroupDirs(r.groupId());
    assertThat(groups.groupDir(r.groupId())).doesNotExist();
    assertThat(groups.coldGroupDir(r.groupId())).doesNotExist();
  }

  private static TabletReplica replica(boolean hibernated) {
    TabletMetadataPB.Builder m = TabletMetadataPB.newBuilder().setTabletId(TABLET);
    if (hibernated) {
      m.setHibernated(HibernatedStatePB.newBuilder().setTerm(2).setIndex(9));
    }
    return new TabletReplica(m.build(), null, null, null, null, null);
  }
}
