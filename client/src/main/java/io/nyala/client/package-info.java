/**
 * The Nyala Java client: {@link io.nyala.client.NyalaClient} (blocking) over
 * {@link io.nyala.client.AsyncNyalaClient} (futures). Tables are created and opened through a
 * client; rows are written with {@link io.nyala.client.Operation}s applied to a
 * {@link io.nyala.client.NyalaSession}, and read with a {@link io.nyala.client.NyalaScanner},
 * or split into one {@link io.nyala.client.NyalaScanToken} per tablet to read elsewhere, at one
 * snapshot if wanted (docs/architecture.md, "Consistent reads").
 *
 * <pre>{@code
 * try (NyalaClient client = NyalaClient.builder("127.0.0.1:7051").build()) {
 *   Schema schema = new Schema(List.of(
 *       ColumnSchema.builder("host", Type.STRING).key(true).build(),
 *       ColumnSchema.builder("ts", Type.UNIXTIME_MICROS).key(true).build(),
 *       ColumnSchema.builder("value", Type.DOUBLE).build()));
 *   NyalaTable table = client.createTable("metrics", schema, new CreateTableOptions()
 *       .addHashPartitions(List.of("host"), 4).setNumReplicas(3));
 *   try (NyalaSession session = client.newSession()) {
 *     Operation insert = table.newInsert();
 *     insert.getRow().addString("host", "a").addTimestampMicros("ts", 1L).addDouble("value", 0.5);
 *     session.apply(insert);
 *   }
 *   try (NyalaScanner scanner = table.newScannerBuilder().build()) {
 *     for (RowResult row : scanner) {
 *       System.out.println(row.getString("host") + " " + row.getDouble("value"));
 *     }
 *   }
 * }
 * }</pre>
 *
 * <p>This package holds the user-facing API and the write and scan paths, the DDL calls behind
 * the client ({@code TableDdl}), cluster introspection ({@code ClusterInfo}) and the client's
 * per-table location caches ({@code LocationCache}); the transport, master leader discovery, the
 * tablet location cache itself and the client's counters ({@code stats}, read as
 * {@link io.nyala.client.ClientStatistics}) live in its subpackages and are not API. It must not
 * reach into servers: everything goes through the master's and tablet servers' RPCs.
 */
package io.nyala.client;
