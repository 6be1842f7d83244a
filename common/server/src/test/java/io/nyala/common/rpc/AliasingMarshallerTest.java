package io.nyala.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.nyala.common.env.TestBytes;
import io.nyala.common.proto.RowOperationsPB;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.proto.tserver.WriteRequestPB;
import java.io.ByteArrayInputStream;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(30)
class AliasingMarshallerTest {
  private final AliasingMarshaller<WriteRequestPB> aliasing =
      new AliasingMarshaller<>(WriteRequestPB.getDefaultInstance());
  private final MethodDescriptor.Marshaller<WriteRequestPB> grpcs =
      ProtoUtils.marshaller(WriteRequestPB.getDefaultInstance());

  /** What gRPC hands a marshaller: a stream of known length over the transport's buffer. */
  private static final class Received extends ByteArrayInputStream implements KnownLength {
    Received(byte[] buf) {
      super(buf);
    }
  }

  private static WriteRequestPB request(int rowBytes) {
    byte[] rows = new byte[rowBytes];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = (byte) (i * 31 + 7);
    }
    return WriteRequestPB.newBuilder().setTabletId("t" + rowBytes)
        .setRowOperations(RowOperationsPB.newBuilder().setRows(ByteString.copyFrom(rows)))
        .setSeqNo(rowBytes).build();
  }

  @ParameterizedTest(name = "rowBytes={0}")
  @ValueSource(ints = {0, 1, 100, 70_000})
  void parsesLikeGrpcsMarshaller(int rowBytes) {
    WriteRequestPB req = request(rowBytes);
    WriteRequestPB ours = aliasing.parse(new Received(req.toByteArray()));
    assertThat(ours).isEqualTo(grpcs.parse(new Received(req.toByteArray()))).isEqualTo(req);
    assertThat(aliasing.parse(aliasing.stream(req))).isEqualTo(req);
  }

  @Test
  void anEmptyRequestIsTheDefaultInstance() {
    assertThat(aliasing.parse(new Received(new byte[0])))
        .isSameAs(WriteRequestPB.getDefaultInstance());
  }

  @Test
  void parsedBytesSurviveTheReuseOfTheTransportBuffer() {
    WriteRequestPB req = request(4096);
    byte[] transport = req.toByteArray();
    WriteRequestPB parsed = aliasing.parse(new Received(transport));
    Arrays.fill(transport, (byte) 0x5a);
    assertThat(parsed).isEqualTo(req);
  }

  @Test
  void rowsAreViewsOfTheRequestArrayNotCopies() throws Exception {
    byte[] request = request(64).toByteArray();
    WriteRequestPB parsed = aliasing.parse(request);
    byte first = parsed.getRowOperations().getRows().byteAt(0);
    int at = TestBytes.indexOf(request, request(64).getRowOperations().getRows().toByteArray());
    assertThat(at).isNotNegative();
    request[at] = (byte) ~first;
    assertThat(parsed.getRowOperations().getRows().byteAt(0)).isEqualTo((byte) ~first);
  }

  @Test
  void garbageParsesToARequestMarkedUnparsableNotAnException() {
    byte[] bad = {(byte) 0x0a, (byte) 0xff};
    WriteRequestPB parsed = aliasing.parse(new Received(bad));
    assertThat(AliasingMarshaller.parseError(parsed)).startsWith("not a valid WriteRequestPB: ");
    assertThat(AliasingMarshaller.parseError(request(8))).isNull();
  }

  @Test
  void rebindingChangesOnlyTheRequestMarshallerOfThatMethod() {
    ServerServiceDefinition def = TabletServerServiceGrpc.bindService(
        new TabletServerServiceGrpc.TabletServerServiceImplBase() {});
    ServerServiceDefinition rebound = AliasingMarshaller.forRequests(def,
        TabletServerServiceGrpc.getWriteMethod(), WriteRequestPB.getDefaultInstance());
    assertThat(names(rebound)).isEqualTo(names(def));
    for (ServerMethodDefinition<?, ?> m : rebound.getMethods()) {
      ServerMethodDefinition<?, ?> was =
          def.getMethod(m.getMethodDescriptor().getFullMethodName());
      boolean isWrite = m.getMethodDescriptor().getFullMethodName()
          .equals(TabletServerServiceGrpc.getWriteMethod().getFullMethodName());
      // Write's handler is wrapped to refuse unparsable requests; the others are untouched.
      if (!isWrite) {
        assertThat(m.getServerCallHandler()).isSameAs(was.getServerCallHandler());
      }
      assertThat(m.getMethodDescriptor().getRequestMarshaller() instanceof AliasingMarshaller)
          .isEqualTo(isWrite);
    }
  }

  private static String names(ServerServiceDefinition d) {
    return d.getMethods().stream().map(m -> m.getMethodDescriptor().getFullMethodName())
        .sorted().collect(Collectors.joining(","));
  }
}
