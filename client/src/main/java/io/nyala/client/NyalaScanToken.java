package io.nyala.client;

import com.google.protobuf.InvalidProtocolBufferException;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.client.ScanTokenPB;
import java.util.concurrent.CompletableFuture;

/**
 * The scan of one tablet, as bytes that another client, in this process or another, turns into
 * a scanner: Kudu's {@code KuduScanToken}. Made by a {@link NyalaScanTokenBuilder}; the tokens of
 * one build together cover every matching row of the table.
 *
 * <pre>{@code
 * List<NyalaScanToken> tokens = client.newScanTokenBuilder(table)
 *     .setProjectedColumnNames(List.of("host", "value"))
 *     .readMode(ReadMode.READ_AT_SNAPSHOT).build();
 * byte[] bytes = tokens.get(0).serialize();
 * // elsewhere:
 * try (NyalaScanner scanner = NyalaScanToken.deserializeIntoScanner(bytes, otherClient)) {
 *   for (RowResult row : scanner) { ... }
 * }
 * }</pre>
 *
 * <p>A token carries the table's id and name, the schema version it was built at and the
 * projected columns by name and id: opening it after an ALTER that dropped (or dropped and
 * re-added) a projected or filtered column fails with NOT_FOUND naming the column and the
 * table. A READ_AT_SNAPSHOT token reads only while the tablet keeps that snapshot's history
 * ({@code --tablet_history_max_age_sec}). Immutable and thread-safe.
 */
public final class NyalaScanToken {
  private final ScanTokenPB pb;

  NyalaScanToken(ScanTokenPB pb) {
    this.pb = pb;
  }

  /** @return the id of the tablet this token scans */
  public String tabletId() {
    return pb.getTabletId();
  }

  /** @return the name of the table when the token was built */
  public String tableName() {
    return pb.getTableName();
  }

  /** @return the id of the table, which survives renames */
  public String tableId() {
    return pb.getTableId();
  }

  /** @return the table's schema version when the token was built */
  public int schemaVersion() {
    return pb.getSchemaVersion();
  }

  /** @return the read mode of the token's scan */
  public ReadMode readMode() {
    return ReadMode.fromPb(pb.getReadMode());
  }

  /**
   * @return the Raft index a READ_AT_SNAPSHOT token reads its tablet at (0, the tablet's first
   *     entry, reads nothing); 0 in other read modes
   */
  public long snapshotIndex() {
    return pb.getSnapIndex();
  }

  /** @return the token as bytes, for {@link #deserializeIntoScanner} */
  public byte[] serialize() {
    return pb.toByteArray();
  }

  /**
   * Opens a scanner for this token with a client.
   *
   * @param client any client of the cluster
   * @return the scanner
   * @throws NyalaException NOT_FOUND if the table or a projected or filtered column is gone
   */
  public NyalaScanner intoScanner(NyalaClient client) {
    return new NyalaScanner(Sync.join(TokenScanners.open(pb, client.getAsyncClient())));
  }

  /**
   * Opens a scanner for a serialized token.
   *
   * @param bytes what {@link #serialize()} returned
   * @param client any client of the cluster
   * @return the scanner
   * @throws NyalaException INVALID_ARGUMENT if the bytes are not a scan token, NOT_FOUND if the
   *     table or a projected or filtered column is gone
   */
  public static NyalaScanner deserializeIntoScanner(byte[] bytes, NyalaClient client) {
    return new NyalaScanner(Sync.join(deserializeIntoAsyncScanner(bytes,
        client.getAsyncClient())));
  }

  /**
   * Opens an asynchronous scanner for a serialized token.
   *
   * @param bytes what {@link #serialize()} returned
   * @param client any client of the cluster
   * @return the scanner; fails as {@link #deserializeIntoScanner} throws
   */
  public static CompletableFuture<AsyncNyalaScanner> deserializeIntoAsyncScanner(byte[] bytes,
      AsyncNyalaClient client) {
    try {
      return TokenScanners.open(deserialize(bytes).pb, client);
    } catch (NyalaException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Parses a serialized token, without opening it.
   *
   * @param bytes what {@link #serialize()} returned
   * @return the token
   * @throws NyalaException INVALID_ARGUMENT if the bytes are not a scan token
   */
  public static NyalaScanToken deserialize(byte[] bytes) {
    ScanTokenPB pb;
    try {
      pb = ScanTokenPB.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new NyalaException(io.nyala.common.StatusCode.INVALID_ARGUMENT,
          "not a scan token (" + bytes.length + " bytes): " + e.getMessage(), e);
    }
    if (pb.getTableId().isEmpty() || pb.getTabletId().isEmpty()) {
      throw NyalaException.invalidArgument("not a scan token (%d bytes): no table or tablet id",
          bytes.length);
    }
    if (pb.getProjectedColumnsCount() != pb.getProjectedColumnIdsCount()) {
      throw NyalaException.invalidArgument("scan token of table '%s': %d projected columns but "
          + "%d column ids", pb.getTableName(), pb.getProjectedColumnsCount(),
          pb.getProjectedColumnIdsCount());
    }
    return new NyalaScanToken(pb);
  }

  @Override
  public String toString() {
    return "scan token of tablet " + pb.getTabletId() + " of table '" + pb.getTableName() + "' ("
        + pb.getTableId() + "), " + readMode() + (readMode() == ReadMode.READ_AT_SNAPSHOT
        ? " at index " + pb.getSnapIndex() : "");
  }
}
