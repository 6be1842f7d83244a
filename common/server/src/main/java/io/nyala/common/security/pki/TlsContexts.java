package io.nyala.common.security.pki;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.OpenSslSessionContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.OpenSslSessionTicketKey;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.nyala.common.NyalaException;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.Collections;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;

/**
 * TLS settings made from a server's {@link ServerCredentials} and the cluster CA it trusts: the
 * Netty contexts of Nyala's own gRPC server and channels, and Ratis' {@link GrpcTlsConfig}
 * (mutual TLS between Raft peers). A peer is trusted if the CA issued its certificate; the
 * client side also checks that the certificate names the address it dialled, which is why a
 * {@link Csr} lists every address a server is reached at. Every context presents its
 * certificate through a {@link SwappableKeyManager}, asked at each handshake: a server that
 * renews its certificate while it runs swaps it there and keeps its contexts.
 */
public final class TlsContexts {
  /** Whether a server asks connecting clients for a certificate (Kudu's rpc_authentication). */
  public enum ClientAuth {
    /** Never asks: any client that trusts the CA may connect. */
    NONE,
    /** Asks, and verifies a certificate that is presented; a client without one connects. */
    OPTIONAL,
    /** Refuses a client that presents no certificate issued by the CA. */
    REQUIRE
  }

  private static final SecureRandom RANDOM = new SecureRandom();

  private TlsContexts() {}

  /** The context of a Nyala gRPC server presenting {@code own}. */
  public static SslContext forServer(ServerCredentials own, X509Certificate trustedCa,
      ClientAuth clientAuth) {
    return forServer(new SwappableKeyManager(own), trustedCa, clientAuth);
  }

  /**
   * The context of a Nyala gRPC server presenting what {@code keys} holds at each handshake, so
   * a certificate swapped in while the server runs is presented to the connections made after
   * it (docs/architecture.md, "TLS and the internal CA").
   */
  public static SslContext forServer(SwappableKeyManager keys, X509Certificate trustedCa,
      ClientAuth clientAuth) {
    SslContextBuilder b = GrpcSslContexts.configure(SslContextBuilder.forServer(keys))
        .trustManager(trustedCa)
        .clientAuth(switch (clientAuth) {
          case NONE -> io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth.NONE;
          case OPTIONAL -> io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth.OPTIONAL;
          case REQUIRE -> io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth.REQUIRE;
        });
    return forgettingSessionsOnSwap(build(b, "server " + keys.current()), keys);
  }

  /** The context of a channel that trusts {@code trustedCa} and presents no certificate. */
  public static SslContext forClient(X509Certificate trustedCa) {
    return build(GrpcSslContexts.forClient().trustManager(trustedCa), "client of "
        + trustedCa.getSubjectX500Principal().getName());
  }

  /** The context of a channel that trusts {@code trustedCa} and presents {@code own}. */
  public static SslContext forClient(X509Certificate trustedCa, ServerCredentials own) {
    return forClient(trustedCa, new SwappableKeyManager(own));
  }

  /**
   * The context of a channel that trusts {@code trustedCa} and presents what {@code keys} holds
   * at each handshake: a server's channels reconnect with a certificate swapped in meanwhile.
   */
  public static SslContext forClient(X509Certificate trustedCa, SwappableKeyManager keys) {
    return forgettingSessionsOnSwap(build(GrpcSslContexts.forClient().trustManager(trustedCa)
        .keyManager(keys), "client " + keys.current()), keys);
  }

  /**
   * {@code ctx}, made to forget its TLS sessions whenever {@code keys} swaps: a resumed session
   * skips the certificates, so a reconnection resuming a session of the old certificate would
   * go on with it (as the peer sees it) instead of presenting the new one. Ratis builds its own
   * contexts, out of reach: its reconnections may resume a session of the old certificate until
   * that session times out (it proves the same server the old certificate did).
   */
  private static SslContext forgettingSessionsOnSwap(SslContext ctx, SwappableKeyManager keys) {
    keys.onSwap(() -> forgetSessions(ctx.sessionContext()));
    return ctx;
  }

