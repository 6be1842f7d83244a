package io.nyala.minicluster;

import io.nyala.client.AsyncNyalaClient;
import io.nyala.client.NyalaClient;
import io.nyala.minicluster.evidence.KeepClusterOnFailure;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that runs one {@link MiniCluster} per test class and hands it, and a client
 * connected to it, to the tests.
 *
 * <p>Declared with {@code @ExtendWith}, it starts a default cluster (1 master, 3 tablet servers,
 * in-process) and injects parameters of type {@link MiniCluster}, {@link NyalaClient} and
 * {@link AsyncNyalaClient} into test methods, constructors and {@code @BeforeAll} /
 * {@code @BeforeEach} / {@code @AfterEach} / {@code @AfterAll} methods:
 *
 * <pre>{@code
 * @ExtendWith(MiniClusterExtension.class)
 * class PeopleTest {
 *   @Test void writes(NyalaClient client) { client.createTable("t", schema, options); ... }
 *   @Test void restarts(MiniCluster cluster) { cluster.restartTabletServer(0); ... }
 * }
 * }</pre>
 *
 * <p>Registered from a <b>static</b> field, the builder can be configured, and the cluster and
 * client are also reachable through {@link #cluster()} and {@link #client()}:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final MiniClusterExtension CLUSTER =
 *     new MiniClusterExtension(b -> b.numTabletServers(1));
 *
 * @Test void writes() { NyalaClient client = CLUSTER.client(); ... }
 * @Test void alsoWrites(NyalaClient client) { ... }   // the same client
 * }</pre>
 *
 * <p>The cluster lives in the test class's {@link ExtensionContext.Store}: it is created at the
 * class's start (or by the first parameter that needs it, e.g. a constructor parameter of a
 * {@code @TestInstance(PER_CLASS)} class) and closed, with its clients, when the class ends.
 * {@code @Nested} classes share their enclosing class's cluster. The client handed out is created
 * once per cluster. A non-static {@code @RegisterExtension} field (or a method-level
 * {@code @ExtendWith}) only gets per-method callbacks, so it fails the test with an
 * {@link ExtensionConfigurationException} instead of starting a cluster per test.
 */
