package io.nyala.master;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The rules the master's package-info files state, checked on its main classes
 * (docs/conventions.md, "Architecture tests").
 */
@Timeout(60)
class ArchitectureTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.nyala.master");
  }

  @Test
  void masterNeverReachesIntoOtherServersOrTheClient() {
    noClasses().that().resideInAPackage("io.nyala.master..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.nyala.tserver..", "io.nyala.client..", "io.nyala.minicluster..")
        .because("master/package-info.java: the master must not touch the tservers' "
            + "internals; it talks to them over RPC")
        .check(classes);
  }

  @Test
  void placementIsPure() {
    noClasses().that().resideInAPackage("io.nyala.master.placement..")
        .should().dependOnClassesThat(resideInAPackage("io.nyala.master..")
            .and(not(resideInAPackage("io.nyala.master.placement.."))))
        .orShould().dependOnClassesThat().resideInAnyPackage(
            "java.io..", "java.nio..", "java.net..", "io.grpc..", "org.apache.ratis..",
            "io.nyala.common.rpc..", "io.nyala.common.env..", "io.nyala.common.fs..",
            "io.nyala.common.consensus..")
        .because("master/placement/package-info.java: pure functions of the loads it is "
            + "given; no registry or catalog access, no I/O")
        .check(classes);
  }

  @Test
  void tsManagerKnowsNothingAboutTheCatalog() {
    noClasses().that().resideInAPackage("io.nyala.master.tsmanager..")
        .should().dependOnClassesThat().resideInAPackage("io.nyala.master.catalog..")
        .because("master/tsmanager/package-info.java: knows nothing about the catalog")
        .check(classes);
  }

  @Test
  void catalogDoesNotDependOnTheRpcLayer() {
    noClasses().that().resideInAPackage("io.nyala.master.catalog..")
        .should().dependOnClassesThat().resideInAPackage("io.nyala.master")
        .because("master/catalog/package-info.java: must not depend on the master's RPC "
            + "layer")
        .check(classes);
  }
}
