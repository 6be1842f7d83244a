package io.nyala.minicluster;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class or method a {@link MiniCluster} and injects it, a client connected to it
 * ({@link io.nyala.client.NyalaClient}) and that client's asynchronous side
 * ({@link io.nyala.client.AsyncNyalaClient}) as parameters. The annotation registers
 * {@link MiniClusterExtension} itself, so it is enough on its own:
 *
 * <pre>{@code
 * @NyalaCluster(tservers = 1, lifecycle = NyalaCluster.Lifecycle.SHARED)
 * class ScanTest {
 *   @Test void scans(NyalaClient client) { ... }
 *
 *   @Test
 *   @NyalaCluster(tservers = 1, tserverFlags = "--scanner_ttl_ms=2000")   // its own cluster
 *   void expiresScanners(MiniCluster cluster, NyalaClient client) { ... }
 * }
 * }</pre>
 *
 * <p>On a method it overrides the class's (or an enclosing class's) annotation for that test: a
 * configuration equal to the class's uses the class's cluster, any other gets its own. It must
 * not be combined with a {@code @RegisterExtension} {@link MiniClusterExtension} field in the
 * same class (the field's builder has the same options); the extension fails such a test with
 * an {@link org.junit.jupiter.api.extension.ExtensionConfigurationException}, as it does for
 * numbers the {@link MiniCluster.Builder} refuses.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(MiniClusterExtension.class)
public @interface NyalaCluster {
  /** Number of masters, at least 1 (use 3 to survive losing one). */
  int masters() default 1;

  /** Number of tablet servers, 1..240. */
  int tservers() default 3;

  /** Encryption at rest on every server ({@link MiniCluster.Builder#encryption(boolean)}). */
  boolean encryption() default false;

  /**
   * TLS and authentication on every server (default true); false for a plaintext cluster open
   * to anyone ({@link MiniCluster.Builder#tls(boolean)}).
   */
  boolean tls() default true;

  /** Servers in this JVM (default) or each in its own process. */
  ProcessMode processMode() default ProcessMode.IN_PROCESS;

  /** Flags for every tablet server, each {@code "--name=value"}. */
  String[] tserverFlags() default {};

  /** Flags for every master, each {@code "--name=value"}. */
  String[] masterFlags() default {};

  /** Which tests share the cluster; see {@link Lifecycle}. */
  Lifecycle lifecycle() default Lifecycle.PER_CLASS;

  /** How long a cluster lives and which tests see the same one. */
  enum Lifecycle {
    /**
     * A fresh cluster for each test method, closed when the method ends. It cannot be injected
     * into {@code @BeforeAll} methods or the constructor of a {@code @TestInstance(PER_CLASS)}
     * class, which run before any test.
     */
    PER_METHOD,
    /**
     * One cluster for the test class (its {@code @Nested} classes use it too when their
     * configuration is equal), closed when the class ends. The default.
     */
    PER_CLASS,
    /**
     * One cluster for every test class of this JVM's test run that asks for an equal
     * configuration (all options equal, flags in the same order), closed when the run ends.
     * The fastest, for tests that do not stop servers or change cluster-wide state that other
     * classes would see; tables should have names of their own.
     */
    SHARED
  }
}
