package io.nyala.client.authn;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.nyala.client.master.MasterProxy;
import io.nyala.client.rpc.Transport;
import io.nyala.common.proto.master.MasterServiceGrpc;
import java.util.Set;

/**
 * Puts the current token in the {@code authorization: Bearer} header of every call but those the
 * servers answer without one (Authenticate and finding the leader master), and drops a token a
 * server refused so that the retry gets a fresh one (docs/architecture.md, "Who may call
 * what"): one any server said had expired, and one a tablet server refused otherwise (signed by
 * a key it does not know). A master's refusal for an unknown key only says that master does not
 * lead (the client tries the next), so it keeps the token.
 */
public final class TokenAttacher implements ClientInterceptor {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Set<String> OPEN = Set.of(
      MasterServiceGrpc.getAuthenticateMethod().getFullMethodName(),
      MasterServiceGrpc.getListMastersMethod().getFullMethodName(),
      MasterServiceGrpc.getGetMasterRegistrationMethod().getFullMethodName());

  private final TokenAuthenticator tokens;

  /**
   * Makes {@code transport} attach tokens got with {@code credentials}; nothing when they are
   * null (an anonymous client).
   *
   * @param credentials the user's, or null
   * @param masters finds the leader master, which signs tokens
   * @param transport the client's transport, before its first call
   * @param timeoutMs how long one authentication may take
   */
  public static void install(UserCredentials credentials, MasterProxy masters,
      Transport transport, long timeoutMs) {
    if (credentials != null) {
      transport.attach(new TokenAttacher(new TokenAuthenticator(credentials, masters, transport,
          timeoutMs, System::currentTimeMillis)));
    }
  }

  /** @param tokens where the current token comes from */
  public TokenAttacher(TokenAuthenticator tokens) {
    this.tokens = tokens;
  }

  @Override
  public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method,
      CallOptions options, Channel next) {
    if (OPEN.contains(method.getFullMethodName())) {
      return next.newCall(method, options);
    }
    boolean toMaster = MasterServiceGrpc.SERVICE_NAME.equals(method.getServiceName());
    return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<A> listener, Metadata headers) {
        String token = tokens.currentToken();
        headers.put(AUTHORIZATION, "Bearer " + token);
        super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(
            listener) {
          @Override
          public void onClose(Status status, Metadata trailers) {
            if (isExpiredAnswer(status)
                || (!toMaster && status.getCode() == Status.Code.UNAUTHENTICATED)) {
              tokens.expired(token);
            }
            super.onClose(status, trailers);
          }
        }, headers);
      }
    };
  }

  /** Whether a server refused a call because its token expired: renewing helps. */
  public static boolean isExpiredAnswer(Status status) {
    String d = status.getDescription();
    return status.getCode() == Status.Code.UNAUTHENTICATED && d != null
        && d.contains("expired at");
  }
}
