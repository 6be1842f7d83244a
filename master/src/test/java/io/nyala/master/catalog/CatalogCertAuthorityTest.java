package io.nyala.master.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.consensus.RaftSettings;
import io.nyala.common.env.Env;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysCertAuthorityPB;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.LogPayloads;
import io.nyala.common.security.pki.CertificateAuthority;
import io.nyala.common.security.pki.EcKeys;
import io.nyala.common.security.tls.CertFiles;
import io.nyala.master.ca.OperatorCa;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The internal CA kept in the sys catalog (docs/architecture.md, "TLS and the internal CA"): a
 * new leader's barrier stores one (made, or the operator's), sealed under a real cluster key
 * file; it survives a snapshot and a restart of the master's Raft group; the first CA committed
 * wins unless the operator imports another.
 */
@Timeout(60)
class CatalogCertAuthorityTest {
  @TempDir
  Path dir;

  private final Clock clock = Clock.systemUTC();

  private KeyProvider clusterKey() {
    return FileKeyProvider.openOrCreate(dir.resolve("cluster.key"), 256);
  }

  @Test
  void theFirstLeaderMakesOneSealedCaThatARestartKeeps() throws IOException {
    KeyProvider keys = clusterKey();
    HostPort raft = new HostPort("127.0.0.1", freePort());
    CertificateAuthority first;
    try (Catalog c = new Catalog(raft, keys, null, RaftStorage.StartupOption.FORMAT)) {
      first = c.ca.current();
      SysCertAuthorityPB stored = c.catalog.read(CatalogState::certAuthority);
      assertThat(stored.getPrivateKeyVersion()).as("wrapped by cluster key version 1")
          .isEqualTo(1);
      byte[] scalar = EcKeys.privateScalar(first.privateKey());
      assertThat(stored.getWrappedPrivateKey().toByteArray()).as("never the key in the clear")
          .isNotEqualTo(scalar).hasSize(40);
      assertThat(first.certificate().getSubjectX500Principal().getName())
          .isEqualTo("CN=Nyala cluster CA " + c.catalog.read(CatalogState::clusterId));
      assertThat(c.ca.barrierOps("other")).as("a later leader adds nothing").isEmpty();
    }
    try (Catalog c = new Catalog(raft, keys, null, RaftStorage.StartupOption.RECOVER)) {
      CertificateAuthority again = c.ca.current();
      assertThat(again.certificate()).isEqualTo(first.certificate());
      assertThat(again.privateKey().getEncoded()).isEqualTo(first.privateKey().getEncoded());
    }
  }

  @Test
  void aClusterKeyRotationRewrapsTheCaSoRetiringTheOldVersionKeepsIt() throws IOException {
    Path keyFile = dir.resolve("cluster.key");
    KeyProvider keys = clusterKey();
    HostPort raft = new HostPort("127.0.0.1", freePort());
    try (Catalog c = new Catalog(raft, keys, null, RaftStorage.StartupOption.FORMAT)) {
      CertificateAuthority before = c.ca.current();
      c.ca.rewrapIfBehind();
      assertThat(c.catalog.read(CatalogState::certAuthority).getPrivateKeyVersion()).isEqualTo(1);
      FileKeyProvider.addVersion(keyFile, 256);
      keys.reload();
      c.ca.rewrapIfBehind();
      assertThat(c.catalog.read(CatalogState::certAuthority).getPrivateKeyVersion()).isEqualTo(2);
      FileKeyProvider.retireVersionsBefore(keyFile, 2);
      keys.reload();
      assertThat(CatalogCertAuthority.unwrap(c.catalog.read(CatalogState::certAuthority), keys,
          clock).privateKey().getEncoded()).isEqualTo(before.privateKey().getEncoded());
    }
  }

  @Test
  void theOperatorsCaIsImportedAndReplacesAMadeOne() throws IOException {
    KeyProvider keys = clusterKey();
    Path tls = dir.resolve("tls");
    CertFiles.createCa(tls);
    CertificateAuthority operator = OperatorCa.read(tls.resolve(CertFiles.CA_KEY).toString(),
        tls.resolve(CertFiles.CA_CERT).toString(), clock);
    HostPort raft = new HostPort("127.0.0.1", freePort());
    try (Catalog c = new Catalog(raft, keys, null, RaftStorage.StartupOption.FORMAT)) {
      assertThat(c.ca.certificate()).isNotEqualTo(operator.certificate());
    }
    try (Catalog c = new Catalog(raft, keys, operator, RaftStorage.StartupOption.RECOVER)) {
      assertThat(c.ca.current().certificate()).isEqualTo(operator.certificate());
      assertThat(c.catalog.read(CatalogState::certAuthority).getImported()).isTrue();
      assertThat(c.ca.barrierOps("x")).as("stored already: nothing more").isEmpty();
    }
  }

