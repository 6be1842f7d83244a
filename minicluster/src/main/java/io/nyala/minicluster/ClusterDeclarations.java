package io.nyala.minicluster;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Where a test declares its cluster: a {@link NyalaCluster} on the test method, on the test
 * class or on a class enclosing it (the closest wins), or a {@code @RegisterExtension}
 * {@link MiniClusterExtension} field. Finds the declaration that applies to a context and
 * refuses declarations that contradict each other.
 */
final class ClusterDeclarations {
  private ClusterDeclarations() {
  }

  /**
   * The annotation that applies to {@code context}, validated.
   *
   * @param onMethod whether it sits on the test method (and so overrides the class's)
   */
  record Declared(ClusterSpec spec, boolean onMethod) {
  }

  /** The closest {@link NyalaCluster} for the context, if any. */
  static Optional<Declared> annotated(ExtensionContext context) {
    Optional<Method> method = context.getTestMethod();
    if (method.isPresent()) {
      Optional<NyalaCluster> a = AnnotationSupport.findAnnotation(method.get(),
          NyalaCluster.class);
      if (a.isPresent()) {
        String where = "@NyalaCluster on " + method.get().getDeclaringClass().getName() + "#"
            + method.get().getName();
        return Optional.of(new Declared(ClusterSpec.of(a.get()).validate(where), true));
      }
    }
    for (Class<?> c = context.getTestClass().orElse(null); c != null;
        c = c.getEnclosingClass()) {
      Optional<NyalaCluster> a = AnnotationSupport.findAnnotation(c, NyalaCluster.class);
      if (a.isPresent()) {
        String where = "@NyalaCluster on " + c.getName();
        return Optional.of(new Declared(ClusterSpec.of(a.get()).validate(where), false));
      }
    }
    return Optional.empty();
  }

  /**
   * Fails if the test class (with its superclasses and enclosing classes) declares its cluster
   * twice: a {@code @RegisterExtension MiniClusterExtension} field together with a
   * {@link NyalaCluster} anywhere, or two such fields.
   */
  static void checkNoConflict(Class<?> testClass) {
    List<Field> fields = new ArrayList<>();
    String annotated = null;
    for (Class<?> c = testClass; c != null; c = c.getEnclosingClass()) {
      fields.addAll(AnnotationSupport.findAnnotatedFields(c, RegisterExtension.class,
          f -> MiniClusterExtension.class.isAssignableFrom(f.getType())));
      if (annotated == null && AnnotationSupport.isAnnotated(c, NyalaCluster.class)) {
        annotated = "class " + c.getName();
      }
      for (Method m : c.getDeclaredMethods()) {
        if (annotated == null && AnnotationSupport.isAnnotated(m, NyalaCluster.class)) {
          annotated = "method " + c.getName() + "#" + m.getName();
        }
      }
    }
    if (fields.size() > 1) {
      throw new ExtensionConfigurationException("conflicting cluster declarations for "
          + testClass.getName() + ": " + fields.size() + " @RegisterExtension "
          + "MiniClusterExtension fields " + names(fields) + "; declare one");
    }
    if (!fields.isEmpty() && annotated != null) {
      throw new ExtensionConfigurationException("conflicting cluster declarations for "
          + testClass.getName() + ": the @RegisterExtension field " + names(fields)
          + " and @NyalaCluster on " + annotated + "; configure the cluster in one place "
          + "(the field's MiniClusterExtension.builder() has the same options)");
    }
  }

  /**
   * The instance (non-static) {@code @RegisterExtension} field of the test instance that holds
   * {@code extension}, if that is how it was registered.
   */
  static Optional<Field> instanceFieldHolding(Object extension, ExtensionContext context) {
    Optional<Object> instance = context.getTestInstance();
    if (instance.isEmpty()) {
      return Optional.empty();
    }
    List<Field> fields = AnnotationSupport.findAnnotatedFields(instance.get().getClass(),
        RegisterExtension.class, f -> !Modifier.isStatic(f.getModifiers()));
    for (Field f : fields) {
      try {
        f.setAccessible(true);
        if (f.get(instance.get()) == extension) {
          return Optional.of(f);
        }
      } catch (ReflectiveOperationException | RuntimeException e) {
        // A field we cannot read is not ours to judge.
      }
    }
    return Optional.empty();
  }

  private static String names(List<Field> fields) {
    List<String> names = new ArrayList<>();
    for (Field f : fields) {
      names.add(f.getDeclaringClass().getName() + "." + f.getName());
    }
    return String.join(", ", names);
  }

  /** The error for a per-class or shared extension registered from an instance field. */
  static ExtensionConfigurationException instanceFieldMisuse(Class<?> testClass,
      Field field) {
    return new ExtensionConfigurationException("MiniClusterExtension in "
        + testClass.getName() + " (field " + field.getName() + ") got no beforeAll callback: "
        + "a per-class or shared cluster must be registered per class, so make the "
        + "@RegisterExtension field static (\"@RegisterExtension static final "
        + "MiniClusterExtension CLUSTER = ...\") or use @NyalaCluster on the class. An instance "
        + "field would start and leak a cluster per test.");
  }
}
