package io.nyala.minicluster;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The rules the minicluster's package-info files state, checked on its main classes
 * (docs/conventions.md, "Architecture tests").
 */
@Timeout(60)
class ArchitectureTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.nyala.minicluster");
  }

  @Test
  void denseNodeToolingNeverReachesIntoAServer() {
    noClasses().that().resideInAPackage("io.nyala.minicluster.dense..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.nyala.master..", "io.nyala.tserver..")
        .because("minicluster/dense/package-info.java: reads only through public RPCs, web "
            + "pages and /proc; never reaches into a server object")
        .check(classes);
  }
}
