package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.security.pki.Pem;
import io.nyala.common.security.tls.CertFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Masters get their certificates from the cluster's CA (docs/architecture.md, "TLS and the
 * internal CA"), with real masters, real Ratis over mutual TLS and real gRPC on loopback: the
 * first masters, given the CA's key, issue their own ({@code CN=<uuid>}) and elect; a master
 * restarted without the key and without its certificate asks the leader for one, rejoins the
 * catalog's group and elects a new leader with the third once the leader stops; the only
 * master of a cluster restarts from its stored certificate without a leader; and a master that
 * cannot get one is refused, saying why.
 */
@Timeout(180)
class MasterCertificatesTest {
  @TempDir
  Path dir;
  private Path caCert;
  private Path caKey;

  @BeforeEach
  void makeCa() {
    caCert = CertFiles.createCa(dir.resolve("ca"));
    caKey = dir.resolve("ca").resolve(CertFiles.CA_KEY);
  }

  private String[] flags(String... more) {
    List<String> f = new ArrayList<>(List.of("--rpc_encryption=required",
        "--rpc_authentication=required", "--trusted_ca_file=" + caCert,
        "--tls_ca_key_file=" + caKey, "--encrypt_data_at_rest=true",
        "--encryption_key_file=" + dir.resolve("cluster.key")));
    f.addAll(List.of(more));
    return f.toArray(String[]::new);
  }

  @Test
  void theFirstMastersIssueTheirOwnAndARestartedOneAsksTheLeader() throws Exception {
    try (MastersFixture f = MastersFixture.start(dir, 3, flags())) {
      int leader = f.awaitLeader();
      X509Certificate ca = Pem.readCertificate(Files.readString(caCert), "ca");
      List<X509Certificate> first = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        X509Certificate leaf = storedLeaf(i);
        leaf.verify(ca.getPublicKey());
        assertThat(leaf.getSubjectX500Principal().getName())
            .isEqualTo("CN=" + f.master(i).uuid());
        first.add(leaf);
      }

      int follower = (leader + 1) % 3;
      String uuid = f.master(follower).uuid();
      f.stopMaster(follower);
      Files.delete(tlsDir(follower).resolve("server.crt"));
      f.ownFlags(follower, "--tls_ca_key_file=");
      f.startMaster(follower);
      X509Certificate requested = storedLeaf(follower);
      requested.verify(ca.getPublicKey());
      assertThat(requested.getSubjectX500Principal().getName()).isEqualTo("CN=" + uuid);
      assertThat(requested.getSerialNumber()).isNotEqualTo(first.get(follower).getSerialNumber());
      assertThat(requested.getPublicKey()).as("the same stored key")
          .isEqualTo(first.get(follower).getPublicKey());
      assertThat(f.master(leader).metrics().renderPrometheus()).as("the leader issued it")
          .containsPattern("certificates_issued_total\\S* 1(\\.0)?\\n");

      // It is a member of the catalog's mutual-TLS group with that certificate: it hears the
      // leader, and once the leader stops, it and the third master elect one of them.
      MasterServer restarted = f.master(follower);
      await().atMost(Duration.ofSeconds(30))
          .until(() -> restarted.catalog().catalog().leaderPeer() != null);
      f.stopMaster(leader);
      int next = f.awaitLeader();
      assertThat(next).isNotEqualTo(leader);
    }
  }

  @Test
  void theOnlyMasterRestartsFromItsStoredCertificateAndWithoutOneIsRefused() throws Exception {
    try (MastersFixture f = MastersFixture.start(dir, 1, flags())) {
      f.awaitLeader(0);
      X509Certificate issued = storedLeaf(0);
      f.stopMaster(0);
      f.ownFlags(0, "--tls_ca_key_file=");
      f.startMaster(0);
      f.awaitLeader(0);
      assertThat(storedLeaf(0)).as("the stored one, no leader to ask").isEqualTo(issued);

      f.stopMaster(0);
      Files.delete(tlsDir(0).resolve("server.crt"));
      assertThatThrownBy(() -> f.startMaster(0))
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("names no other master")
          .hasMessageContaining("no certificate stored")
          .hasMessageContaining("give it --tls_ca_key_file");
    }
  }

  @Test
  void aMasterThatAsksWhileNoLeaderExistsFailsSayingTheFirstMastersNeedTheCaKey() {
    MastersFixture f = MastersFixture.create(dir, 3, flags("--tls_ca_key_file=",
        "--tls_certificate_request_timeout_ms=1500"));
    try (f) {
      assertThatThrownBy(() -> f.startMaster(0))
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.TIMED_OUT))
          .hasMessageContaining("master m0: no certificate from the master's CA within 1500 ms")
          .hasMessageContaining(f.rpcAddress(1).toString())
          .hasMessageContaining("the first masters of a cluster must issue their own with "
              + "--tls_ca_key_file")
          .satisfies(e -> assertThat(e.getMessage()).as("it does not ask itself")
              .doesNotContain(f.rpcAddress(0).toString()));
    }
  }

  private Path tlsDir(int i) {
    return dir.resolve("m" + i).resolve("wal").resolve("tls");
  }

  private X509Certificate storedLeaf(int i) throws Exception {
    return Pem.readCertificates(Files.readString(tlsDir(i).resolve("server.crt")), "server.crt")
        .get(0);
  }
}
