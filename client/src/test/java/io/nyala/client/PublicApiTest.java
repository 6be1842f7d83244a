package io.nyala.client;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.nyala.common.InternalApi;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What an application sees of the client and of the client-facing common packages holds no gRPC
 * or protobuf type unless marked {@link InternalApi} (docs/conventions.md, "The client's public
 * API"). The client's subpackages ({@code rpc}, {@code master}, {@code locations}) are not API
 * (client/package-info.java) and are not checked here.
 */
@Timeout(60)
class PublicApiTest {
  /** The packages an application programs against. */
  private static final List<String> API_PACKAGES = List.of("io.nyala.client", "io.nyala.common",
      "io.nyala.common.schema", "io.nyala.common.row", "io.nyala.common.partition");
  /** API types outside those packages: what the client throws when a server is unreachable. */
  private static final List<String> API_CLASSES = List.of("io.nyala.client.rpc.TransportException");
  /** Where wire and transport types live. */
  private static final List<String> WIRE_PACKAGES =
      List.of("io.grpc", "com.google.protobuf", "io.nyala.common.proto");

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.nyala.client", "io.nyala.common");
  }

  @Test
  void publicMethodsOfTheApiUseNoWireTypesUnlessInternal() {
    codeUnits().that(visibleToApplications())
        .should(useNoWireTypes())
        .because("common/InternalApi.java: wire codecs are for Nyala's own modules; an "
            + "application sees only Nyala's types")
        .check(classes);
  }

  private static DescribedPredicate<JavaCodeUnit> visibleToApplications() {
    return DescribedPredicate.describe("are public or protected members of the API packages, "
        + "not marked @InternalApi", u -> isVisible(u.getModifiers().contains(JavaModifier.PUBLIC)
            || u.getModifiers().contains(JavaModifier.PROTECTED), u.getOwner())
        && !u.isAnnotatedWith(InternalApi.class) && !isSynthetic(u));
  }

  private static boolean isVisible(boolean memberVisible, JavaClass owner) {
    if (!memberVisible || !(API_PACKAGES.contains(owner.getPackageName())
        || API_CLASSES.contains(owner.getName()))) {
      return false;
    }
    for (JavaClass c = owner; c != null; c = c.getEnclosingClass().orElse(null)) {
      if (!c.getModifiers().contains(JavaModifier.PUBLIC) || c.isAnnotatedWith(InternalApi.class)) {
        return false;
      }
    }
    return true;
  }

  private static boolean isSynthetic(JavaCodeUnit u) {
    return u.getModifiers().contains(JavaModifier.SYNTHETIC)
        || u.getModifiers().contains(JavaModifier.BRIDGE);
  }

  private static ArchCondition<JavaCodeUnit> useNoWireTypes() {
    return new ArchCondition<>("take and return no gRPC or protobuf type") {
      @Override
      public void check(JavaCodeUnit u, ConditionEvents events) {
        // Type arguments count: a List<PartitionPB> is as much a wire type as a PartitionPB.
        Set<JavaClass> used = new LinkedHashSet<>(u.getReturnType().getAllInvolvedRawTypes());
        for (JavaType p : u.getParameterTypes()) {
          used.addAll(p.getAllInvolvedRawTypes());
        }
        for (JavaClass t : used) {
          JavaClass base = t.isArray() ? t.getBaseComponentType() : t;
          if (isWire(base)) {
            events.add(SimpleConditionEvent.violated(u, u.getFullName() + " uses "
                + base.getName() + "; mark it @InternalApi or keep it package-private"));
          }
        }
      }
    };
  }

  private static boolean isWire(JavaClass t) {
    String p = t.getPackageName();
    for (String w : WIRE_PACKAGES) {
      if (p.equals(w) || p.startsWith(w + ".")) {
        return true;
      }
    }
    return false;
  }
}
