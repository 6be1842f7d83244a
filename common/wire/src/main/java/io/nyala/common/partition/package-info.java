/** Hash partitioning: which tablet a row belongs to, and each tablet's partition key range. */
package io.nyala.common.partition;
