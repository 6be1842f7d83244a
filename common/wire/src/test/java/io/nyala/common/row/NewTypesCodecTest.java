package io.nyala.common.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.proto.ColumnPredicatePB;
import io.nyala.common.proto.PredicateOpPB;
import io.nyala.common.proto.RowOperationsPB;
import io.nyala.common.proto.ValuePB;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** DECIMAL, DATE, VARCHAR and TIMESTAMP through the row, value and key codecs. */
@Timeout(10)
class NewTypesCodecTest {
  static final Schema SCHEMA = Schema.forTable(List.of(
      ColumnSchema.builder("d", Type.DATE).key(true).build(),
      ColumnSchema.builder("amount", Type.DECIMAL).key(true).precision(10).scale(2).build(),
      ColumnSchema.builder("name", Type.VARCHAR).key(true).length(8).build(),
      ColumnSchema.builder("ts", Type.TIMESTAMP).build(),
      ColumnSchema.builder("big", Type.DECIMAL).precision(38).scale(5).build()));

  private static final Instant TS = Instant.parse("1969-07-20T20:17:40.123456Z");

  private static PartialRow row(LocalDate d, String amount, String name) {
    return SCHEMA.newPartialRow().addDate("d", d).addDecimal("amount", new BigDecimal(amount))
        .addVarchar("name", name);
  }

  @Test
  void rowOperationsRoundTripNegativeDecimalsOldDatesAndMicros() {
    PartialRow r = row(LocalDate.of(1900, 2, 28), "-12345678.90", "héllo")
        .addTimestamp("ts", TS)
        .addDecimal("big", new BigDecimal("-123456789012345678901234567.89"));
    RowOperationsPB pb = RowOperations.encode(SCHEMA,
        List.of(new RowOperations.Op(RowOpType.INSERT, r)));
    PartialRow back = RowOperations.decode(SCHEMA, pb).get(0).row();
    assertThat(back.get("d")).isEqualTo(LocalDate.of(1900, 2, 28));
    assertThat(back.get("amount")).isEqualTo(new BigDecimal("-12345678.90"));
    assertThat(back.get("name")).isEqualTo("héllo");
    assertThat(back.get("ts")).isEqualTo(TS);
    assertThat(back.get("big")).isEqualTo(new BigDecimal("-123456789012345678901234567.89000"));
  }

  @Test
  void keysSortLikeTheirValues() {
    Random rnd = new Random(11);
    List<Object[]> rows = new ArrayList<>();
    String[] names = {"", "a", "a\0", "ab", "b", "é"};
    for (int i = 0; i < 2000; i++) {
      LocalDate d = LocalDate.ofEpochDay(rnd.nextInt(3) - 1);
      BigDecimal amount = BigDecimal.valueOf(rnd.nextLong() % 10_000_000_000L, 2);
      rows.add(new Object[] {d, amount, names[rnd.nextInt(names.length)]});
    }
    Comparator<Object[]> byValue = Comparator.<Object[], LocalDate>comparing(v -> (LocalDate) v[0])
        .thenComparing(v -> (BigDecimal) v[1])
        .thenComparing(v -> ((String) v[2]).getBytes(java.nio.charset.StandardCharsets.UTF_8),
            java.util.Arrays::compareUnsigned);
    List<ColumnSchema> key = SCHEMA.keyColumns();
    for (int i = 0; i + 1 < rows.size(); i++) {
      Object[] x = rows.get(i);
      Object[] y = rows.get(i + 1);
      assertThat(Integer.signum(KeyEncoder.compare(KeyEncoder.encode(key, x),
          KeyEncoder.encode(key, y)))).as("%s vs %s", List.of(x), List.of(y))
          .isEqualTo(Integer.signum(byValue.compare(x, y)));
      assertThat(KeyEncoder.decode(key, KeyEncoder.encode(key, x))).isEqualTo(x);
    }
  }

  @Test
  void timestampKeysSortAcrossTheEpochWithMicros() {
    List<ColumnSchema> key = List.of(ColumnSchema.builder("ts", Type.TIMESTAMP).key(true).build());
    Instant[] ordered = {Instant.parse("0001-01-01T00:00:00Z"), TS,
        Instant.parse("1969-12-31T23:59:59.999999Z"), Instant.EPOCH,
        Instant.parse("1970-01-01T00:00:00.000001Z"), Instant.parse("2262-04-11T00:00:00Z")};
    for (int i = 0; i + 1 < ordered.length; i++) {
      byte[] a = KeyEncoder.encode(key, new Object[] {ordered[i]});
      byte[] b = KeyEncoder.encode(key, new Object[] {ordered[i + 1]});
      assertThat(KeyEncoder.compare(a, b)).as("%s < %s", ordered[i], ordered[i + 1]).isNegative();
      assertThat(KeyEncoder.decode(key, a)[0]).isEqualTo(ordered[i]);
    }
  }

  @Test
  void valuesThatWouldNeedRoundingOrTruncationAreRejected() {
    assertRejected(() -> row(LocalDate.EPOCH, "1.234", "x"),
        "value 1.234 for column 'amount' has scale 3; DECIMAL(10,2)");
    assertRejected(() -> row(LocalDate.EPOCH, "123456789.00", "x"),
        "column 'amount' has 9 digits before the point; DECIMAL(10,2) holds 8");
    assertRejected(() -> row(LocalDate.EPOCH, "1", "ninechars"),
        "column 'name' is 9 characters long; VARCHAR(8) holds at most 8");
    assertRejected(() -> SCHEMA.newPartialRow().addTimestamp("ts", Instant.ofEpochSecond(0, 1)),
        "timestamp 1970-01-01T00:00:00.000000001Z for column 'ts' has a fraction");
    assertRejected(() -> SCHEMA.newPartialRow().addDate("d", LocalDate.of(10000, 1, 1)),
        "date +10000-01-01 for column 'd' is not in 0001-01-01..9999-12-31");
    assertRejected(() -> SCHEMA.newPartialRow().addObject("amount", "1.00"),
        "column 'amount' is of type DECIMAL, not STRING");
    // A shorter scale is padded without loss.
    assertThat(row(LocalDate.EPOCH, "1.5", "x").get("amount")).isEqualTo(new BigDecimal("1.50"));
  }

