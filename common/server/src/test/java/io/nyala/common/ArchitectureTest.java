package io.nyala.common;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The rules the server-side common module's package-info files state, checked on its main
 * classes (docs/conventions.md, "Architecture tests"). The client-facing packages have their
 * own rules in common/wire.
 */
@Timeout(60)
class ArchitectureTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.nyala.common");
  }

  @Test
  void commonDependsOnNoOtherModule() {
    noClasses().that().resideInAPackage("io.nyala.common..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.nyala.master..", "io.nyala.tserver..", "io.nyala.client..",
            "io.nyala.minicluster..", "io.nyala.docker..")
        .because("common/package-info.java: common is the shared foundation the servers "
            + "build on (docs/architecture.md, \"Modules\")")
        .check(classes);
  }

  @Test
  void envKnowsNothingOfServerDirectoriesOrRaft() {
    noClasses().that().resideInAPackage("io.nyala.common.env..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.nyala.common.fs..", "io.nyala.common.consensus..", "io.nyala.common.server..",
            "org.apache.ratis..")
        .because("common/env/package-info.java: env is the only door to the disk and knows "
            + "nothing of blocks, tablets or WALs")
        .check(classes);
  }

  @Test
  void consensusOwnsNoStateMachine() {
    noClasses().that().resideInAPackage("io.nyala.common.consensus..")
        .should().beAssignableTo("org.apache.ratis.statemachine.StateMachine")
        .because("common/consensus/package-info.java: owns no state machine; those live "
            + "with their server")
        .check(classes);
  }

  @Test
  void pkiHoldsValuesOnlyAndAloneUsesBouncyCastlesPkix() {
    noClasses().that().resideInAPackage("io.nyala.common.security.pki..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.nyala.common.env..", "io.nyala.common.fs..", "io.nyala.common.consensus..",
            "io.nyala.common.server..", "io.nyala.common.rpc..", "io.nyala.common.web..")
        .because("common/security/pki/package-info.java: it holds values only, stores no "
            + "files and knows no server directories, catalog or Raft state")
        .check(classes);
    noClasses().that().resideOutsideOfPackage("io.nyala.common.security.pki..")
        .should().dependOnClassesThat().resideInAnyPackage("org.bouncycastle.cert..",
            "org.bouncycastle.pkcs..", "org.bouncycastle.operator..", "org.bouncycastle.openssl..")
        .because("common/security/pki/package-info.java: the only package that uses Bouncy "
            + "Castle's PKIX classes")
        .check(classes);
  }

  @Test
  void wireTlsKnowsNoServerAndUsesNoBouncyCastle() {
    noClasses().that().resideInAPackage("io.nyala.common.security.tls..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.nyala.common.env..", "io.nyala.common.fs..", "io.nyala.common.consensus..",
            "io.nyala.common.server..", "io.nyala.common.rpc..", "io.nyala.common.web..",
            "org.bouncycastle..")
        .because("common/security/tls/package-info.java: it builds on security.pki, never uses "
            + "Bouncy Castle itself, and knows no server, directory layout, catalog or Raft "
            + "state")
        .check(classes);
  }

  @Test
  void authorizationKnowsNoServerAndUsesNoBouncyCastle() {
    noClasses().that().resideInAPackage("io.nyala.common.security.authz..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.nyala.common.env..", "io.nyala.common.fs..", "io.nyala.common.consensus..",
            "io.nyala.common.server..", "io.nyala.common.rpc..", "io.nyala.common.web..",
            "org.apache.ratis..", "org.bouncycastle..")
        .because("common/security/authz/package-info.java: it reads certificates the TLS layer "
            + "verified, uses no Bouncy Castle, and knows no server, directory layout, catalog "
            + "or Raft state")
        .check(classes);
  }
}
