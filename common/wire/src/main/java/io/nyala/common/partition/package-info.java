/**
 * Hash and range partitioning: which tablet a row belongs to, each tablet's partition key range,
 * and the range partitions a table has (docs/architecture.md, "Partitioning").
 */
package io.nyala.common.partition;
