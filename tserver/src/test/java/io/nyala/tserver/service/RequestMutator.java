package io.nyala.tserver.service;

import com.google.protobuf.ByteString;
import io.nyala.common.proto.ColumnPredicatePB;
import io.nyala.common.proto.ColumnSchemaPB;
import io.nyala.common.proto.DataTypePB;
import io.nyala.common.proto.RowOperationsPB;
import io.nyala.common.proto.SchemaPB;
import io.nyala.common.proto.ValuePB;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.ReadModePB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded generator of hostile Write and Scan requests for {@link RequestFuzzTest}: valid
 * requests mutated (truncated or bit-flipped rows, counts and lengths that lie, random schemas,
 * unknown tablets and scanners, extreme sizes and snapshot indexes), all from one {@link Random}.
 */
final class RequestMutator {
  private static final DataTypePB[] TYPES = {DataTypePB.INT8, DataTypePB.INT16, DataTypePB.INT32,
      DataTypePB.INT64, DataTypePB.STRING, DataTypePB.BINARY, DataTypePB.BOOL, DataTypePB.DOUBLE};
  private static final int[] EXTREMES = {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE,
      Integer.MAX_VALUE - 7, 1 << 30};

  private final Random rnd;
  private final String tabletId;
  private final Schema schema;

  RequestMutator(Random rnd, String tabletId, Schema schema) {
    this.rnd = rnd;
    this.tabletId = tabletId;
    this.schema = schema;
  }

  /** A valid batch of 1..20 inserts or upserts of keys in a small range (some collide). */
  WriteRequestPB validWrite() {
    List<RowOperations.Op> ops = new ArrayList<>();
    int n = 1 + rnd.nextInt(20);
    for (int i = 0; i < n; i++) {
      PartialRow r = schema.newPartialRow().addInt("id", rnd.nextInt(500));
      if (rnd.nextBoolean()) {
        r.addString("v", "v" + rnd.nextInt());
      }
      ops.add(new RowOperations.Op(rnd.nextBoolean() ? RowOpType.INSERT : RowOpType.UPSERT, r));
    }
    return WriteRequestPB.newBuilder().setTabletId(tabletId).setSchema(schema.toPb())
        .setRowOperations(RowOperations.encode(schema, ops)).build();
  }

  /** A Write request, mostly malformed; {@code kind} names the mutation. */
  WriteRequestPB write(StringBuilder kind) {
    WriteRequestPB valid = validWrite();
    RowOperationsPB rows = valid.getRowOperations();
    WriteRequestPB.Builder b = valid.toBuilder();
    switch (rnd.nextInt(9)) {
      case 0 -> kind.append("valid write");
      case 1 -> {
        kind.append("truncated rows");
        b.setRowOperations(rows.toBuilder().setRows(rows.getRows().substring(0,
            rnd.nextInt(rows.getRows().size()))));
      }
      case 2 -> {
        kind.append("flipped bytes in rows");
        b.setRowOperations(rows.toBuilder().setRows(flip(rows.getRows())));
      }
      case 3 -> {
        kind.append("lying row count");
        b.setRowOperations(rows.toBuilder().setCount(anInt()));
      }
      case 4 -> {
        kind.append("random row bytes");
        b.setRowOperations(RowOperationsPB.newBuilder().setRows(randomBytes(200))
            .setCount(anInt()));
      }
      case 5 -> {
        kind.append("random schema");
        b.setSchema(randomSchema());
      }
      case 6 -> {
        kind.append("unknown tablet");
        b.setTabletId(rnd.nextBoolean() ? "" : "no-such-tablet-" + rnd.nextInt(100));
      }
      case 7 -> {
        kind.append("bogus client id and sequence numbers");
        b.setClientId(randomBytes(20)).setSeqNo(rnd.nextLong());
        for (int i = rnd.nextInt(50); i > 0; i--) {
          b.addRepliedSeqNos(rnd.nextLong());
        }
      }
      default -> {
        kind.append("schema with a bad version and rows for another schema");
        b.setSchema(schema.toPb().toBuilder().setVersion(anInt()));
        b.setRowOperations(rows.toBuilder().setRows(randomBytes(64)));
      }
    }
    return b.build();
  }

