package io.nyala.tserver.heartbeat;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster this tablet server belongs to (docs/data-safety.md, "Deletes"): the first cluster
 * id a master answered with, kept durably in a small plaintext file (written whole, synced, its
 * directory synced) next to the tablet metadata. From then on a master with another id (a
 * re-formatted master, or another cluster's) is not obeyed: its heartbeat answers are ignored
 * and its state-changing admin calls refused with ILLEGAL_STATE, so it can delete nothing here.
 *
 * <p>Thread-safe: the heartbeat thread and admin RPC threads call in; the accepted id only
 * changes once, from empty, under this object's monitor.
 */
public final class ClusterIdGuard {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterIdGuard.class);
  public static final String FILE_NAME = "cluster_id";

  private final Env env;
  private final Path file;
  /** Empty until the first master answers with an id. */
  private volatile String accepted;
  /** The last foreign id warned about (one WARN per change); guarded by this. */
  private String warnedAbout = "";

  private ClusterIdGuard(Env env, Path file, String accepted) {
    this.env = env;
    this.file = file;
    this.accepted = accepted;
  }

  /** Reads {@code dir}/cluster_id if present; an unreadable file stops the start. */
  public static ClusterIdGuard open(Env env, Path dir) {
    Path file = dir.resolve(FILE_NAME);
    if (!env.exists(file)) {
      return new ClusterIdGuard(env, file, "");
    }
    String id = new String(env.readFile(file, OpenOptions.NOT_SENSITIVE),
        StandardCharsets.UTF_8).trim();
    if (id.isEmpty() || !id.chars().allMatch(c -> c > ' ' && c < 127)) {
      throw NyalaException.corruption("%s: not a cluster id (%d bytes); restore it or, if this "
          + "server must join a new cluster, remove it", file, id.length());
    }
    return new ClusterIdGuard(env, file, id);
  }

  /** The accepted cluster id, or empty. */
  public String accepted() {
    return accepted;
  }

  /**
   * Whether a master answering with {@code masterId} may be obeyed. The first non-empty id is
   * persisted before it is accepted. An empty one (a master that does not say) is obeyed but
   * not recorded: its admin calls carry no id either, like an operator's tool.
   */
  public synchronized boolean acceptMaster(String masterId, String master) {
    if (masterId.isEmpty()) {
      return true;
    }
    if (accepted.isEmpty()) {
      env.createDirs(file.getParent());
      env.replaceFile(file, masterId.getBytes(StandardCharsets.UTF_8), OpenOptions.NOT_SENSITIVE);
      accepted = masterId;
      LOG.info("joined cluster {} (recorded in {})", masterId, file);
      return true;
    }
    if (accepted.equals(masterId)) {
      warnedAbout = "";
      return true;
    }
    if (!masterId.equals(warnedAbout)) {
      warnedAbout = masterId;
      LOG.warn("master {} belongs to cluster {} but this tablet server belongs to cluster {} "
          + "(recorded in {}): ignoring that master, nothing here will be changed or deleted "
          + "on its say. If the master's catalog was lost, restore it from a backup; if this "
          + "server is pointed at the wrong masters, fix --master_addresses", master, masterId,
          accepted, file);
    }
    return false;
  }

  /**
   * Refuses (ILLEGAL_STATE) a state-changing call from another cluster. An empty caller id is
   * an operator's tool that does not say; a server without an accepted id takes any.
   */
  public void checkCaller(String callerId, String what) {
    String mine = accepted;
    if (callerId.isEmpty() || mine.isEmpty() || mine.equals(callerId)) {
      return;
    }
    throw NyalaException.illegalState("%s refused: the caller belongs to cluster %s, this tablet "
        + "server to cluster %s", what, callerId, mine);
  }
}
