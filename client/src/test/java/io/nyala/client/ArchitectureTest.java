package io.nyala.client;

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
 * The rules the client's package-info files state, checked on its main classes
 * (docs/conventions.md, "Architecture tests").
 */
@Timeout(60)
class ArchitectureTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.nyala.client");
  }

  @Test
  void clientNeverDependsOnServersOrRatis() {
    noClasses().that().resideInAPackage("io.nyala.client..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.nyala.master..", "io.nyala.tserver..", "io.nyala.minicluster..",
            "org.apache.ratis..")
        .because("client/package-info.java: the client talks to a cluster only over its "
            + "gRPC protocol; it ships without server code")
        .check(classes);
  }

  @Test
  void clientUsesOnlyTheClientFacingPartsOfCommon() {
    noClasses().that().resideInAPackage("io.nyala.client..")
        .should().dependOnClassesThat(resideInAPackage("io.nyala.common..").and(not(
            resideInAnyPackage("io.nyala.common", "io.nyala.common.proto..",
                "io.nyala.common.schema..", "io.nyala.common.row..",
                "io.nyala.common.partition.."))))
        .because("common/schema/package-info.java: schemas, rows, partitions, the wire "
            + "protocol and the error type are what common shares with the client")
        .check(classes);
  }

  @Test
  void transportKnowsNoMastersTabletsOrRows() {
    noClasses().that().resideInAPackage("io.nyala.client.rpc..")
        .should().dependOnClassesThat(resideInAPackage("io.nyala.client..")
            .and(not(resideInAPackage("io.nyala.client.rpc.."))))
        .orShould().dependOnClassesThat().resideInAnyPackage(
            "io.nyala.common.row..", "io.nyala.common.schema..")
        .because("client/rpc/package-info.java: owns no knowledge of masters, tablets or "
            + "rows")
        .check(classes);
  }

  @Test
  void masterCallsKnowNothingOfWhatTheyMean() {
    noClasses().that().resideInAPackage("io.nyala.client.master..")
        .should().dependOnClassesThat(resideInAPackage("io.nyala.client..")
            .and(not(resideInAnyPackage("io.nyala.client.master..", "io.nyala.client.rpc.."))))
        .because("client/master/package-info.java: knows nothing of what the calls mean; "
            + "DDL and location lookups are built on it elsewhere")
        .check(classes);
  }

  @Test
  void countersKnowNothingOfTheRestOfTheClient() {
    noClasses().that().resideInAPackage("io.nyala.client.stats..")
        .should().dependOnClassesThat(resideInAPackage("io.nyala.client..")
            .and(not(resideInAPackage("io.nyala.client.stats.."))))
        .because("client/stats/package-info.java: knows nothing of the rest of the client, so "
            + "that the root package and locations can both update it")
        .check(classes);
  }

  @Test
  void locationsKnowNothingOfRowsOrScans() {
    noClasses().that().resideInAPackage("io.nyala.client.locations..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.nyala.client", "io.nyala.common.row..")
        .because("client/locations/package-info.java: knows nothing of rows or scans; "
            + "callers hand in the request to send")
        .check(classes);
  }
}
