package io.nyala.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.proto.tserver.WriteResponsePB;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Responses sent as bytes serialized before the call (docs/performance.md). */
@Timeout(30)
class SerializedResponsesTest {
  private static final ByteString BYTES = WriteResponsePB.newBuilder().setWriteIndex(1L << 40)
      .build().toByteString();

  @Test
  void theStreamHasItsLengthKnownAndDrainsTheBytesAsTheyAre() throws Exception {
    InputStream in = SerializedResponses.MARSHALLER.stream(BYTES);
    assertThat(in).isInstanceOf(KnownLength.class).isInstanceOf(Drainable.class);
    assertThat(in.available()).isEqualTo(BYTES.size());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThat(((Drainable) in).drainTo(out)).isEqualTo(BYTES.size());
    assertThat(out.toByteArray()).isEqualTo(BYTES.toByteArray());
    assertThat(in.available()).isZero();
    assertThat(in.read()).isEqualTo(-1);
  }

  @Test
  void readingPartOfTheStreamLeavesTheRestToDrain() throws Exception {
    InputStream in = SerializedResponses.MARSHALLER.stream(BYTES);
    int first = in.read();
    byte[] two = new byte[2];
    assertThat(in.read(two, 0, 2)).isEqualTo(2);
    ByteArrayOutputStream rest = new ByteArrayOutputStream();
    ((Drainable) in).drainTo(rest);
    ByteString all = ByteString.copyFrom(new byte[] {(byte) first})
        .concat(ByteString.copyFrom(two)).concat(ByteString.copyFrom(rest.toByteArray()));
    assertThat(all).isEqualTo(BYTES);
    assertThat(SerializedResponses.MARSHALLER.parse(SerializedResponses.MARSHALLER.stream(BYTES)))
        .isEqualTo(BYTES);
  }

  @Test
  void serveReplacesOneMethodAndKeepsTheOthers() {
    MethodDescriptor<?, ?> write = TabletServerServiceGrpc.getWriteMethod();
    ServerServiceDefinition def = new TabletServerServiceGrpc.TabletServerServiceImplBase() { }
        .bindService();
    ServerServiceDefinition served = SerializedResponses.serve(def,
        TabletServerServiceGrpc.getWriteMethod(),
        ServerCalls.asyncUnaryCall((req, out) -> out.onNext(BYTES)));
    assertThat(served.getMethod(write.getFullMethodName()).getMethodDescriptor()
        .getResponseMarshaller()).isSameAs(SerializedResponses.MARSHALLER);
    assertThat(served.getServiceDescriptor().getMethods()).hasSameSizeAs(
        def.getServiceDescriptor().getMethods());
    MethodDescriptor<?, ?> scan = TabletServerServiceGrpc.getScanMethod();
    assertThat(served.getMethod(scan.getFullMethodName()))
        .isSameAs(def.getMethod(scan.getFullMethodName()));
  }

  @Test
  void serveRefusesAMethodTheServiceDoesNotHave() {
    ServerServiceDefinition def = ServerServiceDefinition.builder("test.Empty").build();
    assertThatThrownBy(() -> SerializedResponses.serve(def,
        TabletServerServiceGrpc.getWriteMethod(),
        ServerCalls.asyncUnaryCall((req, out) -> out.onNext(BYTES))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("test.Empty has no method").hasMessageContaining("Write");
  }
}
