package io.nyala.common.rpc;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import com.google.protobuf.UnknownFieldSet;
import com.google.protobuf.UnsafeByteOperations;
import io.grpc.ForwardingServerCallListener;
import io.grpc.KnownLength;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import java.io.IOException;
import java.io.InputStream;

/**
 * Parses requests with aliasing: the bytes fields of a parsed message are views of one fresh
 * array holding the request, not copies of it. gRPC's own protobuf marshaller reads a request
 * into a reused thread-local array and so must copy every bytes field out of it; for a Write
 * that was a second copy of the rows before the Raft log write. The array is never reused, so
 * the views stay valid for as long as anything holds them (which keeps the whole request alive:
 * meant for requests that are mostly payload). Responses are serialized as gRPC does.
 */
public final class AliasingMarshaller<T extends Message>
    implements MethodDescriptor.Marshaller<T> {
  private final MethodDescriptor.Marshaller<T> serializer;
  private final Parser<T> parser;
  private final T empty;
  /** The highest field number: marks a request that did not parse (see {@link #parse}). */
  private static final int PARSE_ERROR_FIELD = (1 << 29) - 1;

  @SuppressWarnings("unchecked")
  public AliasingMarshaller(T defaultInstance) {
    this.serializer = ProtoUtils.marshaller(defaultInstance);
    this.parser = (Parser<T>) defaultInstance.getParserForType();
    this.empty = defaultInstance;
  }

  @Override
  public InputStream stream(T value) {
    return serializer.stream(value);
  }

  /**
   * Parses a request; bytes that are no valid message give an empty one marked with the reason
   * ({@link #parseError}), which the handler {@link #forRequests} installs refuses with
   * INVALID_ARGUMENT. Throwing here instead, as gRPC's marshaller does, makes gRPC answer
   * UNKNOWN and log a stack trace per damaged request: a log flood any client could cause.
   */
  @Override
  @SuppressWarnings("unchecked")
  public T parse(InputStream stream) {
    try {
      return parse(readAll(stream));
    } catch (IOException e) {
      String reason = "not a valid " + empty.getDescriptorForType().getName() + ": "
          + e.getMessage();
      return (T) empty.toBuilder().setUnknownFields(UnknownFieldSet.newBuilder()
          .addField(PARSE_ERROR_FIELD, UnknownFieldSet.Field.newBuilder()
              .addLengthDelimited(com.google.protobuf.ByteString.copyFromUtf8(reason)).build())
          .build()).build();
    }
  }

  /** Why {@code request} could not be parsed, or null if it was. */
  public static String parseError(Message request) {
    UnknownFieldSet.Field f = request.getUnknownFields().getField(PARSE_ERROR_FIELD);
    return f.getLengthDelimitedList().isEmpty() ? null
        : f.getLengthDelimitedList().get(0).toStringUtf8();
  }

  /** Parses {@code request}, which the result's bytes fields alias: it must not change later. */
  T parse(byte[] request) throws InvalidProtocolBufferException {
    return request.length == 0 ? empty : parseAliased(parser, request);
  }

  /**
   * A message parsed from {@code bytes} whose bytes fields are views of that array, not copies:
   * the caller must never change the array afterwards.
   */
  public static <M> M parseAliased(Parser<M> parser, byte[] bytes)
      throws InvalidProtocolBufferException {
    // Through a wrapping ByteString: only a stream over an array marked immutable aliases.
    CodedInputStream in = UnsafeByteOperations.unsafeWrap(bytes).newCodedInput();
    in.enableAliasing(true);
    M msg = parser.parseFrom(in, ExtensionRegistryLite.getEmptyRegistry());
    in.checkLastTagWas(0);
    return msg;
  }

  /** The whole stream in an array of its own: the one copy out of the transport's buffers. */
  private static byte[] readAll(InputStream stream) throws IOException {
    if (!(stream instanceof KnownLength)) {
      return stream.readAllBytes();
    }
    byte[] buf = new byte[stream.available()];
    int n = 0;
    while (n < buf.length) {
      int r = stream.read(buf, n, buf.length - n);
      if (r < 0) {
        throw new IOException("request ended after " + n + " of " + buf.length + " bytes");
      }
      n += r;
    }
    if (stream.read() >= 0) {
      throw new IOException("request longer than the " + buf.length + " bytes announced");
    }
    return buf;
  }

  /**
   * {@code def} with the requests of {@code method} parsed by an aliasing marshaller; its other
   * methods and every handler unchanged.
   */
  public static <Q extends Message, R> ServerServiceDefinition forRequests(
      ServerServiceDefinition def, MethodDescriptor<Q, R> method, Q defaultInstance) {
    MethodDescriptor<Q, R> aliased = method.toBuilder(new AliasingMarshaller<>(defaultInstance),
        method.getResponseMarshaller()).build();
    return MethodOverride.replace(def, aliased,
        refusingUnparsable(handlerOf(MethodOverride.find(def, method), method)));
  }

  /** {@code handler}, but a request that did not parse is answered INVALID_ARGUMENT. */
  private static <Q extends Message, R> ServerCallHandler<Q, R> refusingUnparsable(
      ServerCallHandler<Q, R> handler) {
    return (call, headers) -> new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
        handler.startCall(call, headers)) {
      private boolean refused;

      @Override
      public void onMessage(Q message) {
        String error = parseError(message);
        if (error == null) {
          super.onMessage(message);
        } else if (!refused) {
          refused = true;
          call.close(Status.INVALID_ARGUMENT.withDescription(error), new Metadata());
        }
      }

      @Override
      public void onHalfClose() {
        if (!refused) {
          super.onHalfClose();
        }
      }
    };
  }

  /** The handler of {@code m}, which serves {@code method}: the same types by construction. */
  @SuppressWarnings("unchecked")
  private static <Q, R> ServerCallHandler<Q, R> handlerOf(ServerMethodDefinition<?, ?> m,
      MethodDescriptor<Q, R> method) {
    return (ServerCallHandler<Q, R>) m.getServerCallHandler();
  }
}