public final class MiniClusterExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback,
    ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(MiniClusterExtension.class);

  private final Consumer<MiniCluster.Builder> configure;
  private volatile boolean beforeAllRan;
  private volatile Running running;

  /**
   * A cluster with the builder's defaults (1 master, 3 tablet servers, in-process). This is the
   * constructor {@code @ExtendWith} uses:
   *
   * <pre>{@code
   * @ExtendWith(MiniClusterExtension.class)
   * class MyTest {
   *   @Test void scans(NyalaClient client) { ... }
   * }
   * }</pre>
   */
  public MiniClusterExtension() {
    this(b -> { });
  }

  /**
   * A cluster configured by {@code configure}; register it from a static field:
   *
   * <pre>{@code
   * @RegisterExtension
   * static final MiniClusterExtension CLUSTER =
   *     new MiniClusterExtension(b -> b.numMasters(3).numTabletServers(3));
   * }</pre>
   */
  public MiniClusterExtension(Consumer<MiniCluster.Builder> configure) {
    if (configure == null) {
      throw new NullPointerException("configure");
    }
    this.configure = configure;
  }

  /** Starts the cluster for the test class (a {@code @Nested} class reuses its parent's). */
  @Override
  public void beforeAll(ExtensionContext context) {
    beforeAllRan = true;
    running(context);
  }

  /**
   * Forgets the cluster once the class that created it ends; its store closes the cluster,
   * keeping its data and logs if the class failed.
   */
  @Override
  public void afterAll(ExtensionContext context) {
    Running r = running;
    keepIfFailed(context, r);
    if (r != null && r.ownerId.equals(context.getUniqueId())) {
      running = null;
    }
  }

  /**
   * Fails a test whose extension never got a class-level callback: an instance (non-static)
   * {@code @RegisterExtension} field or a method-level {@code @ExtendWith}.
   */
  @Override
  public void beforeEach(ExtensionContext context) {
    checkRegisteredPerClass(beforeAllRan, context.getRequiredTestClass());
  }

  /** Marks the class's cluster to keep its data and logs when it closes if the test failed. */
  @Override
  public void afterEach(ExtensionContext context) {
    keepIfFailed(context, running);
  }

  private static void keepIfFailed(ExtensionContext context, Running r) {
    if (r != null) {
      KeepClusterOnFailure.keepIfFailed(context, r.cluster.dataRoot());
    }
  }

  /**
   * Throws the misuse error if {@code beforeAllRan} is false. Package-private for its test.
   */
  static void checkRegisteredPerClass(boolean beforeAllRan, Class<?> testClass) {
    if (!beforeAllRan) {
      throw new ExtensionConfigurationException("MiniClusterExtension in "
          + testClass.getName() + " got no beforeAll callback: it must be registered per class, "
          + "so make the @RegisterExtension field static (\"@RegisterExtension static final "
          + "MiniClusterExtension CLUSTER = ...\") or use @ExtendWith(MiniClusterExtension.class)"
          + " on the class. An instance field would start and leak a cluster per test.");
    }
  }

  /**
   * True for parameters of type {@link MiniCluster}, {@link NyalaClient} or
   * {@link AsyncNyalaClient}.
   */
  @Override
  public boolean supportsParameter(ParameterContext parameterContext,
      ExtensionContext extensionContext) {
    Class<?> type = parameterContext.getParameter().getType();
    return type == MiniCluster.class || type == NyalaClient.class
        || type == AsyncNyalaClient.class;
  }

  /** The class's cluster, its client, or that client's asynchronous side. */
  @Override
  public Object resolveParameter(ParameterContext parameterContext,
      ExtensionContext extensionContext) {
    Running r = running(extensionContext);
    Class<?> type = parameterContext.getParameter().getType();
    if (type == MiniCluster.class) {
      return r.cluster;
    }
    if (type == NyalaClient.class) {
      return r.client;
    }
    return r.client.getAsyncClient();
  }

  /**
   * The running cluster.
   *
   * <pre>{@code
   * @Test void survivesARestart() { CLUSTER.cluster().restartTabletServer(0); ... }
   * }</pre>
   *
   * <p>With {@code @ExtendWith}, declare a {@code MiniCluster} parameter instead.
   *
   * @throws IllegalStateException outside the test class's lifetime
   */
  public MiniCluster cluster() {
    return requireRunning().cluster;
  }

  /**
   * A client shared by the class's tests, closed with the cluster.
   *
   * <pre>{@code
   * @Test void lists() { assertThat(CLUSTER.client().listTables()).isEmpty(); }
   * }</pre>
   *
   * <p>With {@code @ExtendWith}, declare a {@code NyalaClient} parameter instead.
   *
   * @throws IllegalStateException outside the test class's lifetime
   */
  public NyalaClient client() {
    return requireRunning().client;
  }

  private Running requireRunning() {
    Running r = running;
    if (r == null) {
      throw new IllegalStateException("no MiniCluster is running: call cluster() and client() "
          + "from tests of the class that registers the extension from a static field");
    }
    return r;
  }

  /** The cluster of the closest class context, created there if no class above has one. */
  private Running running(ExtensionContext context) {
    ExtensionContext classContext = classContext(context);
    // The store looks in the enclosing classes' stores first, so @Nested classes share one.
    Running r = classContext.getStore(NAMESPACE).getOrComputeIfAbsent(this,
        k -> start(classContext.getUniqueId()), Running.class);
    running = r;
    return r;
  }

  private static ExtensionContext classContext(ExtensionContext context) {
    ExtensionContext c = context;
    while (c.getTestMethod().isPresent()) {
      Optional<ExtensionContext> parent = c.getParent();
      if (parent.isEmpty()) {
        break;
      }
      c = parent.get();
    }
    return c;
  }

  private Running start(String ownerId) {
    MiniCluster.Builder b = MiniCluster.builder();
    configure.accept(b);
    MiniCluster cluster = b.build();
    try {
      return new Running(cluster, cluster.newClient(), ownerId);
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /**
   * A cluster and its shared client, closed by the store of the class context that created it.
   * Both interfaces: JUnit 5.13+ closes {@link AutoCloseable} values (and deprecates
   * {@code CloseableResource}), older versions only close {@code CloseableResource}.
   */
  @SuppressWarnings("deprecation")
  private static final class Running implements ExtensionContext.Store.CloseableResource,
      AutoCloseable {
    final MiniCluster cluster;
    final NyalaClient client;
    final String ownerId;

    Running(MiniCluster cluster, NyalaClient client, String ownerId) {
      this.cluster = cluster;
      this.client = client;
      this.ownerId = ownerId;
    }

    /** Closes the client (the cluster closes the clients it made) and stops every server. */
    @Override
    public void close() {
      cluster.close();
    }
  }
}
