package io.nyala.minicluster;

import io.nyala.client.AsyncNyalaClient;
import io.nyala.client.NyalaClient;
import io.nyala.minicluster.ClusterDeclarations.Declared;
import io.nyala.minicluster.NyalaCluster.Lifecycle;
import io.nyala.minicluster.evidence.KeepClusterOnFailure;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that gives tests a {@link MiniCluster} and injects it, a client connected to
 * it and that client's asynchronous side as parameters of type {@link MiniCluster},
 * {@link NyalaClient} and {@link AsyncNyalaClient}: into test methods, {@code @BeforeEach} /
 * {@code @AfterEach} methods, {@code @BeforeAll} / {@code @AfterAll} methods and constructors
 * (not for {@link Lifecycle#PER_METHOD} clusters in the class-level ones, which run before any
 * test). The client is made once per cluster and closed with it.
 *
 * <p>Declare the cluster with {@link NyalaCluster} on the class or a method (it registers this
 * extension), or register the extension from a <b>static</b> field with the same options, which
 * also makes the cluster reachable through {@link #cluster()} and {@link #client()}:
 *
 * <pre>{@code
 * @NyalaCluster(tservers = 1, lifecycle = NyalaCluster.Lifecycle.SHARED)
 * class ScanTest {
 *   @Test void scans(NyalaClient client) { ... }
 * }
 *
 * class RestartTest {
 *   @RegisterExtension
 *   static final MiniClusterExtension CLUSTER = MiniClusterExtension.builder()
 *       .tservers(3).tserverFlag("--heartbeat_interval_ms=300").build();
 *
 *   @Test void survives(MiniCluster cluster) { CLUSTER.cluster().restartTabletServer(0); ... }
 * }
 * }</pre>
 *
 * <p>{@code @ExtendWith(MiniClusterExtension.class)} alone gives the default cluster (1 master, 3
 * tablet servers, in-process, per class). Each cluster sits in the {@link ExtensionContext.Store}
 * its {@link Lifecycle} names (the test method's, the test class's, or the root one for
 * {@link Lifecycle#SHARED}), keyed by its full configuration, and is closed when that context
 * ends. Misuse fails the test with an {@link ExtensionConfigurationException} (or a
 * {@link ParameterResolutionException}) naming the test class: an instance (non-static)
 * {@code @RegisterExtension} field for a per-class or shared cluster, which would start and
 * leak a cluster per test; a field together with {@link NyalaCluster}; options the
 * {@link MiniCluster.Builder} refuses; a parameter of another Nyala type.
 */
public final class MiniClusterExtension implements BeforeAllCallback, AfterAllCallback,
    BeforeEachCallback, AfterEachCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(MiniClusterExtension.class);

  /** The builder's spec; null for the instance {@link NyalaCluster} registers. */
  private final ClusterSpec configured;
  private volatile boolean beforeAllRan;
  /** The class-level cluster this instance started first, and the class it started it for. */
  private volatile RunningCluster classCluster;
  private volatile String classOwner;
  /** The cluster of the test running now, or the class's. */
  private volatile RunningCluster current;

  /**
   * The extension {@code @ExtendWith(MiniClusterExtension.class)} and {@link NyalaCluster}
   * register: the cluster {@link NyalaCluster} declares, or the default one without it.
   */
  public MiniClusterExtension() {
    this.configured = null;
  }

  /**
   * A per-class cluster configured by {@code configure} (any builder setting); register it from
   * a static field. {@link #builder()} has the common options and the other lifecycles.
   *
   * <pre>{@code
   * @RegisterExtension
   * static final MiniClusterExtension CLUSTER =
   *     new MiniClusterExtension(b -> b.numMasters(3).readyTimeoutMs(120_000));
   * }</pre>
   */
  public MiniClusterExtension(Consumer<MiniCluster.Builder> configure) {
    this(ClusterSpec.DEFAULT.withConfigure(requireNonNull(configure)));
  }

  private MiniClusterExtension(ClusterSpec spec) {
    this.configured = spec;
  }

  private static <T> T requireNonNull(T t) {
    if (t == null) {
      throw new NullPointerException("configure");
    }
    return t;
  }

  /**
   * Starts configuring an extension to register from a static field:
   *
   * <pre>{@code
   * @RegisterExtension
   * static final MiniClusterExtension CLUSTER = MiniClusterExtension.builder()
   *     .masters(1).tservers(1).lifecycle(NyalaCluster.Lifecycle.SHARED).build();
   * }</pre>
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Checks the declarations and starts the class's cluster unless it is per method. */
  @Override
  public void beforeAll(ExtensionContext context) {
    beforeAllRan = true;
    ClusterDeclarations.checkNoConflict(context.getRequiredTestClass());
    Declared d = declared(context);
    if (d.spec().lifecycle() != Lifecycle.PER_METHOD) {
      RunningCluster r = obtain(context, d);
      if (classOwner == null) {
        classOwner = context.getUniqueId();
        classCluster = r;
      }
      current = r;
    }
  }

  /**
   * Forgets the class's cluster once the class that started it ends; its store closes it,
   * keeping its data and logs if the class failed.
   */
  @Override
  public void afterAll(ExtensionContext context) {
    keepIfFailed(context, classCluster);
    if (context.getUniqueId().equals(classOwner)) {
      classOwner = null;
      classCluster = null;
      current = null;
    }
  }

  /**
   * Starts (or finds) the test's cluster; fails a test whose per-class or shared extension came
   * from an instance field, which gets no class-level callbacks.
   */
  @Override
  public void beforeEach(ExtensionContext context) {
    Declared d = declared(context);
    if (!beforeAllRan) {
      Optional<Field> field = ClusterDeclarations.instanceFieldHolding(this, context);
      if (field.isPresent() && d.spec().lifecycle() != Lifecycle.PER_METHOD) {
        throw ClusterDeclarations.instanceFieldMisuse(context.getRequiredTestClass(),
            field.get());
      }
      ClusterDeclarations.checkNoConflict(context.getRequiredTestClass());
    }
    current = obtain(context, d);
  }

  /**
   * Marks the test's cluster to keep its data and logs when it closes if the test failed, then
   * goes back to the class's cluster, if any.
   */
  @Override
  public void afterEach(ExtensionContext context) {
    keepIfFailed(context, current);
    current = classCluster;
  }

  private static void keepIfFailed(ExtensionContext context, RunningCluster r) {
    if (r != null) {
      KeepClusterOnFailure.keepIfFailed(context, r.cluster().dataRoot());
    }
  }

  /**
   * True for parameters of type {@link MiniCluster}, {@link NyalaClient} or
   * {@link AsyncNyalaClient}, and for other types of the client and minicluster packages, which
   * {@link #resolveParameter} refuses with a message saying what it injects.
   */
  @Override
  public boolean supportsParameter(ParameterContext parameterContext,
      ExtensionContext extensionContext) {
    Class<?> type = parameterContext.getParameter().getType();
    String pkg = type.getPackageName();
    return injectable(type) || pkg.equals("io.nyala.client")
        || pkg.equals(MiniCluster.class.getPackageName());
  }

  private static boolean injectable(Class<?> type) {
    return type == MiniCluster.class || type == NyalaClient.class
        || type == AsyncNyalaClient.class;
  }

  /** The test's cluster, its client, or that client's asynchronous side. */
  @Override
  public Object resolveParameter(ParameterContext parameterContext,
      ExtensionContext extensionContext) {
    Class<?> type = parameterContext.getParameter().getType();
    if (!injectable(type)) {
      throw new ParameterResolutionException("MiniClusterExtension cannot inject parameter "
          + parameterContext.getIndex() + " (" + type.getName() + ") of "
          + parameterContext.getDeclaringExecutable() + " in "
          + extensionContext.getRequiredTestClass().getName() + ": it injects MiniCluster, "
          + "NyalaClient and AsyncNyalaClient; make the rest from those");
    }
    RunningCluster r = obtain(extensionContext, declared(extensionContext));
    if (type == MiniCluster.class) {
      return r.cluster();
    }
    if (type == NyalaClient.class) {
      return r.client();
    }
    return r.client().getAsyncClient();
  }

  /**
   * Constructor parameters of a per-method test instance resolve in the test method's context,
   * so that they get that test's cluster.
   */
  @Override
  public ExtensionContextScope getTestInstantiationExtensionContextScope(
      ExtensionContext rootContext) {
    return ExtensionContextScope.TEST_METHOD;
  }

  /**
   * The running cluster of the current test (or of the class, between tests). Tests that run
   * in parallel with clusters of their own should take parameters instead: this is the cluster
   * of the test that started last.
   *
   * <pre>{@code
   * @Test void survivesARestart() { CLUSTER.cluster().restartTabletServer(0); ... }
   * }</pre>
   *
   * @throws IllegalStateException outside the lifetime of the tests that registered it
   */
  public MiniCluster cluster() {
    return requireCurrent().cluster();
  }

  /**
   * The client of the current test's cluster, shared by the tests that share the cluster and
   * closed with it.
   *
   * <pre>{@code
   * @Test void lists() { assertThat(CLUSTER.client().listTables()).isEmpty(); }
   * }</pre>
   *
   * @throws IllegalStateException outside the lifetime of the tests that registered it
   */
  public NyalaClient client() {
    return requireCurrent().client();
  }

  private RunningCluster requireCurrent() {
    RunningCluster r = current;
    if (r == null) {
      throw new IllegalStateException("no MiniCluster is running: call cluster() and client() "
          + "from tests of the class that registers the extension from a static field");
    }
    return r;
  }

  /** The builder's spec, or the annotation that applies, or the default. */
  private Declared declared(ExtensionContext context) {
    if (configured != null) {
      String where = "MiniClusterExtension registered in "
          + context.getTestClass().map(Class::getName).orElse("?");
      return new Declared(configured.validate(where), false);
    }
    return ClusterDeclarations.annotated(context)
        .orElse(new Declared(ClusterSpec.DEFAULT, false));
  }

  /** The cluster for {@code d} in the store its lifecycle names, started there if absent. */
  private static RunningCluster obtain(ExtensionContext context, Declared d) {
    ClusterSpec spec = d.spec();
    ExtensionContext.Store store = switch (spec.lifecycle()) {
      case SHARED -> context.getRoot().getStore(NAMESPACE);
      case PER_METHOD -> {
        if (context.getTestMethod().isEmpty()) {
          throw new ExtensionConfigurationException("a PER_METHOD cluster for "
              + context.getRequiredTestClass().getName() + " cannot be injected before its "
              + "tests (@BeforeAll, @AfterAll or a @TestInstance(PER_CLASS) constructor): use "
              + "@BeforeEach or lifecycle PER_CLASS");
        }
        yield context.getStore(NAMESPACE);
      }
      // The store looks in its parents' first: an equal spec reuses the enclosing cluster.
      case PER_CLASS -> d.onMethod() ? context.getStore(NAMESPACE)
          : classContext(context).getStore(NAMESPACE);
    };
    return store.getOrComputeIfAbsent(spec, k -> RunningCluster.start(spec),
        RunningCluster.class);
  }

  private static ExtensionContext classContext(ExtensionContext context) {
    ExtensionContext c = context;
    while (c.getTestMethod().isPresent() && c.getParent().isPresent()) {
      c = c.getParent().get();
    }
    return c;
  }

  /**
   * The options of {@link NyalaCluster} for a {@code @RegisterExtension} static field. They are
   * checked when the first test class using it starts, so the error names that class.
   */
  public static final class Builder {
    private int masters = ClusterSpec.DEFAULT.masters();
    private int tservers = ClusterSpec.DEFAULT.tservers();
    private boolean encryption;
    private boolean tls = true;
    private ProcessMode processMode = ProcessMode.IN_PROCESS;
    private final List<String> tserverFlags = new ArrayList<>();
    private final List<String> masterFlags = new ArrayList<>();
    private Lifecycle lifecycle = Lifecycle.PER_CLASS;
    private Consumer<MiniCluster.Builder> configure;

    private Builder() {
    }

    /** Number of masters, at least 1 (default 1). */
    public Builder masters(int n) {
      this.masters = n;
      return this;
    }

    /** Number of tablet servers, 1..240 (default 3). */
    public Builder tservers(int n) {
      this.tservers = n;
      return this;
    }

    /** Encryption at rest on every server (default off). */
    public Builder encryption(boolean on) {
      this.encryption = on;
      return this;
    }

    /** TLS and authentication on every server (default on); off for a plaintext cluster. */
    public Builder tls(boolean on) {
      this.tls = on;
      return this;
    }

    /** Servers in this JVM (default) or each in its own process. */
    public Builder processMode(ProcessMode mode) {
      this.processMode = mode;
      return this;
    }

    /** Flags for every tablet server, each {@code "--name=value"}. */
    public Builder tserverFlag(String... flags) {
      tserverFlags.addAll(List.of(flags));
      return this;
    }

    /** Flags for every master, each {@code "--name=value"}. */
    public Builder masterFlag(String... flags) {
      masterFlags.addAll(List.of(flags));
      return this;
    }

    /** Which tests share the cluster (default {@link Lifecycle#PER_CLASS}). */
    public Builder lifecycle(Lifecycle l) {
      this.lifecycle = l;
      return this;
    }

    /**
     * Any other {@link MiniCluster.Builder} setting, applied after the options above. A shared
     * cluster is reused only by extensions built with this same {@code configure} object.
     */
    public Builder configure(Consumer<MiniCluster.Builder> configure) {
      this.configure = configure;
      return this;
    }

    /** The extension; register it from a static {@code @RegisterExtension} field. */
    public MiniClusterExtension build() {
      return new MiniClusterExtension(new ClusterSpec(masters, tservers, encryption, tls,
          processMode, tserverFlags, masterFlags, lifecycle, configure));
    }
  }
}
