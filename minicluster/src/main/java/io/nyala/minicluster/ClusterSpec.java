package io.nyala.minicluster;

import io.nyala.minicluster.NyalaCluster.Lifecycle;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * The full configuration of a cluster {@link MiniClusterExtension} makes: what
 * {@link NyalaCluster} or {@link MiniClusterExtension.Builder} says. It is the key under which
 * the cluster is kept, so two tests asking for equal specs (same lifecycle, counts, flags in the
 * same order) get the same cluster where the lifecycle lets them share one. A custom
 * {@code configure} step is compared by identity: only the same object makes specs equal.
 *
 * @param configure extra builder settings applied last, or null
 */
record ClusterSpec(int masters, int tservers, boolean encryption, boolean tls,
    ProcessMode processMode,
    List<String> tserverFlags, List<String> masterFlags, Lifecycle lifecycle,
    Consumer<MiniCluster.Builder> configure) {
  /** The cluster {@code @ExtendWith(MiniClusterExtension.class)} alone gives. */
  static final ClusterSpec DEFAULT = new ClusterSpec(1, 3, false, true, ProcessMode.IN_PROCESS,
      List.of(), List.of(), Lifecycle.PER_CLASS, null);

  ClusterSpec {
    tserverFlags = List.copyOf(tserverFlags);
    masterFlags = List.copyOf(masterFlags);
  }

  /** The spec an annotation declares. */
  static ClusterSpec of(NyalaCluster a) {
    return new ClusterSpec(a.masters(), a.tservers(), a.encryption(), a.tls(), a.processMode(),
        List.of(a.tserverFlags()), List.of(a.masterFlags()), a.lifecycle(), null);
  }

  /**
   * Checks what {@link MiniCluster.Builder} would refuse, before any server starts.
   *
   * @param where what declared the spec, for the message, e.g. {@code "@NyalaCluster on
   *     io.example.ScanTest"}
   * @throws ExtensionConfigurationException naming {@code where}, the option and its value
   */
  ClusterSpec validate(String where) {
    if (masters < 1) {
      throw misuse(where, "masters = " + masters + ": a cluster needs at least 1 master");
    }
    // The builder takes 0 tablet servers, but start() then fails: a cluster needs one.
    if (tservers < 1 || tservers > 240) {
      throw misuse(where, "tservers = " + tservers + ": out of range 1..240");
    }
    if (processMode == null || lifecycle == null) {
      throw misuse(where, "processMode and lifecycle must not be null");
    }
    checkFlags(where, "tserverFlags", tserverFlags);
    checkFlags(where, "masterFlags", masterFlags);
    return this;
  }

  private static void checkFlags(String where, String option, List<String> flags) {
    for (String f : flags) {
      if (!f.startsWith("--") || f.length() < 3) {
        throw misuse(where, option + " has \"" + f + "\": each flag is \"--name=value\"");
      }
    }
  }

  private static ExtensionConfigurationException misuse(String where, String what) {
    return new ExtensionConfigurationException(where + ": " + what);
  }

  /** A started cluster as the spec says. */
  MiniCluster newCluster() {
    MiniCluster.Builder b = MiniCluster.builder().numMasters(masters).numTabletServers(tservers)
        .encryption(encryption).tls(tls).processMode(processMode);
    tserverFlags.forEach(b::tserverFlag);
    masterFlags.forEach(b::masterFlag);
    if (configure != null) {
      configure.accept(b);
    }
    return b.build();
  }

  /** The same spec with extra builder settings. */
  ClusterSpec withConfigure(Consumer<MiniCluster.Builder> c) {
    return new ClusterSpec(masters, tservers, encryption, tls, processMode, tserverFlags,
        masterFlags, lifecycle, c);
  }
}
