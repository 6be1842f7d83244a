package io.nyala.common;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The rules the client-facing common module's package-info files state, checked on its main
 * classes (docs/conventions.md, "Architecture tests").
 */
@Timeout(60)
class ArchitectureTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
        .importPackages("io.nyala.common");
  }

  @Test
  void clientFacingCommonDependsOnNoServerCodeRatisOrLoggingBackend() {
    noClasses().that().resideInAPackage("io.nyala.common..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.nyala.master..", "io.nyala.tserver..", "io.nyala.client..",
            "io.nyala.minicluster..", "io.nyala.docker..", "org.apache.ratis..",
            "org.apache.logging..", "picocli..", "org.bouncycastle..")
        .because("common/package-info.java: what every application embedding the client "
            + "gets depends on gRPC and protobuf only (docs/architecture.md, \"Modules\")")
        .check(classes);
  }

  @Test
  void clientFacingPackagesStayOffTheServerSide() {
    noClasses().that().resideInAnyPackage(
            "io.nyala.common.schema..", "io.nyala.common.row..", "io.nyala.common.partition..")
        .should().dependOnClassesThat(resideInAPackage("io.nyala.common..").and(not(
            resideInAnyPackage("io.nyala.common", "io.nyala.common.schema..",
                "io.nyala.common.row..", "io.nyala.common.partition..",
                "io.nyala.common.proto.."))))
        .orShould().dependOnClassesThat().resideInAnyPackage("org.apache.ratis..", "io.grpc..")
        .because("common/schema/package-info.java: schemas and rows are shared by client "
            + "and servers, so they must not pull server code into the client")
        .check(classes);
  }
}