  @Test
  void serverRejectsAWireRowTheClientWouldHaveRefused() {
    Object[] values = {LocalDate.EPOCH, new BigDecimal("1.00"), "far too long", null, null};
    BitSet set = new BitSet();
    set.set(0, 3);
    RowOperationsPB pb = RowOperations.encode(SCHEMA, List.of(
        new RowOperations.Op(RowOpType.INSERT, PartialRow.of(SCHEMA, values, set))));
    assertRejected(() -> RowOperations.decode(SCHEMA, pb),
        "column 'name' is 12 characters long; VARCHAR(8)");
  }

  @Test
  void attributesAreCheckedAndSurviveTheWire() {
    assertRejected(() -> ColumnSchema.builder("p", Type.DECIMAL).precision(39).build(),
        "column 'p': DECIMAL precision 39 is not in 1..38");
    assertRejected(() -> ColumnSchema.builder("p", Type.DECIMAL).precision(5).scale(6).build(),
        "column 'p': DECIMAL scale 6 is not in 0..5");
    assertRejected(() -> ColumnSchema.builder("v", Type.VARCHAR).build(),
        "column 'v' of type VARCHAR needs a maximum length");
    assertRejected(() -> ColumnSchema.builder("v", Type.VARCHAR).length(65536).build(),
        "column 'v': VARCHAR length 65536 is not in 1..65535");
    assertRejected(() -> ColumnSchema.builder("i", Type.INT32).length(3).build(),
        "column 'i' of type INT32 takes no type attributes");
    Schema back = Schema.fromPb(SCHEMA.toPb());
    assertThat(back).isEqualTo(SCHEMA);
    assertThat(back.column("amount").typeName()).isEqualTo("decimal(10,2)");
    assertThat(back.column("name").typeName()).isEqualTo("varchar(8)");
    assertThat(back.column("ts").typeName()).isEqualTo("timestamp");
  }

  @Test
  void predicatesCompareDecimalsByValueAndTakeJavaTimeLiterals() {
    ColumnPredicate gt = ColumnPredicate.comparison("amount", ColumnPredicate.Op.GREATER,
        new BigDecimal("-1.5")).bind(SCHEMA);
    assertThat(gt.test(Type.DECIMAL, new BigDecimal("-1.49"))).isTrue();
    assertThat(gt.test(Type.DECIMAL, new BigDecimal("-1.50"))).isFalse();
    ColumnPredicate in = ColumnPredicate.inList("amount", List.of(new BigDecimal("2"), 3L))
        .bind(SCHEMA);
    assertThat(in.test(Type.DECIMAL, new BigDecimal("2.00"))).isTrue();
    assertThat(in.test(Type.DECIMAL, new BigDecimal("3.00"))).isTrue();
    ColumnPredicate before = ColumnPredicate.comparison("d", ColumnPredicate.Op.LESS,
        LocalDate.of(1969, 12, 31)).bind(SCHEMA);
    assertThat(before.test(Type.DATE, LocalDate.of(1800, 1, 1))).isTrue();
    ColumnPredicate wire = ColumnPredicate.fromPb(SCHEMA, ColumnPredicate.comparison("ts",
        ColumnPredicate.Op.GREATER_EQUAL, TS).toPb(SCHEMA)).bind(SCHEMA);
    assertThat(wire.value()).isEqualTo(TS);
    ColumnPredicate dec = ColumnPredicate.fromPb(SCHEMA, in.toPb(SCHEMA)).bind(SCHEMA);
    assertThat(dec.inValues()).containsExactly(new BigDecimal("2.00"), new BigDecimal("3.00"));
    assertRejected(() -> ColumnPredicate.comparison("amount", ColumnPredicate.Op.EQUAL,
        new BigDecimal("0.001")).bind(SCHEMA), "has scale 3; DECIMAL(10,2)");
    assertRejected(() -> ColumnPredicate.comparison("amount", ColumnPredicate.Op.LESS,
        new BigDecimal("1E37")).bind(SCHEMA), "for column 'amount' has more than 38 digits");
    // A literal from the wire that would take a server's memory to rescale is refused first.
    ColumnPredicatePB huge = ColumnPredicatePB.newBuilder().setColumn("amount")
        .setOp(PredicateOpPB.LESS).setValue(ValuePB.newBuilder().setStringValue("1E-999999999"))
        .build();
    assertRejected(() -> ColumnPredicate.fromPb(SCHEMA, huge),
        "value 1E-999999999 for column 'amount' has scale 999999999; DECIMAL takes -38..38");
    // Outside the column's range but within 38 digits: a valid bound for a comparison.
    assertThat(ColumnPredicate.comparison("amount", ColumnPredicate.Op.LESS,
        new BigDecimal("1E30")).bind(SCHEMA).test(Type.DECIMAL, new BigDecimal("99.99")))
        .isTrue();
  }

  private static void assertRejected(Supplier<?> call, String message) {
    assertThatThrownBy(call::get).hasMessageContaining(message);
  }
}
