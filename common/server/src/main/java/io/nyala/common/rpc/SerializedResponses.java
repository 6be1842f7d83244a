package io.nyala.common.rpc;

import com.google.protobuf.ByteString;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Objects;

/**
 * Serves a method whose handler answers with bytes serialized before the call rather than with
 * a message: an answer many calls share (a cached one) is serialized once, not once per call
 * (docs/performance.md, "Locations over RPC"). The bytes must be what serializing the method's
 * response message gives; clients keep the generated stub and parse them as that message, so
 * the wire does not change. gRPC copies them once, into its transport buffer.
 */
public final class SerializedResponses {
  /** Writes a response's bytes as they are; reads any as bytes (clients of tests). */
  public static final MethodDescriptor.Marshaller<ByteString> MARSHALLER =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(ByteString value) {
          return new BytesStream(value);
        }

        @Override
        public ByteString parse(InputStream stream) {
          try {
            return ByteString.readFrom(stream);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  private SerializedResponses() {}

  /**
   * {@code def} with {@code method} served by {@code handler}, whose responses are serialized
   * {@code R} messages; its requests parsed as before, its other methods unchanged.
   *
   * @throws IllegalArgumentException if {@code def} does not serve {@code method}
   */
  public static <Q, R> ServerServiceDefinition serve(ServerServiceDefinition def,
      MethodDescriptor<Q, R> method, ServerCallHandler<Q, ByteString> handler) {
    return MethodOverride.replace(def,
        method.toBuilder(method.getRequestMarshaller(), MARSHALLER).build(), handler);
  }

  /**
   * A response's bytes as gRPC reads them: their length known up front (so gRPC sizes its
   * buffer once), drained into the transport in one write instead of through a copy buffer.
   */
  static final class BytesStream extends InputStream implements Drainable, KnownLength {
    private final ByteString bytes;
    private int pos;

    BytesStream(ByteString bytes) {
      this.bytes = bytes;
    }

    @Override
    public int drainTo(OutputStream target) throws IOException {
      int n = bytes.size() - pos;
      bytes.substring(pos).writeTo(target);
      pos = bytes.size();
      return n;
    }

    @Override
    public int available() {
      return bytes.size() - pos;
    }

    @Override
    public int read() {
      return pos < bytes.size() ? bytes.byteAt(pos++) & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      Objects.checkFromIndexSize(off, len, b.length);
      if (len == 0) {
        return 0;
      }
      int n = Math.min(len, bytes.size() - pos);
      if (n <= 0) {
        return -1;
      }
      bytes.copyTo(b, pos, off, n);
      pos += n;
      return n;
    }
  }
}
