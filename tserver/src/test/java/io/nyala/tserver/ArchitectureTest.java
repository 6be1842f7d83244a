package io.nyala.tserver;

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
 * The rules the tablet server's package-info files state, checked on its main classes
 * (docs/conventions.md, "Architecture tests"). Rules name packages by pattern
 * ({@code ..tserver.tablet..}) so that classes moving between subpackages keep them.
 */
@Timeout(60)
class ArchitectureTest {
  /** Where the RPC handlers live: the root package, or {@code service} once they move. */
  private static final String[] RPC_LAYER = {"io.nyala.tserver", "io.nyala.tserver.service.."};

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.nyala.tserver");
  }

  @Test
  void tserverNeverReachesIntoOtherServersOrTheClient() {
    noClasses().that().resideInAPackage("io.nyala.tserver..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.nyala.master..", "io.nyala.client..", "io.nyala.minicluster..")
        .because("tserver/package-info.java: the tablet server talks to the master over RPC "
            + "(docs/architecture.md, \"Modules\")")
        .check(classes);
  }

  @Test
  void blockStorageKnowsNoTablets() {
    noClasses().that().resideInAPackage("io.nyala.tserver.fs..")
        .should().dependOnClassesThat(resideInAPackage("io.nyala.tserver..")
            .and(not(resideInAPackage("io.nyala.tserver.fs.."))))
        .orShould().dependOnClassesThat().resideInAnyPackage("org.apache.ratis..", "io.grpc..")
        .because("tserver/fs/package-info.java: block storage must not know about tablets")
        .check(classes);
  }

  @Test
  void tabletStorageKnowsNothingOfRatisOrRpc() {
    noClasses().that().resideInAPackage("io.nyala.tserver.tablet..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "org.apache.ratis..", "io.grpc..", "io.nyala.common.rpc..",
            "io.nyala.common.consensus..", "io.nyala.tserver.consensus..",
            "io.nyala.tserver.replica..", "io.nyala.tserver.copy..", "io.nyala.tserver.scan..",
            "io.nyala.tserver.heartbeat..")
        .orShould().dependOnClassesThat().resideInAnyPackage(RPC_LAYER)
        .because("tserver/tablet/package-info.java: knows nothing of Ratis or RPC; the state "
            + "machine in consensus drives it")
        .check(classes);
  }

  @Test
  void pageFormatKnowsNothingOfRowsetsOrTablets() {
    noClasses().that().resideInAPackage("io.nyala.tserver.tablet.cfile..")
        .should().dependOnClassesThat(resideInAPackage("io.nyala.tserver.tablet..")
            .and(not(resideInAPackage("io.nyala.tserver.tablet.cfile.."))))
        .because("tserver/tablet/cfile/package-info.java: knows nothing of MVCC, rowsets or "
            + "tablets")
        .check(classes);
  }

  @Test
  void rowsetsLeaveFlushAndSuperblockToTheStore() {
    noClasses().that().resideInAPackage("io.nyala.tserver.tablet.rowset..")
        .should().dependOnClassesThat(resideInAPackage("io.nyala.tserver.tablet..")
            .and(not(resideInAnyPackage("io.nyala.tserver.tablet.rowset..",
                "io.nyala.tserver.tablet.cfile.."))))
        .because("tserver/tablet/rowset/package-info.java: does not decide when to flush or "
            + "compact and never writes the superblock; the tablet store does")
        .check(classes);
  }

  @Test
  void scannersKnowNothingOfRpcOrRaft() {
    noClasses().that().resideInAPackage("io.nyala.tserver.scan..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "org.apache.ratis..", "io.grpc..", "io.nyala.common.rpc..",
            "io.nyala.tserver.consensus..", "io.nyala.tserver.replica..")
        .orShould().dependOnClassesThat().resideInAnyPackage(RPC_LAYER)
        .because("tserver/scan/package-info.java: knows nothing of RPC or Raft")
        .check(classes);
  }

  @Test
  void heartbeatsNeverChangeTabletState() {
    noClasses().that().resideInAPackage("io.nyala.tserver.heartbeat..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.nyala.tserver.tablet..", "io.nyala.tserver.replica..",
            "io.nyala.tserver.consensus..")
        .because("tserver/heartbeat/package-info.java: reads tablet state (handed in as "
            + "reports); never changes it")
        .check(classes);
  }

  @Test
  void replicasAreCalledByTheRpcHandlersNeverTheOtherWay() {
    noClasses().that().resideInAPackage("io.nyala.tserver.replica..")
        .should().dependOnClassesThat().resideInAnyPackage("io.nyala.tserver.service..")
        .because("tserver/replica/package-info.java: RPC handlers call in here")
        .check(classes);
  }

  @Test
  void tabletCopyDoesNotTouchReplicasDirectly() {
    noClasses().that().resideInAPackage("io.nyala.tserver.copy..")
        .should().dependOnClassesThat().resideInAPackage("io.nyala.tserver.replica..")
        .because("tserver/copy/package-info.java: owns sessions and transfers only; must not "
            + "touch stores or Raft groups directly")
        .check(classes);
  }
}