  /** A new-scan request, mostly malformed. */
  ScanRequestPB newScan(StringBuilder kind, long appliedIndex) {
    NewScanRequestPB.Builder n = NewScanRequestPB.newBuilder().setTabletId(tabletId);
    ScanRequestPB.Builder b = ScanRequestPB.newBuilder().setBatchSizeRows(rnd.nextInt(40));
    switch (rnd.nextInt(8)) {
      case 0 -> kind.append("valid scan");
      case 1 -> {
        kind.append("random projection");
        for (int i = rnd.nextInt(4); i >= 0; i--) {
          n.addProjectedColumns(rnd.nextBoolean() ? (rnd.nextBoolean() ? "id" : "v")
              : "col" + rnd.nextInt(5));
        }
      }
      case 2 -> {
        kind.append("random predicates");
        for (int i = rnd.nextInt(3); i >= 0; i--) {
          n.addPredicates(randomPredicate());
        }
      }
      case 3 -> {
        kind.append("random key range");
        n.setStartPrimaryKey(randomBytes(12)).setStopPrimaryKey(randomBytes(12));
      }
      case 4 -> {
        kind.append("snapshot index");
        long[] snaps = {-1, 0, appliedIndex, appliedIndex + 1_000_000, Long.MAX_VALUE,
            Long.MIN_VALUE};
        n.setReadMode(ReadModePB.READ_AT_SNAPSHOT).setSnapIndex(snaps[rnd.nextInt(snaps.length)]);
      }
      case 5 -> {
        kind.append("extreme limit and batch size");
        n.setLimit(rnd.nextBoolean() ? rnd.nextLong() : rnd.nextInt(5));
        b.setBatchSizeRows(anInt());
      }
      case 6 -> {
        kind.append("unknown tablet");
        n.setTabletId("no-such-tablet-" + rnd.nextInt(10));
      }
      default -> {
        kind.append("unknown read mode and a sequence id");
        n.setReadModeValue(rnd.nextInt(10));
        b.setCallSeqId(anInt());
      }
    }
    return b.setNewScanRequest(n).build();
  }

  /** A continuation of {@code scannerId} (a real one or not) with a random sequence or close. */
  ScanRequestPB continuation(ByteString scannerId, int expectedSeq, StringBuilder kind) {
    ScanRequestPB.Builder b = ScanRequestPB.newBuilder().setScannerId(scannerId)
        .setBatchSizeRows(rnd.nextInt(40));
    switch (rnd.nextInt(4)) {
      case 0 -> {
        kind.append("continuation");
        b.setCallSeqId(expectedSeq);
      }
      case 1 -> {
        kind.append("continuation with a wrong sequence id");
        b.setCallSeqId(anInt());
      }
      case 2 -> {
        kind.append("close");
        b.setCloseScanner(true).setCallSeqId(expectedSeq);
      }
      default -> {
        kind.append("continuation with a huge batch size");
        b.setCallSeqId(expectedSeq).setBatchSizeRows(anInt());
      }
    }
    return b.build();
  }

  /** Bytes of a serialized request cut short or damaged: what reaches the parser. */
  byte[] damagedBytes(byte[] serialized) {
    byte[] out = rnd.nextBoolean()
        ? java.util.Arrays.copyOf(serialized, rnd.nextInt(serialized.length + 1))
        : serialized.clone();
    for (int i = rnd.nextInt(4); i > 0 && out.length > 0; i--) {
      out[rnd.nextInt(out.length)] ^= (byte) (1 << rnd.nextInt(8));
    }
    return out;
  }

  ByteString randomBytes(int max) {
    byte[] b = new byte[rnd.nextInt(max + 1)];
    rnd.nextBytes(b);
    return ByteString.copyFrom(b);
  }

  int anInt() {
    return rnd.nextInt(3) == 0 ? rnd.nextInt() : EXTREMES[rnd.nextInt(EXTREMES.length)];
  }

  boolean chance(int outOf) {
    return rnd.nextInt(outOf) == 0;
  }

  int nextInt(int bound) {
    return rnd.nextInt(bound);
  }

  private ByteString flip(ByteString rows) {
    byte[] b = rows.toByteArray();
    for (int i = 1 + rnd.nextInt(5); i > 0 && b.length > 0; i--) {
      b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
    }
    return ByteString.copyFrom(b);
  }

  private SchemaPB randomSchema() {
    SchemaPB.Builder s = SchemaPB.newBuilder().setVersion(rnd.nextInt(3));
    for (int i = rnd.nextInt(5); i >= 0; i--) {
      s.addColumns(ColumnSchemaPB.newBuilder()
          .setName(rnd.nextBoolean() ? (rnd.nextBoolean() ? "id" : "v") : "c" + rnd.nextInt(3))
          .setType(TYPES[rnd.nextInt(TYPES.length)]).setIsKey(rnd.nextBoolean())
          .setIsNullable(rnd.nextBoolean()).setId(rnd.nextInt(4)));
    }
    return s.build();
  }

  private ColumnPredicatePB randomPredicate() {
    ColumnPredicatePB.Builder p = ColumnPredicatePB.newBuilder()
        .setColumn(rnd.nextBoolean() ? (rnd.nextBoolean() ? "id" : "v") : "nope")
        .setOpValue(rnd.nextInt(10));
    if (rnd.nextBoolean()) {
      p.setValue(randomValue());
    }
    for (int i = rnd.nextInt(3); i > 0; i--) {
      p.addInValues(randomValue());
    }
    return p.build();
  }

  private ValuePB randomValue() {
    return switch (rnd.nextInt(5)) {
      case 0 -> ValuePB.newBuilder().setIntValue(rnd.nextLong()).build();
      case 1 -> ValuePB.newBuilder().setStringValue("s" + rnd.nextInt(9)).build();
      case 2 -> ValuePB.newBuilder().setBinaryValue(randomBytes(8)).build();
      case 3 -> ValuePB.newBuilder().setDoubleValue(rnd.nextDouble()).build();
      default -> ValuePB.getDefaultInstance();
    };
  }
}
