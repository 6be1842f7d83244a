package io.nyala.common.rpc;

import io.grpc.stub.StreamObserver;
import io.nyala.common.NyalaException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The response observer of a unary gRPC call made from a server or a tool: completes a future
 * with the one response, or fails it. A call the peer ends without a response fails with
 * SERVICE_UNAVAILABLE naming the peer, so that no caller waits on a future nothing completes.
 */
public final class UnaryObserver<T> implements StreamObserver<T> {
  private final CompletableFuture<T> result;
  private final String peer;
  private final Function<Throwable, ? extends Throwable> onError;

  private UnaryObserver(CompletableFuture<T> result, String peer,
      Function<Throwable, ? extends Throwable> onError) {
    this.result = result;
    this.peer = peer;
    this.onError = onError;
  }

  /** Completes {@code result}; a transport failure fails it as gRPC reported it. */
  public static <T> UnaryObserver<T> completing(CompletableFuture<T> result, String peer) {
    return new UnaryObserver<>(result, peer, Function.identity());
  }

  /** As {@link #completing(CompletableFuture, String)}, failures mapped by {@code onError}. */
  public static <T> UnaryObserver<T> completing(CompletableFuture<T> result, String peer,
      Function<Throwable, ? extends Throwable> onError) {
    return new UnaryObserver<>(result, peer, onError);
  }

  @Override
  public void onNext(T value) {
    result.complete(value);
  }

  @Override
  public void onError(Throwable t) {
    result.completeExceptionally(onError.apply(t));
  }

  @Override
  public void onCompleted() {
    // A no-op after onNext; otherwise the peer ended the call without answering.
    result.completeExceptionally(NyalaException.unavailable("%s sent no response", peer));
  }
}
