package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.proto.metadata.TabletDataStatePB;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import io.nyala.tserver.consensus.TabletStateMachine;
import io.nyala.tserver.fs.BlockManager;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the {@link TabletReplica} of a tablet's metadata: with its unwrapped key and its
 * superblock file, or FAILED when what it needs cannot be read, so that a damaged tablet stays
 * listed (and its files are not taken for orphans) while the rest of the server serves
 * (docs/data-safety.md, "Damage is contained").
 */
final class ReplicaFactory {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaFactory.class);

  private final TabletStateMachine.Listener listener;
  private final Env env;
  private final TabletKeys keys;
  private final BlockManager blocks;
  /** One superblock file per tablet, named by the tablet id. */
  private final Path superblockDir;

  ReplicaFactory(TabletStateMachine.Listener listener, Env env, TabletKeys keys,
      BlockManager blocks, Path superblockDir) {
    this.listener = listener;
    this.env = env;
    this.keys = keys;
    this.blocks = blocks;
    this.superblockDir = superblockDir;
  }

  Path superblockDir() {
    return superblockDir;
  }

  Path superblockFile(String tabletId) {
    return superblockDir.resolve(tabletId);
  }

  /** A replica of {@code meta} (read from {@code file}); fails if its key cannot be unwrapped. */
  TabletReplica create(TabletMetadataPB meta, Path file) {
    return new TabletReplica(meta, listener, env, keys.unwrap(meta, file), blocks,
        superblockFile(meta.getTabletId()));
  }

  /** A replica of {@code meta}, or a FAILED one when its key cannot be unwrapped. */
  TabletReplica createOrFailed(TabletMetadataPB meta, Path file) {
    try {
      return create(meta, file);
    } catch (NyalaException e) {
      TabletReplica r = new TabletReplica(meta, listener, env, null, blocks,
          superblockFile(meta.getTabletId()));
      r.markFailed(new NyalaException(e.code(), "tablet " + meta.getTabletId() + ": "
          + e.detail(), e));
      LOG.error("tablet {}: FAILED: {}", meta.getTabletId(), e.detail());
      return r;
    }
  }

  /** A FAILED replica of a tablet whose metadata cannot be read ({@code why}). */
  TabletReplica unreadable(String tabletId, NyalaException why) {
    TabletMetadataPB placeholder = TabletMetadataPB.newBuilder().setTabletId(tabletId)
        .setDataState(TabletDataStatePB.TABLET_DATA_READY).build();
    TabletReplica r = new TabletReplica(placeholder, listener, env, null, blocks,
        superblockFile(tabletId));
    r.markFailed(new NyalaException(why.code(), "tablet " + tabletId + ": " + why.detail(), why));
    LOG.error("tablet {}: FAILED, its metadata cannot be read: {}", tabletId, why.detail());
    return r;
  }
}
