package io.nyala.common.security.pki;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.nyala.common.NyalaException;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;

/**
 * TLS settings made from a server's {@link ServerCredentials} and the cluster CA it trusts: the
 * Netty contexts of Nyala's own gRPC server and channels, and Ratis' {@link GrpcTlsConfig}
 * (mutual TLS between Raft peers). A peer is trusted if the CA issued its certificate; the
 * client side also checks that the certificate names the address it dialled, which is why a
 * {@link Csr} lists every address a server is reached at.
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

  private TlsContexts() {}

  /** The context of a Nyala gRPC server presenting {@code own}. */
  public static SslContext forServer(ServerCredentials own, X509Certificate trustedCa,
      ClientAuth clientAuth) {
    SslContextBuilder b = GrpcSslContexts.configure(
        SslContextBuilder.forServer(own.privateKey(), chain(own)))
        .trustManager(trustedCa)
        .clientAuth(switch (clientAuth) {
          case NONE -> io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth.NONE;
          case OPTIONAL -> io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth.OPTIONAL;
          case REQUIRE -> io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth.REQUIRE;
        });
    return build(b, "server " + own);
  }

  /** The context of a channel that trusts {@code trustedCa} and presents no certificate. */
  public static SslContext forClient(X509Certificate trustedCa) {
    return build(GrpcSslContexts.forClient().trustManager(trustedCa), "client of "
        + trustedCa.getSubjectX500Principal().getName());
  }

  /** The context of a channel that trusts {@code trustedCa} and presents {@code own}. */
  public static SslContext forClient(X509Certificate trustedCa, ServerCredentials own) {
    return build(GrpcSslContexts.forClient().trustManager(trustedCa)
        .keyManager(own.privateKey(), chain(own)), "client " + own);
  }

  /**
   * The JDK's TLS context of an HTTPS listener presenting {@code own} (the web server's, with
   * {@code --webserver_tls}); browsers and {@code curl} check it against the cluster's CA.
   */
  public static SSLContext forHttps(ServerCredentials own) {
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      char[] none = new char[0];
      ks.setKeyEntry("server", own.privateKey(), none,
          own.chain().toArray(new Certificate[0]));
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(
          KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, none);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(kmf.getKeyManagers(), null, null);
      return ctx;
    } catch (GeneralSecurityException | IOException e) {
      throw NyalaException.invalidArgument("cannot make an HTTPS context of %s: %s", own, e);
    }
  }

  /**
   * Ratis' TLS of a server presenting {@code own}, trusting only {@code trustedCa}, with mutual
   * TLS: every Raft peer (and every Ratis client) must present a certificate of the CA.
   */
  public static GrpcTlsConfig forRatis(ServerCredentials own, X509Certificate trustedCa) {
    return new GrpcTlsConfig(own.privateKey(), own.leaf(), List.of(trustedCa), true);
  }

  /**
   * Sets {@code tls} on the parameters of a Ratis server or client. It is Ratis' default TLS
   * configuration, so it covers the server-to-server, client and admin connections alike.
   */
  public static void applyToRatis(Parameters parameters, GrpcTlsConfig tls) {
    GrpcConfigKeys.TLS.setConf(parameters, tls);
  }

  private static X509Certificate[] chain(ServerCredentials own) {
    return own.chain().toArray(new X509Certificate[0]);
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
