package io.nyala.common.rpc;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** A gRPC marshaller of raw bytes, for tests that send what no stub would (damaged requests). */
public final class RawBytes implements MethodDescriptor.Marshaller<byte[]> {
  public static final RawBytes MARSHALLER = new RawBytes();

  private RawBytes() {}

  @Override
  public InputStream stream(byte[] value) {
    return new ByteArrayInputStream(value);
  }

  @Override
  public byte[] parse(InputStream stream) {
    try {
      return stream.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code method} with both messages as raw bytes. */
  public static MethodDescriptor<byte[], byte[]> of(MethodDescriptor<?, ?> method) {
    return method.toBuilder(MARSHALLER, MARSHALLER).build();
  }
}