  private static void forgetSessions(SSLSessionContext sessions) {
    if (sessions instanceof OpenSslSessionContext openSsl) {
      // Disabling clears Netty's cache (BoringSSL's own is off); then it caches anew. A server
      // resumes TLS 1.3 sessions from tickets, sealed by its ticket keys: new keys make the
      // tickets handed out so far useless.
      openSsl.setSessionCacheEnabled(false);
      openSsl.setSessionCacheEnabled(true);
      openSsl.setTicketKeys(newTicketKey());
      return;
    }
    for (byte[] id : Collections.list(sessions.getIds())) {
      SSLSession s = sessions.getSession(id);
      if (s != null) {
        s.invalidate();
      }
    }
  }

  /**
   * The JDK's TLS context of an HTTPS listener presenting {@code own} (the web server's, with
   * {@code --webserver_tls}); browsers and {@code curl} check it against the cluster's CA.
   */
  public static SSLContext forHttps(ServerCredentials own) {
    return forHttps(new SwappableKeyManager(own));
  }

  /** {@link #forHttps(ServerCredentials)} presenting what {@code keys} holds at each handshake. */
  public static SSLContext forHttps(SwappableKeyManager keys) {
    try {
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(new KeyManager[] {keys}, null, null);
      keys.onSwap(() -> forgetSessions(ctx.getServerSessionContext()));
      return ctx;
    } catch (GeneralSecurityException e) {
      throw NyalaException.invalidArgument("cannot make an HTTPS context of %s: %s",
          keys.current(), e);
    }
  }

  /**
   * Ratis' TLS of a server presenting {@code own}, trusting only {@code trustedCa}, with mutual
   * TLS: every Raft peer (and every Ratis client) must present a certificate of the CA.
   */
  public static GrpcTlsConfig forRatis(ServerCredentials own, X509Certificate trustedCa) {
    return forRatis(new SwappableKeyManager(own), trustedCa);
  }

  /**
   * {@link #forRatis(ServerCredentials, X509Certificate)} presenting what {@code keys} holds at
   * each handshake. Ratis builds its Netty contexts once, when its server (or client) starts,
   * from the key manager given here, and its handshakes ask that key manager, so Raft
   * connections made after a swap present the new certificate.
   */
  public static GrpcTlsConfig forRatis(SwappableKeyManager keys, X509Certificate trustedCa) {
    return new GrpcTlsConfig(keys, trustManager(trustedCa), true);
  }

  /**
   * The JDK's PKIX trust manager trusting {@code trustedCa} alone: it checks a peer's chain, and
   * on a client's side the name dialled against the certificate's subjectAltNames when the TLS
   * stack asks for endpoint identification (gRPC does).
   */
  public static X509ExtendedTrustManager trustManager(X509Certificate trustedCa) {
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      ks.setCertificateEntry("ca", trustedCa);
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(
          TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      for (TrustManager tm : tmf.getTrustManagers()) {
        if (tm instanceof X509ExtendedTrustManager x) {
          return x;
        }
      }
      throw new GeneralSecurityException("no X.509 trust manager");
    } catch (GeneralSecurityException | IOException e) {
      throw NyalaException.invalidArgument("cannot make a trust manager of CA '%s': %s",
          trustedCa.getSubjectX500Principal().getName(), e);
    }
  }

  /**
   * Sets {@code tls} on the parameters of a Ratis server or client. It is Ratis' default TLS
   * configuration, so it covers the server-to-server, client and admin connections alike.
   */
  public static void applyToRatis(Parameters parameters, GrpcTlsConfig tls) {
    GrpcConfigKeys.TLS.setConf(parameters, tls);
  }

  private static OpenSslSessionTicketKey newTicketKey() {
    byte[] name = new byte[OpenSslSessionTicketKey.NAME_SIZE];
    byte[] hmac = new byte[OpenSslSessionTicketKey.HMAC_KEY_SIZE];
    byte[] aes = new byte[OpenSslSessionTicketKey.AES_KEY_SIZE];
    RANDOM.nextBytes(name);
    RANDOM.nextBytes(hmac);
    RANDOM.nextBytes(aes);
    return new OpenSslSessionTicketKey(name, hmac, aes);
  }

  private static SslContext build(SslContextBuilder b, String what) {
    try {
      return b.build();
    } catch (SSLException | RuntimeException e) {
      throw NyalaException.invalidArgument("cannot build the TLS context of %s: %s", what,
          e.getMessage());
    }
  }
}
