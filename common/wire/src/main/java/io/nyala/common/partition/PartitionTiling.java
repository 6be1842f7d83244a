package io.nyala.common.partition;

import com.google.protobuf.ByteString;
import io.nyala.common.proto.PartitionPB;
import io.nyala.common.row.ByteWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Lays out a partition schema's tablets in partition key order: one per combination of hash
 * buckets, times one per range when the table has range columns. A partition key starts with
 * the bucket numbers, each as a 4-byte int, then (with ranges) the range columns' key encoding.
 */
final class PartitionTiling {
  private PartitionTiling() {}

  /**
   * Hash partitioning alone: the tablets tile the whole key space, the first starting and the
   * last ending open. {@code buckets}: each dimension's bucket count.
   */
  static List<PartitionPB> hashOnly(int[] buckets) {
    int n = 1;
    for (int b : buckets) {
      n = Math.multiplyExact(n, b);
    }
    List<PartitionPB> out = new ArrayList<>();
    int[] tuple = new int[buckets.length];
    for (int t = 0; t < n; t++) {
      PartitionPB.Builder b = PartitionPB.newBuilder();
      for (int x : tuple) {
        b.addHashBuckets(x);
      }
      if (t > 0) {
        b.setPartitionKeyStart(ByteString.copyFrom(encodeTuple(tuple)));
      }
      int[] next = tuple.clone();
      if (!increment(next, buckets)) {
        b.setPartitionKeyEnd(ByteString.copyFrom(encodeTuple(next)));
      }
      out.add(b.build());
      tuple = next;
    }
    return out;
  }

  /** One tablet per bucket combination and range of {@code rs} (sorted by lower bound). */
  static List<PartitionPB> ofRanges(int[] buckets, List<RangeBounds> rs) {
    List<PartitionPB> out = new ArrayList<>();
    int[] tuple = new int[buckets.length];
    boolean done = false;
    while (!done) {
      int[] next = tuple.clone();
      done = increment(next, buckets);
      byte[] prefix = encodeTuple(tuple);
      for (RangeBounds r : rs) {
        PartitionPB.Builder b = PartitionPB.newBuilder().setRange(r.toPb())
            .setPartitionKeyStart(ByteString.copyFrom(concat(prefix, r.lower())));
        // An open upper bound ends at the next bucket combination (or nowhere after the last).
        byte[] end = r.upper().length > 0 ? concat(prefix, r.upper())
            : done ? new byte[0] : encodeTuple(next);
        b.setPartitionKeyEnd(ByteString.copyFrom(end));
        for (int x : tuple) {
          b.addHashBuckets(x);
        }
        out.add(b.build());
      }
      tuple = next;
    }
    return out;
  }

  /** Moves {@code tuple} to the next bucket combination; true when it wrapped past the last. */
  private static boolean increment(int[] tuple, int[] buckets) {
    for (int d = tuple.length - 1; d >= 0; d--) {
      tuple[d]++;
      if (tuple[d] < buckets[d]) {
        return false;
      }
      tuple[d] = 0;
    }
    return true;
  }

  private static byte[] encodeTuple(int[] tuple) {
    ByteWriter w = new ByteWriter(4 * tuple.length);
    for (int x : tuple) {
      w.writeInt(x);
    }
    return w.toByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