  @Test
  void theFirstCaCommittedWinsAndSnapshotsKeepIt() {
    KeyProvider keys = clusterKey();
    CertificateAuthority a = CertificateAuthority.create("c1", Duration.ofDays(1), clock);
    CertificateAuthority b = CertificateAuthority.create("c1", Duration.ofDays(1), clock);
    CatalogState s = new CatalogState();
    s.apply(put(CatalogCertAuthority.record(a, keys, false)));
    s.apply(put(CatalogCertAuthority.record(b, keys, false)));
    assertThat(CatalogCertAuthority.parse(s.certAuthority().getCertificateDer()))
        .as("a second leader's CA loses").isEqualTo(a.certificate());
    CatalogState restored = CatalogState.fromSnapshot(s.toSnapshot(3, 7));
    assertThat(restored.certAuthority()).isEqualTo(s.certAuthority());
    s.apply(put(CatalogCertAuthority.record(b, keys, true)));
    assertThat(CatalogCertAuthority.parse(s.certAuthority().getCertificateDer()))
        .as("an import replaces it").isEqualTo(b.certificate());
  }

  @Test
  void aCaSealedUnderAnotherClusterKeyIsACorruptionNamingIt() {
    CertificateAuthority a = CertificateAuthority.create("c1", Duration.ofDays(1), clock);
    SysCertAuthorityPB r = CatalogCertAuthority.record(a, clusterKey(), false);
    KeyProvider other = FileKeyProvider.openOrCreate(dir.resolve("other.key"), 256);
    assertThatThrownBy(() -> CatalogCertAuthority.unwrap(r, other, clock))
        .isInstanceOf(NyalaException.class)
        .satisfies(e -> assertThat(((NyalaException) e).code()).isEqualTo(StatusCode.CORRUPTION))
        .hasMessageContaining("CA 'CN=Nyala cluster CA c1'")
        .hasMessageContaining("cluster key version 1");
    assertThatThrownBy(() -> CatalogCertAuthority.unwrap(r, null, clock))
        .hasMessageContaining("no cluster key");
  }

  @Test
  void anExposedOrMismatchedOperatorKeyIsRefusedNamingTheFile() throws IOException {
    Path tls = dir.resolve("tls");
    CertFiles.createCa(tls);
    Path key = tls.resolve(CertFiles.CA_KEY);
    Path other = dir.resolve("other");
    CertFiles.createCa(other);
    assertThatThrownBy(() -> OperatorCa.read(other.resolve(CertFiles.CA_KEY).toString(),
        tls.resolve(CertFiles.CA_CERT).toString(), clock))
        .hasMessageContaining("--tls_ca_key_file " + other.resolve(CertFiles.CA_KEY))
        .hasMessageContaining("does not belong");
    assertThatThrownBy(() -> OperatorCa.read(key.toString(), "", clock))
        .hasMessageContaining("needs --trusted_ca_file");
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
    assertThatThrownBy(() -> OperatorCa.read(key.toString(),
        tls.resolve(CertFiles.CA_CERT).toString(), clock)).hasMessageContaining(key.toString())
        .hasMessageContaining("rw-r--r--");
  }

  private static SysCatalogOpPB put(SysCertAuthorityPB r) {
    return SysCatalogOpPB.newBuilder().setPutCertAuthority(r).build();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** A one-master catalog on real Ratis, led until closed; its barrier stores the CA. */
  private final class Catalog implements AutoCloseable {
    final SysCatalog catalog;
    final CatalogCertAuthority ca;
    final RaftServer server;

    Catalog(HostPort raft, KeyProvider keys, CertificateAuthority imported,
        RaftStorage.StartupOption option) throws IOException {
      catalog = new SysCatalog(Env.plain(), LogPayloads.wrapped("sys-catalog", keys, 256));
      ca = new CatalogCertAuthority(catalog, keys, imported, true, clock);
      CatalogLeadership leadership = new CatalogLeadership(catalog, () -> { });
      leadership.setBarrierOps(ca::barrierOps);
      RaftServer.Builder b = RaftServer.newBuilder()
          .setServerId(SysCatalog.peer("m0", raft, raft).getId())
          .setProperties(RaftSettings.forServer(dir.resolve("raft").toFile(), raft, 300, 600,
              Map.of()))
          .setStateMachineRegistry(catalog.registry()).setOption(option);
      if (option == RaftStorage.StartupOption.FORMAT) {
        b.setGroup(SysCatalog.initialGroup(List.of(SysCatalog.peer("m0", raft, raft))));
      }
      server = b.build();
      catalog.attach(server);
      server.start();
      await("the catalog leader ready").atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(50)).until(leadership::poll);
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
