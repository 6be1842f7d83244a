package io.nyala.common.rpc;

import io.grpc.stub.StreamObserver;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.ErrorPB;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Service-side helpers: run a handler, turn any failure into the response's {@code error} field,
 * and never let a client's bad input escape as an uncaught exception.
 */
public final class Rpcs {
  private static final Logger LOG = LoggerFactory.getLogger(Rpcs.class);

  private Rpcs() {}

  /** Runs {@code body}; on failure answers {@code onError(error)} instead. */
  public static <T> void respond(
      StreamObserver<T> out, Supplier<T> body, Function<ErrorPB, T> onError) {
    T resp;
    try {
      resp = body.get();
    } catch (Throwable t) {
      resp = onError.apply(toError(t));
    }
    out.onNext(resp);
    out.onCompleted();
  }

  /** As {@link #respond} for handlers that complete later. */
  public static <T> void respondAsync(StreamObserver<T> out,
      Supplier<CompletableFuture<T>> body, Function<ErrorPB, T> onError) {
    CompletableFuture<T> f;
    try {
      f = body.get();
    } catch (Throwable t) {
      out.onNext(onError.apply(toError(t)));
      out.onCompleted();
      return;
    }
    f.whenComplete((resp, t) -> {
      try {
        out.onNext(t == null ? resp : onError.apply(toError(t)));
        out.onCompleted();
      } catch (RuntimeException e) {
        // The call was cancelled (client gone); nothing to answer.
        LOG.debug("could not send response", e);
      }
    });
  }

  /** The wire error for a failure; unexpected ones are logged with their stack. */
  public static ErrorPB toError(Throwable t) {
    NyalaException e = NyalaException.from(t);
    if (e.code() == StatusCode.RUNTIME_ERROR) {
      LOG.warn("unexpected error serving a request", t);
    }
    return e.toPb();
  }
}
