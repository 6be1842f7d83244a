package io.nyala.itests.nemesis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks that each key's READs and WRITEs form a linearizable read/write register (initially
 * absent), by a Wing–Gong search with Lowe's memoization of (linearized set, register value),
 * one key at a time. A WRITE that ended unknown may take effect at any point after its
 * invocation, or never; a failed WRITE and a READ that did not end ok constrain nothing. Values
 * written must be unique per key (the register workload's are).
 */
final class RegisterChecker {
  /** Search states kept per key before the checker gives up with an "unknown" verdict. */
  static final int MAX_STATES = 500_000;

  private RegisterChecker() {}

  /**
   * The verdict of one key.
   *
   * @param key the register
   * @param ops the operations that constrain it
   * @param linearizable true, false, or null when the search was too large to decide
   * @param detail on false, the operations the search could not get past
   */
  record KeyVerdict(long key, int ops, Boolean linearizable, String detail) {}

  /** Checks every key of the READ/WRITE operations in {@code events}. */
  static List<KeyVerdict> check(List<HistoryOp> events) {
    Map<Long, List<HistoryOp>> byKey = new TreeMap<>();
    for (HistoryOp e : events) {
      if (e.type() == OpType.READ || e.type() == OpType.WRITE) {
        byKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
      }
    }
    List<KeyVerdict> out = new ArrayList<>();
    byKey.forEach((k, ops) -> out.add(checkKey(k, ops)));
    return out;
  }

  /** One end of an operation, linked in time order (Wing–Gong's list, unlinked as it goes). */
  private static final class Entry {
    final int op;
    final boolean call;
    final boolean write;
    final Long value;
    /** A return that never happened (an unknown write): it constrains nothing. */
    final boolean endless;
    final String line;
    Entry match;
    Entry prev;
    Entry next;

    Entry(int op, boolean call, boolean write, Long value, boolean endless, String line) {
      this.op = op;
      this.call = call;
      this.write = write;
      this.value = value;
      this.endless = endless;
      this.line = line;
    }
  }

  private record State(BitSet linearized, Long value) {}

  private record Frame(Entry call, Long valueBefore) {}

  /** Checks one key's operations (events of that key only, in time order). */
  static KeyVerdict checkKey(long key, List<HistoryOp> events) {
    Entry head = buildEntries(events);
    int n = 0;
    for (Entry e = head.next; e != null; e = e.next) {
      n += e.call ? 1 : 0;
    }
    BitSet linearized = new BitSet(n);
    Set<State> seen = new HashSet<>();
    Deque<Frame> stack = new ArrayDeque<>();
    Long value = null;
    Entry entry = head.next;
    String stuck = "";
    int deepest = -1;
    while (entry != null && !entry.endless) {
      if (entry.call) {
        Long next = entry.write ? entry.value : value;
        if (entry.write || Objects.equals(entry.value, value)) {
          BitSet after = (BitSet) linearized.clone();
          after.set(entry.op);
          if (seen.add(new State(after, next))) {
            if (seen.size() > MAX_STATES) {
              return new KeyVerdict(key, n, null, "more than " + MAX_STATES + " search states");
            }
            stack.push(new Frame(entry, value));
            value = next;
            linearized = after;
            lift(entry);
            entry = head.next;
            continue;
          }
        }
        entry = entry.next;
        continue;
      }
      // A return whose operation is not linearized yet: this branch is a dead end.
      if (linearized.cardinality() > deepest) {
        deepest = linearized.cardinality();
        stuck = entry.line + " with the register at " + value + " after " + deepest + " of "
            + n + " operations";
      }
      if (stack.isEmpty()) {
        return new KeyVerdict(key, n, false, "no order explains " + stuck);
      }
      Frame f = stack.pop();
      value = f.valueBefore();
      linearized = (BitSet) linearized.clone();
      linearized.clear(f.call().op);
      unlift(f.call());
      entry = f.call().next;
    }
    // Every definite return is before the first endless one, so all of them are linearized.
    return new KeyVerdict(key, n, true, "");
  }

  private static Entry buildEntries(List<HistoryOp> events) {
    Map<Long, HistoryOp> ends = new HashMap<>();
    Set<Long> valuesRead = new HashSet<>();
    for (HistoryOp e : events) {
      if (e.outcome() != Outcome.INVOKE) {
        ends.put(e.id(), e);
        if (e.type() == OpType.READ && e.outcome() == Outcome.OK) {
          valuesRead.add(e.value());
        }
      }
    }
    Entry head = new Entry(-1, false, false, null, false, "head");
    Entry tail = head;
    Map<Long, Entry> calls = new HashMap<>();
    List<Entry> endless = new ArrayList<>();
    int next = 0;
    for (HistoryOp e : events) {
      HistoryOp end = ends.get(e.id());
      Outcome outcome = end == null ? Outcome.UNKNOWN : end.outcome();
      boolean write = e.type() == OpType.WRITE;
      // An unknown write of a value nobody read can be taken to have never applied: with it
      // removed, every read in a linearization that had it still sees what it saw. Keeping
      // such writes would let their subsets multiply the search states.
      boolean counts = outcome == Outcome.OK
          || (write && outcome == Outcome.UNKNOWN && valuesRead.contains(e.value()));
      if (!counts) {
        continue;
      }
      if (e.outcome() == Outcome.INVOKE) {
        Long v = write ? e.value() : end.value();
        Entry call = new Entry(next++, true, write, v, false, e.toLine());
        calls.put(e.id(), call);
        tail = append(tail, call);
        if (outcome == Outcome.UNKNOWN) {
          Entry ret = new Entry(call.op, false, write, v, true, "never");
          link(call, ret);
          endless.add(ret);
        }
      } else if (outcome == Outcome.OK) {
        Entry call = calls.get(e.id());
        Entry ret = new Entry(call.op, false, write, call.value, false, e.toLine());
        link(call, ret);
        tail = append(tail, ret);
      }
    }
    for (Entry ret : endless) {
      tail = append(tail, ret);
    }
    return head;
  }

  private static Entry append(Entry tail, Entry e) {
    tail.next = e;
    e.prev = tail;
    return e;
  }

  private static void link(Entry call, Entry ret) {
    call.match = ret;
    ret.match = call;
  }

  /** Unlinks a call and its return (they are restored in reverse order, so links stay valid). */
  private static void lift(Entry call) {
    call.prev.next = call.next;
    call.next.prev = call.prev;
    Entry ret = call.match;
    ret.prev.next = ret.next;
    if (ret.next != null) {
      ret.next.prev = ret.prev;
    }
  }

  private static void unlift(Entry call) {
    Entry ret = call.match;
    ret.prev.next = ret;
    if (ret.next != null) {
      ret.next.prev = ret;
    }
    call.prev.next = call;
    call.next.prev = call;
  }
}
