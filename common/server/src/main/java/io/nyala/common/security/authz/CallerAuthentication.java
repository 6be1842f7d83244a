package io.nyala.common.security.authz;

import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.security.token.TokenVerifier;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Finds who makes each call and puts it in the call's gRPC {@link Context}, where handlers and
 * {@link RpcAuthorization} read it ({@link Caller#current()}). A caller whose TLS connection
 * presented a certificate is the server the certificate names (its common name, else its first
 * subjectAltName): the server's TLS context trusts only the cluster's CA and refuses a
 * certificate it did not issue during the handshake, so a certificate seen here is one of the
 * CA's. Any other caller that sends a valid authentication token ({@code authorization:
 * Bearer <base64 SignedTokenPB>}, or the binary header {@code nyala-authn-token-bin}) is the
 * user the token names; the rest are anonymous (docs/architecture.md, "Who may call what").
 * Tokens are read only for methods that need more than anyone ({@link RpcPolicy}), so
 * authenticating and finding the leader never fail on a stale token. With
 * {@code --rpc_authentication=required} a token that fails its check closes the call with
 * UNAUTHENTICATED saying why (expired, forged or from another cluster), or with UNAVAILABLE when
 * its signing key is newer than any this server knows yet (retriable); in the other modes such
 * a caller is anonymous.
 */
public final class CallerAuthentication implements ServerInterceptor {
  /** The header a client's token travels in, as {@code Bearer <base64>}. */
  public static final Metadata.Key<String> BEARER =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  /** The same token as raw bytes, for callers that prefer a binary header. */
  public static final Metadata.Key<byte[]> TOKEN_BIN =
      Metadata.Key.of("nyala-authn-token-bin", Metadata.BINARY_BYTE_MARSHALLER);
  /**
   * The uuid a server's calls say they come from (set by its channels, {@code
   * RpcPartitionFilter.callerIdentity}); checked against a certificate that names a uuid.
   */
  public static final Metadata.Key<String> CLAIMED_UUID =
      Metadata.Key.of("nyala-caller-uuid", Metadata.ASCII_STRING_MARSHALLER);
  /** What precedes the base64 token in {@link #BEARER}. */
  public static final String BEARER_PREFIX = "Bearer ";

  private final RpcAuthentication mode;
  /** Null: tokens are never read. */
  private final TokenVerifier tokens;

  /** Identifies servers by certificate only; tokens are ignored. */
  public CallerAuthentication() {
    this(RpcAuthentication.DISABLED, null);
  }

  /**
   * @param mode {@code --rpc_authentication}: whether a bad token is refused
   * @param tokens checks tokens; null to ignore them
   */
  public CallerAuthentication(RpcAuthentication mode, TokenVerifier tokens) {
    this.mode = mode;
    this.tokens = tokens;
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
      ServerCallHandler<Q, A> next) {
    Caller caller = identify(call.getAttributes());
    String method = call.getMethodDescriptor().getFullMethodName();
    String claimed = headers.get(CLAIMED_UUID);
    if (claimed != null && caller.contradicts(claimed)) {
      // A server may act only as the server its certificate names (docs/architecture.md,
      // "Who may call what"); in the other modes it is just not identified.
      if (mode == RpcAuthentication.REQUIRED) {
        call.close(Status.UNAUTHENTICATED.withDescription("the certificate of " + caller
            + " names server '" + caller.name() + "', but the call claims to come from server '"
            + claimed + "'"), new Metadata());
        return new ServerCall.Listener<>() {};
      }
      caller = Caller.anonymous(caller.address());
    }
    if (tokens != null && mode != RpcAuthentication.DISABLED && !caller.isServer()
        && RpcPolicy.required(method) != RpcPolicy.Role.ANYONE) {
      try {
        caller = withToken(caller, headers);
      } catch (NyalaException e) {
        if (mode == RpcAuthentication.REQUIRED) {
          // A key not known here yet is retriable (UNAVAILABLE): clients try again or elsewhere.
          Status refusal = e.code() == StatusCode.SERVICE_UNAVAILABLE ? Status.UNAVAILABLE
              : Status.UNAUTHENTICATED;
          call.close(refusal.withDescription(e.detail()), new Metadata());
          return new ServerCall.Listener<>() {};
        }
      }
    }
    return Contexts.interceptCall(Context.current().withValue(Caller.KEY, caller), call, headers,
        next);
  }

  /** {@code anonymous} as the user its token proves, or unchanged if it sent none. */
  private Caller withToken(Caller anonymous, Metadata headers) {
    byte[] token = headers.get(TOKEN_BIN);
    String bearer = headers.get(BEARER);
    if (token == null && bearer != null && bearer.startsWith(BEARER_PREFIX)) {
      try {
        token = Base64.getDecoder().decode(bearer.substring(BEARER_PREFIX.length()).strip());
      } catch (IllegalArgumentException e) {
        throw NyalaException.notAuthorized("authentication token is not base64: %s",
            e.getMessage());
      }
    }
    if (token == null) {
      return anonymous;
    }
    return Caller.user(tokens.verify(token), anonymous.address());
  }

  /** The caller of a call whose transport has {@code attributes}. */
  static Caller identify(Attributes attributes) {
    String address = address(attributes.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
    SSLSession session = attributes.get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
    X509Certificate leaf = session == null ? null : peerCertificate(session);
    if (leaf == null) {
      return Caller.anonymous(address);
    }
    return Caller.server(serverName(leaf), address);
  }

  private static X509Certificate peerCertificate(SSLSession session) {
    Certificate[] chain;
    try {
      chain = session.getPeerCertificates();
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
    return chain.length > 0 && chain[0] instanceof X509Certificate x ? x : null;
  }

  /** The certificate's common name, else its first subjectAltName, else its whole subject. */
  static String serverName(X509Certificate leaf) {
    String subject = leaf.getSubjectX500Principal().getName();
    String cn = commonName(subject);
    if (cn != null && !cn.isEmpty()) {
      return cn;
    }
    try {
      Collection<List<?>> alt = leaf.getSubjectAlternativeNames();
      if (alt != null && !alt.isEmpty()) {
        return String.valueOf(alt.iterator().next().get(1));
      }
    } catch (CertificateParsingException e) {
      // Falls through to the subject: the name is for messages and logs only.
    }
    return subject;
  }

  /** The CN of an RFC 2253 name, honouring backslash escapes; null if it has none. */
  static String commonName(String rfc2253) {
    int i = 0;
    while (i < rfc2253.length()) {
      StringBuilder rdn = new StringBuilder();
      boolean escaped = false;
      for (; i < rfc2253.length(); i++) {
        char c = rfc2253.charAt(i);
        if (!escaped && (c == ',' || c == '+')) {
          break;
        }
        escaped = !escaped && c == '\\';
        if (!escaped) {
          rdn.append(c);
        }
      }
      i++;
      String s = rdn.toString().strip();
      if (s.regionMatches(true, 0, "CN=", 0, 3)) {
        return s.substring(3);
      }
    }
    return null;
  }

  private static String address(SocketAddress a) {
    if (a instanceof InetSocketAddress in) {
      return in.getHostString() + ":" + in.getPort();
    }
    return a == null ? "unknown address" : a.toString();
  }
}
