package io.nyala.master.catalog;

import com.google.protobuf.ByteString;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysCertAuthorityPB;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.WrappedKey;
import io.nyala.common.security.pki.CertificateAuthority;
import io.nyala.common.security.pki.EcKeys;
import io.nyala.common.security.pki.Pem;
import java.io.ByteArrayInputStream;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's internal CA kept in the sys catalog (docs/architecture.md, "TLS and the internal
 * CA"): its certificate, and its private key wrapped by the cluster key (as the token signing
 * keys are; stored as is, version 0, in a cluster without a cluster key, whose catalog lies on
 * disk in the clear anyway). A new leader's barrier entry carries the CA when none is stored:
 * the operator's, when {@code --tls_ca_key_file} imports it, else a new one; so a leader that
 * serves always has one, and every later leader (a failover, a restart) signs with the same.
 *
 * <p>Thread-safe: the decoded CA is cached in a volatile pair keyed by its catalog record.
 */
public final class CatalogCertAuthority {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogCertAuthority.class);
  /** The validity of a CA this master makes: Kudu's, ten years. */
  static final Duration CA_VALIDITY = Duration.ofDays(3650);

  private final SysCatalog catalog;
  private final KeyProvider keys;
  /** The operator's CA ({@code --tls_ca_key_file}), or null. */
  private final CertificateAuthority imported;
  /** Whether a leader makes a CA when none is stored (the master speaks TLS). */
  private final boolean make;
  private final Clock clock;
  private volatile Cached cached;
  /** The stored record whose rewrap failure was logged; only the leader's ticker writes it. */
  private volatile SysCertAuthorityPB rewrapFailureLogged;

  private record Cached(SysCertAuthorityPB record, CertificateAuthority ca) {}

  /**
   * @param keys wraps the CA key; null when the cluster does not encrypt at rest
   * @param imported the operator's CA to store (replacing another), or null to make one once
   * @param make whether to make a CA when none is stored and none is imported: only a master
   *     that speaks TLS does, so a plaintext cluster pays nothing for a CA it cannot use (its
   *     first leader with TLS makes it)
   */
  public CatalogCertAuthority(SysCatalog catalog, KeyProvider keys,
      CertificateAuthority imported, boolean make, Clock clock) {
    this.catalog = catalog;
    this.keys = keys;
    this.imported = imported;
    this.make = make;
    this.clock = clock;
  }

  /**
   * What a new leader's barrier entry adds for the CA of cluster {@code clusterId}: nothing when
   * the stored CA is the one wanted; the imported CA when it is not stored; else, when no CA is
   * stored, a new one. Never unwraps the stored key, so a damaged record cannot stop a leader.
   */
  public List<SysCatalogOpPB> barrierOps(String clusterId) {
    try {
      return opsFor(clusterId);
    } catch (RuntimeException e) {
      // A CA that cannot be made or stored must not stop the catalog from serving.
      LOG.error("cannot store the internal CA in the sys catalog: {}", e.getMessage());
      return List.of();
    }
  }

  private List<SysCatalogOpPB> opsFor(String clusterId) {
    SysCertAuthorityPB stored = catalog.read(CatalogState::certAuthority);
    if (imported != null) {
      ByteString want = der(imported.certificate());
      if (stored != null && stored.getCertificateDer().equals(want)) {
        return List.of();
      }
      if (stored != null) {
        LOG.warn("--tls_ca_key_file: replacing the catalog's CA '{}' by the operator's '{}'",
            subject(stored), imported.certificate().getSubjectX500Principal().getName());
      }
      return List.of(op(record(imported, keys, true)));
    }
    if (stored != null || !make) {
      return List.of();
    }
    CertificateAuthority made = CertificateAuthority.create(clusterId, CA_VALIDITY, clock);
    LOG.info("made the cluster's internal CA {}", made);
    return List.of(op(record(made, keys, false)));
  }

  private static SysCatalogOpPB op(SysCertAuthorityPB r) {
    return SysCatalogOpPB.newBuilder().setPutCertAuthority(r).build();
  }

  /**
   * The stored CA, its key unwrapped.
   *
   * @throws NyalaException SERVICE_UNAVAILABLE before a leader stored one; CORRUPTION naming the
   *     CA and the cluster key version when its key does not unwrap
   */
  public CertificateAuthority current() {
    SysCertAuthorityPB stored = catalog.read(CatalogState::certAuthority);
    if (stored == null) {
      throw NyalaException.unavailable("the sys catalog holds no CA yet (no leader has served); "
          + "retry");
    }
    Cached c = cached;
    if (c != null && c.record() == stored) {
      return c.ca();
    }
    CertificateAuthority ca = unwrap(stored, keys, clock);
    cached = new Cached(stored, ca);
    return ca;
  }

  /**
   * Wraps the stored CA's key again under the provider's current cluster key version when it is
   * under an older one (docs/encryption.md, "Rotating the cluster key"), so that retiring the
   * old version never loses the CA. The leader's ticker calls it; only the leader's write
   * succeeds, and a failed one is tried on the next tick.
   */
  public void rewrapIfBehind() {
    SysCertAuthorityPB stored = catalog.read(CatalogState::certAuthority);
    if (keys == null || stored == null
        || stored.getPrivateKeyVersion() == keys.currentVersion()) {
      return;
    }
    try {
      // The same certificate: applied as a rewrap, never as another CA.
      catalog.writeSync(SysCatalogBatchPB.newBuilder()
          .addOps(op(record(current(), keys, stored.getImported()))).build());
    } catch (RuntimeException e) {
      // Tried again every tick: log once per stored record, not ten times a second.
      if (rewrapFailureLogged != stored) {
        rewrapFailureLogged = stored;
        LOG.warn("cannot wrap the internal CA's key again under cluster key version {}: {}",
            keys.currentVersion(), e.getMessage());
      }
      return;
    }
    LOG.info("the internal CA's key wrapped again under cluster key version {} (was {})",
        keys.currentVersion(), stored.getPrivateKeyVersion());
  }

  /** The stored CA's certificate, or null; no key is unwrapped. */
  public X509Certificate certificate() {
    SysCertAuthorityPB stored = catalog.read(CatalogState::certAuthority);
    return stored == null ? null : parse(stored.getCertificateDer());
  }

  /** The catalog record of {@code ca}: key wrapped under the current cluster key, or as is. */
  static SysCertAuthorityPB record(CertificateAuthority ca, KeyProvider keys,
      boolean imported) {
    byte[] scalar = EcKeys.privateScalar(ca.privateKey());
    try {
      SysCertAuthorityPB.Builder b = SysCertAuthorityPB.newBuilder()
          .setCertificateDer(der(ca.certificate())).setImported(imported);
      if (keys == null) {
        return b.setWrappedPrivateKey(ByteString.copyFrom(scalar))
            .setPrivateKeyVersion(CatalogTokenKeys.UNWRAPPED).build();
      }
      WrappedKey w = keys.wrapServerKey(KeyMaterial.of(scalar));
      return b.setWrappedPrivateKey(ByteString.copyFrom(w.wrapped()))
          .setPrivateKeyVersion(w.clusterKeyVersion()).build();
    } finally {
      Arrays.fill(scalar, (byte) 0);
    }
  }

  /**
   * The CA of a catalog record.
   *
   * @throws NyalaException CORRUPTION naming the CA and cluster key version of a record that
   *     does not unwrap or does not make up a CA
   */
  static CertificateAuthority unwrap(SysCertAuthorityPB r, KeyProvider keys, Clock clock) {
    String what = "CA '" + subject(r) + "'";
    int version = r.getPrivateKeyVersion();
    byte[] scalar;
    if (version == CatalogTokenKeys.UNWRAPPED && keys == null) {
      scalar = r.getWrappedPrivateKey().toByteArray();
    } else if (version == CatalogTokenKeys.UNWRAPPED) {
      throw NyalaException.corruption("%s in the sys catalog is stored unwrapped, but this "
          + "cluster encrypts at rest: its key is always wrapped", what);
    } else if (keys == null) {
      throw NyalaException.corruption("%s in the sys catalog is wrapped by cluster key version "
          + "%d, but this master has no cluster key (--encrypt_data_at_rest)", what, version);
    } else {
      try {
        scalar = keys.unwrapServerKey(new WrappedKey(version,
            r.getWrappedPrivateKey().toByteArray()), what).bytes();
      } catch (NyalaException e) {
        throw NyalaException.corruption("%s in the sys catalog does not unwrap with cluster key "
            + "version %d: %s", what, version, e.detail());
      }
    }
    try {
      X509Certificate cert = parse(r.getCertificateDer());
      PrivateKey key = EcKeys.privateKey(scalar, cert.getPublicKey());
      return CertificateAuthority.restore(key, cert, clock);
    } catch (NyalaException e) {
      throw NyalaException.corruption("%s in the sys catalog: %s", what, e.detail());
    } finally {
      Arrays.fill(scalar, (byte) 0);
    }
  }

  private static String subject(SysCertAuthorityPB r) {
    try {
      return parse(r.getCertificateDer()).getSubjectX500Principal().getName();
    } catch (NyalaException e) {
      return "(unreadable certificate)";
    }
  }

  static X509Certificate parse(ByteString der) {
    try {
      return (X509Certificate) CertificateFactory.getInstance("X.509")
          .generateCertificate(new ByteArrayInputStream(der.toByteArray()));
    } catch (CertificateException e) {
      throw NyalaException.corruption("the CA certificate in the sys catalog does not parse: %s",
          e.getMessage());
    }
  }

  private static ByteString der(X509Certificate c) {
    try {
      return ByteString.copyFrom(c.getEncoded());
    } catch (CertificateEncodingException e) {
      throw NyalaException.invalidArgument("cannot encode certificate '%s': %s",
          c.getSubjectX500Principal().getName(), e.getMessage());
    }
  }

  /** The PEM of the stored CA's certificate, for pages and tools; null if none. */
  public String certificatePem() {
    X509Certificate c = certificate();
    return c == null ? null : Pem.encode(c);
  }
}
