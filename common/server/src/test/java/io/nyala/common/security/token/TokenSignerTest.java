package io.nyala.common.security.token;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.AuthnTokenPB;
import io.nyala.common.proto.SignedTokenPB;
import io.nyala.common.proto.TokenSigningPublicKeyPB;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Tokens signed by {@link TokenSigner} and checked by {@link TokenVerifier}, on a fake clock. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class TokenSignerTest {
  private static final long VALIDITY = 3_000;
  private static final long ROTATION = 10_000;

  private final AtomicLong now = new AtomicLong(1_000_000);
  private final TokenSigner signer = new TokenSigner(now::get, VALIDITY, ROTATION);
  private final TokenVerifier verifier = new TokenVerifier(now::get);

  @Test
  void aSignedTokenProvesItsUserUntilTheLastMillisecond() {
    SignedTokenPB token = signer.sign("alice");
    verifier.setKeys(signer.publicKeys());
    assertThat(verifier.verify(token.toByteArray())).isEqualTo("alice");
    now.addAndGet(VALIDITY - 1);
    assertThat(verifier.verify(token.toByteArray())).isEqualTo("alice");
  }

  @Test
  void anExpiredTokenIsRefusedNamingItsUserAndTime() {
    SignedTokenPB token = signer.sign("alice");
    verifier.setKeys(signer.publicKeys());
    now.addAndGet(VALIDITY);
    assertThatThrownBy(() -> verifier.verify(token.toByteArray()))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_AUTHORIZED))
        .hasMessageEndingWith("token of user 'alice' expired at 1970-01-01T00:16:43Z");
  }

  @Test
  void aTokenWithAFlippedSignatureByteIsForged() {
    SignedTokenPB token = signer.sign("alice");
    verifier.setKeys(signer.publicKeys());
    byte[] sig = token.getSignature().toByteArray();
    sig[sig.length / 2] ^= 0x01;
    SignedTokenPB forged = token.toBuilder().setSignature(ByteString.copyFrom(sig)).build();
    assertThatThrownBy(() -> verifier.verify(forged.toByteArray()))
        .hasMessageContaining("token of user 'alice' has a bad signature")
        .hasMessageContaining("forged or from another cluster");
  }

  @Test
  void aTokenWhoseUserWasChangedIsForged() throws Exception {
    SignedTokenPB token = signer.sign("alice");
    verifier.setKeys(signer.publicKeys());
    AuthnTokenPB data = AuthnTokenPB.parseFrom(token.getTokenData());
    SignedTokenPB forged = token.toBuilder().setTokenData(
        data.toBuilder().setUser("root").build().toByteString()).build();
    assertThatThrownBy(() -> verifier.verify(forged.toByteArray()))
        .hasMessageContaining("token of user 'root' has a bad signature");
  }

  @Test
  void aTokenOfAnotherClustersSignerNamesAnUnknownKeyOrFailsItsSignature() {
    TokenSigner other = new TokenSigner(now::get, VALIDITY, ROTATION);
    verifier.setKeys(signer.publicKeys());
    SignedTokenPB foreign = other.sign("alice");
    assertThatThrownBy(() -> verifier.verify(foreign.toByteArray()))
        .hasMessageContaining("forged or from another cluster");

    // A seq below the newest known one that is not among the known: gone, or never made.
    AuthnTokenPB unknownSeq = AuthnTokenPB.newBuilder().setUser("bob")
        .setExpireTimeMs(now.get() + VALIDITY).setSigningKeySeq(0).build();
    SignedTokenPB unknown = SignedTokenPB.newBuilder().setTokenData(unknownSeq.toByteString())
        .setSignature(foreign.getSignature()).build();
    assertThatThrownBy(() -> verifier.verify(unknown.toByteArray()))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_AUTHORIZED))
        .hasMessageEndingWith("token of user 'bob' names unknown signing key 0: forged or from "
            + "another cluster");
  }

  /**
   * A follower master that has not applied the catalog entry with the leader's newest key yet
   * (or a tablet server before the heartbeat that brings it) refuses a token signed by it as
   * retriable, not as forged, and takes it once the key arrives.
   */
  @Test
  void aKeyNewerThanAnyKnownIsNotKnownHereYetAndRetriable() {
    SignedTokenPB first = signer.sign("alice");
    assertThatThrownBy(() -> verifier.verify(first.toByteArray()))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.SERVICE_UNAVAILABLE))
        .hasMessageEndingWith("token of user 'alice' names unknown signing key " + seq(first)
            + ", newer than any key known here (none yet): not known here yet (retry, or ask "
            + "the leader master)");

    List<TokenSigningPublicKeyPB> known = signer.publicKeys();
    verifier.setKeys(known);
    long newestKnown = known.get(known.size() - 1).getSeq();
    // Two rotations: the key that signs now was only made (as the next key) at the first.
    now.addAndGet(ROTATION);
    signer.sign("alice");
    now.addAndGet(ROTATION);
    SignedTokenPB rotated = signer.sign("alice");
    assertThat(seq(rotated)).isGreaterThan(newestKnown);
    assertThatThrownBy(() -> verifier.verify(rotated.toByteArray()))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.SERVICE_UNAVAILABLE))
        .hasMessageContaining("names unknown signing key " + seq(rotated) + ", newer than key "
            + newestKnown + ", the newest known here: not known here yet")
        .hasMessageNotContaining("forged");

    verifier.setKeys(signer.publicKeys());
    assertThat(verifier.verify(rotated.toByteArray())).isEqualTo("alice");
  }

  @Test
  void aVerifierWithoutKeysRefusesEverythingAndGarbageIsMalformed() {
    SignedTokenPB token = signer.sign("alice");
    assertThat(verifier.hasKeys()).isFalse();
    assertThatThrownBy(() -> verifier.verify(token.toByteArray()))
        .hasMessageContaining("unknown signing key");
    assertThatThrownBy(() -> verifier.verify(new byte[] {(byte) 0xff, 1, 2}))
        .hasMessageContaining("authentication token is malformed");
  }

  @Test
  void rotationKeepsOldTokensValidUntilTheyExpireAndPublishesTheNextKeyFirst() {
    SignedTokenPB first = signer.sign("alice");
    List<TokenSigningPublicKeyPB> before = signer.publicKeys();
    assertThat(before).hasSize(2); // the signing key and the next one
    long firstSeq = before.get(0).getSeq();

    now.addAndGet(ROTATION - 1);
    SignedTokenPB late = signer.sign("alice");
    now.addAndGet(1);
    SignedTokenPB rotated = signer.sign("alice");
    verifier.setKeys(signer.publicKeys());
    assertThat(seq(rotated)).isEqualTo(before.get(1).getSeq()).isNotEqualTo(firstSeq);
    assertThat(verifier.verify(late.toByteArray())).isEqualTo("alice");
    assertThat(verifier.verify(rotated.toByteArray())).isEqualTo("alice");
    assertThatThrownBy(() -> verifier.verify(first.toByteArray())).hasMessageContaining("expired");

    // The first key goes once its last token (signed just before the rotation) has expired.
    now.addAndGet(VALIDITY + 1);
    assertThat(signer.publicKeys()).extracting(TokenSigningPublicKeyPB::getSeq)
        .doesNotContain(firstSeq).contains(seq(rotated));
  }

  @Test
  void aCheckedTokenIsNotCheckedAgainButStillExpiresAndGoesWithItsKey() {
    SignedTokenPB token = signer.sign("alice");
    verifier.setKeys(signer.publicKeys());
    assertThat(verifier.verify(token.toByteArray())).isEqualTo("alice");
    assertThat(verifier.verify(token.toByteArray())).isEqualTo("alice");
    assertThat(verifier.signatureChecks()).isEqualTo(1);

    now.addAndGet(VALIDITY);
    assertThatThrownBy(() -> verifier.verify(token.toByteArray())).hasMessageContaining(
        "token of user 'alice' expired");

    SignedTokenPB fresh = signer.sign("alice");
    assertThat(verifier.verify(fresh.toByteArray())).isEqualTo("alice");
    verifier.setKeys(new TokenSigner(now::get, VALIDITY, ROTATION).publicKeys());
    assertThatThrownBy(() -> verifier.verify(fresh.toByteArray()))
        .hasMessageContaining("forged or from another cluster");
  }

  @Test
  void theSameKeysPublishedAgainKeepTheCheckedTokens() {
    SignedTokenPB token = signer.sign("alice");
    verifier.setKeys(signer.publicKeys());
    verifier.verify(token.toByteArray());
    verifier.setKeys(signer.publicKeys()); // as every heartbeat answer does
    verifier.verify(token.toByteArray());
    assertThat(verifier.signatureChecks()).isEqualTo(1);
  }

  @Test
  void aForgedCopyOfACheckedTokenIsCheckedInFull() {
    SignedTokenPB token = signer.sign("alice");
    verifier.setKeys(signer.publicKeys());
    verifier.verify(token.toByteArray());
    byte[] sig = token.getSignature().toByteArray();
    sig[sig.length - 1] ^= 0x01;
    SignedTokenPB forged = token.toBuilder().setSignature(ByteString.copyFrom(sig)).build();
    assertThatThrownBy(() -> verifier.verify(forged.toByteArray()))
        .hasMessageContaining("has a bad signature");
    assertThat(verifier.signatureChecks()).isEqualTo(2);
  }

  private static long seq(SignedTokenPB t) {
    try {
      return AuthnTokenPB.parseFrom(t.getTokenData()).getSigningKeySeq();
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }
}
