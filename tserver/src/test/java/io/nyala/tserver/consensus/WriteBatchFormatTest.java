package io.nyala.tserver.consensus;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.proto.metadata.BatchedWritePB;
import io.nyala.common.proto.metadata.TabletOpPB;
import io.nyala.common.proto.metadata.WriteBatchOpPB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.row.RowOpType;
import io.nyala.tserver.TserverFixture;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The zero-copy batch entry parses to exactly the op a plain serialization would give. */
@Timeout(30)
class WriteBatchFormatTest {
  @ParameterizedTest(name = "rows={0}")
  @ValueSource(ints = {0, 1, 7, 5000})
  void parsesToTheSameOpAsAPlainSerialization(int rows) throws Exception {
    WriteBatchOpPB.Builder expected = WriteBatchOpPB.newBuilder();
    List<WriteBatchFormat.Write> writes = new ArrayList<>();
    for (int w = 0; w < 3; w++) {
      WriteRequestPB req = TserverFixture.inserts("t1", w * rows, (w + 1) * rows,
          RowOpType.INSERT);
      expected.setSchema(req.getSchema());
      com.google.protobuf.ByteString client = w == 2 ? com.google.protobuf.ByteString.EMPTY
          : TserverFixture.clientId();
      List<Long> replied = w == 1 ? List.of(3L, 4L) : List.of();
      expected.addWrites(BatchedWritePB.newBuilder().setClientId(client).setSeqNo(10 + w)
          .setCheckedTerm(7).setRowOperations(req.getRowOperations())
          .addAllRepliedSeqNos(replied));
      writes.add(new WriteBatchFormat.Write(client, 10 + w, 7, req.getRowOperations(),
          replied));
    }
    byte[] entry = WriteBatchFormat.payload(expected.getSchema(), writes).toByteArray();
    assertThat(TabletOpPB.parseFrom(entry))
        .isEqualTo(TabletOpPB.newBuilder().setWriteBatch(expected).build());
  }
}
