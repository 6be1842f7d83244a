/**
 * Row encodings on the wire: operation batches, result blocks, order-preserving keys,
 * predicates.
 */
package io.nyala.common.row;
