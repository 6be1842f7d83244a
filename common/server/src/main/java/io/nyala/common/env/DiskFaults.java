package io.nyala.common.env;

import io.nyala.common.NyalaException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Disk faults injected under an {@link Env}: rules such as "EIO on fsync of files under
 * {@code /data/1}" or "ENOSPC on writes under {@code /data/2}" that the env's files consult
 * before each write and sync (docs/data-safety.md, "Disk faults"). A fault is thrown as the
 * {@link IOException} the file system would give, so it takes the same path as a real one: the
 * file turns it into IO_ERROR naming the file and the operation, and the message names the
 * injected fault too. Each server has its own instance (several run in one test JVM).
 *
 * <p>Costs one volatile read per write or sync while no rule is set. Thread-safe: rules are an
 * immutable array replaced under this object's monitor.
 */
public final class DiskFaults {
  private static final Logger LOG = LoggerFactory.getLogger(DiskFaults.class);
  /** The operations a rule can fail. */
  public enum Op {
    /** Writes and appends (including the zero fills and header of an encrypted file). */
    WRITE,
    /** fsync of a file, and of a directory ({@link Env#syncDir}). */
    SYNC
  }

  /** The errors a rule throws, with the message the JDK gives for them on Linux. */
  public enum Kind {
    EIO("Input/output error"),
    ENOSPC(NO_SPACE);

    private final String strerror;

    Kind(String strerror) {
      this.strerror = strerror;
    }
  }

  /** What the JDK says for ENOSPC; how {@link #isNoSpace} recognises a full disk. */
  private static final String NO_SPACE = "No space left on device";
  private static final Rule[] NONE = new Rule[0];

  /**
   * Fail {@code op} with {@code kind} on every file under {@code under} (itself included); a
   * sticky rule stays until cleared, a one-shot rule fires once.
   */
  public record Rule(Op op, Kind kind, Path under, boolean sticky) {
    public Rule {
      if (op == null || kind == null || under == null) {
        throw NyalaException.invalidArgument("disk fault rule: op, kind and path are required, "
            + "got op=%s kind=%s path=%s", op, kind, under);
      }
      under = under.toAbsolutePath().normalize();
    }

    boolean matches(Op o, Path file) {
      return op == o && file.toAbsolutePath().normalize().startsWith(under);
    }

    @Override
    public String toString() {
      return (sticky ? "" : "one-shot ") + kind + " on " + op.name().toLowerCase(Locale.ROOT)
          + " under " + under;
    }
  }

  /** The rules in force; replaced whole under {@code this}. */
  private volatile Rule[] rules = NONE;
  private final AtomicLong fired = new AtomicLong();

  /** Adds {@code rule}; it applies to the next write or sync, of files already open too. */
  public synchronized void inject(Rule rule) {
    Rule[] next = Arrays.copyOf(rules, rules.length + 1);
    next[rules.length] = rule;
    rules = next;
  }

  /**
   * Adds a rule per {@code --fault_disk_errors} spec, each logged as an unsafe test fault.
   *
   * @throws NyalaException INVALID_ARGUMENT naming a malformed spec
   */
  public void injectFlags(List<String> specs) {
    for (String spec : specs) {
      Rule r = parse(spec);
      inject(r);
      LOG.warn("UNSAFE test fault on: --fault_disk_errors: {}", r);
    }
  }

  /** Adds a sticky rule: {@code op} fails with {@code kind} under {@code under} until cleared. */
  public void inject(Op op, Kind kind, Path under) {
    inject(new Rule(op, kind, under, true));
  }

  /** Removes every rule: the disk works again (as when space is freed). */
  public synchronized void clear() {
    rules = NONE;
  }

  /** The rules in force. */
  public List<Rule> rules() {
    return List.of(rules);
  }

  /** How many faults were thrown so far. */
  public long fired() {
    return fired.get();
  }

  /** Throws the fault a rule sets for {@code op} on {@code file}, if any. */
  void check(Op op, Path file) throws IOException {
    Rule[] r = rules;
    if (r.length == 0) {
      return;
    }
    for (Rule rule : r) {
      if (rule.matches(op, file) && take(rule)) {
        fired.incrementAndGet();
        throw new IOException(rule.kind.strerror + " (injected disk fault: " + rule + ", "
            + op.name().toLowerCase(Locale.ROOT) + " of " + file + ")");
      }
    }
  }

  /** Whether {@code rule} fires now: a sticky one always, a one-shot one only once. */
  private synchronized boolean take(Rule rule) {
    if (rule.sticky) {
      return true;
    }
    List<Rule> left = new ArrayList<>(Arrays.asList(rules));
    // Identity: two equal one-shot rules fire once each.
    for (int i = 0; i < left.size(); i++) {
      if (left.get(i) == rule) {
        left.remove(i);
        rules = left.toArray(NONE);
        return true;
      }
    }
    return false; // another thread fired it first
  }

  /**
   * Whether {@code e} or one of its causes is a full disk (ENOSPC, injected or real): space may
   * come back, unlike after an EIO.
   */
  public static boolean isNoSpace(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t.getMessage() != null && t.getMessage().contains(NO_SPACE)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Parses {@code KIND:OP:PATH}, e.g. {@code EIO:SYNC:/data/1} or {@code ENOSPC:WRITE:/data/2}
   * (case-insensitive kind and op), as a sticky rule.
   */
  public static Rule parse(String spec) {
    String[] p = spec == null ? new String[0] : spec.split(":", 3);
    if (p.length != 3 || p[2].isEmpty()) {
      throw NyalaException.invalidArgument("disk fault '%s': expected KIND:OP:PATH, e.g. "
          + "EIO:SYNC:/data/1 (kinds %s, ops %s)", spec, Arrays.toString(Kind.values()),
          Arrays.toString(Op.values()));
    }
    try {
      return new Rule(Op.valueOf(p[1].toUpperCase(Locale.ROOT)),
          Kind.valueOf(p[0].toUpperCase(Locale.ROOT)), Path.of(p[2]), true);
    } catch (IllegalArgumentException e) {
      throw NyalaException.invalidArgument("disk fault '%s': bad kind, op or path (kinds %s, "
          + "ops %s)", spec, Arrays.toString(Kind.values()), Arrays.toString(Op.values()));
    }
  }
}
