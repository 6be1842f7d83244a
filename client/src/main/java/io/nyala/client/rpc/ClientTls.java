package io.nyala.client.rpc;

import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * The client's TLS (docs/architecture.md, "TLS on the wire"): channels that trust the cluster's
 * CA, read from a PEM file with the JDK's {@link CertificateFactory}, and present no certificate.
 * Also turns a failed handshake into an error that says so, rather than a bare "unreachable".
 */
public final class ClientTls {
  /** How gRPC describes a connection the server closed before HTTP/2 was set up. */
  private static final String CLOSED = "Network closed for unknown reason";

  private final Path caFile;
  private final SslContext context;

  private ClientTls(Path caFile, SslContext context) {
    this.caFile = caFile;
    this.context = context;
  }

  /**
   * TLS trusting the CA certificate(s) in {@code caFile}.
   *
   * @param caFile a PEM file of one or more CA certificates
   * @return the settings
   * @throws NyalaException NOT_FOUND if the file is missing, INVALID_ARGUMENT naming the file if
   *     it holds no X.509 certificate
   */
  public static ClientTls trusting(Path caFile) {
    List<X509Certificate> cas = new ArrayList<>();
    try (InputStream in = Files.newInputStream(caFile)) {
      Collection<? extends java.security.cert.Certificate> certs =
          CertificateFactory.getInstance("X.509").generateCertificates(in);
      for (java.security.cert.Certificate c : certs) {
        cas.add((X509Certificate) c);
      }
    } catch (NoSuchFileException e) {
      throw NyalaException.notFound("trusted CA file %s does not exist", caFile);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot read trusted CA file " + caFile + ": " + e, e);
    } catch (CertificateException e) {
      throw NyalaException.invalidArgument("trusted CA file %s is not a PEM certificate: %s",
          caFile, e.getMessage());
    }
    if (cas.isEmpty()) {
      throw NyalaException.invalidArgument("trusted CA file %s holds no certificate", caFile);
    }
    try {
      return new ClientTls(caFile, GrpcSslContexts.forClient()
          .trustManager(cas.toArray(new X509Certificate[0])).build());
    } catch (SSLException | RuntimeException e) {
      throw NyalaException.invalidArgument("cannot build a TLS context trusting %s: %s", caFile,
          e.getMessage());
    }
  }

  /** @return the context of the client's channels */
  public SslContext context() {
    return context;
  }

  /**
   * The error of a call to {@code server} that failed in the TLS handshake, or null if
   * {@code t} is something else.
   *
   * @param tls the client's TLS, or null when it runs plaintext
   * @param server the address called
   * @param t what the call failed with
   * @return a RUNTIME_ERROR naming the server and the CA file, not to be retried: the same
   *     certificates fail the same way
   */
  static NyalaException handshakeFailure(ClientTls tls, HostPort server, Throwable t) {
    SSLException ssl = null;
    for (Throwable c = t; c != null && ssl == null; c = c.getCause()) {
      if (c instanceof SSLException s) {
        ssl = s;
      }
    }
    if (ssl == null) {
      return null;
    }
    String trust = tls == null ? "the client runs plaintext (no trusted CA file)"
        : "the client trusts only the CA of " + tls.caFile;
    return new NyalaException(StatusCode.RUNTIME_ERROR, String.format("TLS handshake with %s "
        + "failed: its certificate is not valid for this cluster or address (%s): %s", server,
        trust, ssl.getMessage()), t);
  }

  /**
   * {@code t}, with a hint added when a plaintext client's connection was closed or reset by the
   * server before any answer: what a server that requires TLS does to it (which of the two the
   * client sees depends on timing). A refused connection gets no hint. Still a gRPC failure, so
   * it is retried as any unreachable server is (a server going down closes connections too).
   *
   * @param tls the client's TLS, or null when it runs plaintext
   * @param t what the call failed with
   * @return {@code t}, or a gRPC UNAVAILABLE with the hint and {@code t} as its cause
   */
  static Throwable hintIfPlaintextRefused(ClientTls tls, Throwable t) {
    Status s = Status.fromThrowable(t);
    if (tls != null || s.getCode() != Status.Code.UNAVAILABLE
        || !(closedEarly(s) || resetByPeer(t))) {
      return t;
    }
    return Status.UNAVAILABLE.withDescription(s.getDescription() + " (a server that requires "
        + "TLS closes plaintext connections: if the cluster runs --rpc_encryption, build the "
        + "client with trustedCaFile, or with clientConfig and the file NYALA_CLIENT_CONFIG "
        + "names, which bin/nyala local-cluster prints)").withCause(t).asRuntimeException();
  }

  private static boolean closedEarly(Status s) {
    return s.getDescription() != null && s.getDescription().startsWith(CLOSED);
  }

  /**
   * A connection that was made and then broken by the other side ("Connection reset", "Broken
   * pipe"): an I/O error among the causes that is not one of failing to connect at all.
   */
  private static boolean resetByPeer(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof java.net.ConnectException || c instanceof java.net.NoRouteToHostException
          || c instanceof java.net.UnknownHostException) {
        return false;
      }
      if (c instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "TLS trusting " + caFile;
  }
}
