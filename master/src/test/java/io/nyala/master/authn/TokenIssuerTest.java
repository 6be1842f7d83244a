package io.nyala.master.authn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.AuthnTokenPB;
import io.nyala.common.proto.master.AuthenticateRequestPB;
import io.nyala.common.proto.master.AuthenticateResponsePB;
import io.nyala.common.security.token.PasswordFileVerifier;
import io.nyala.common.security.token.TokenSigningKey;
import io.nyala.common.security.token.TokenSigningKeyStore;
import io.nyala.common.security.token.TokenVerifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Authenticate's checks, on a real credentials file and a fake clock. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class TokenIssuerTest {
  @TempDir
  Path dir;

  private final AtomicLong now = new AtomicLong(5_000_000);
  private final TokenVerifier own = new TokenVerifier(now::get);
  private final MetricRegistry metrics = new MetricRegistry("master-test");

  private TokenIssuer issuer(boolean overTls) {
    Path users = dir.resolve("users");
    PasswordFileVerifier.addUser(users, "alice", "s3cret");
    return flags(users.toString(), 60_000, 600_000, overTls);
  }

  @Test
  void theRightPasswordGetsATokenThisMasterAccepts() {
    AuthenticateResponsePB r = issuer(true).authenticate(request("alice", "s3cret"));
    assertThat(r.getExpireTimeMs()).isEqualTo(5_060_000);
    assertThat(own.verify(r.getToken().toByteArray())).isEqualTo("alice");
  }

  @Test
  void aWrongPasswordOrUserIsNotAuthorizedWithoutSayingWhich() {
    TokenIssuer issuer = issuer(true);
    for (AuthenticateRequestPB bad : new AuthenticateRequestPB[] {request("alice", "nope"),
        request("bob", "s3cret")}) {
      assertThatThrownBy(() -> issuer.authenticate(bad))
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_AUTHORIZED))
          .hasMessageContaining("wrong user name or password")
          .hasMessageNotContaining("nope").hasMessageNotContaining("s3cret");
    }
  }

  @Test
  void overPlaintextAuthenticateIsRefused() {
    assertThatThrownBy(() -> issuer(false).authenticate(request("alice", "s3cret")))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_SUPPORTED))
        .hasMessageContaining("refused over plaintext");
  }

  @Test
  void withoutACredentialsFileNobodyAuthenticatesAndBadFlagsAreNamed() {
    TokenIssuer none = flags("", 60_000, 600_000, true);
    assertThatThrownBy(() -> none.authenticate(request("alice", "s3cret")))
        .hasMessageContaining("start it with --user_credentials_file");
    assertThatThrownBy(() -> flags("", 0, 600_000, true))
        .hasMessageContaining("--authn_token_validity_ms=0");
    assertThatThrownBy(() -> flags("", 60_000, -1, true))
        .hasMessageContaining("--token_signing_key_rotation_ms=-1");
  }

  @Test
  void everyIssuedTokenIsCounted() {
    TokenIssuer issuer = issuer(true);
    issuer.authenticate(request("alice", "s3cret"));
    issuer.authenticate(request("alice", "s3cret"));
    assertThat(metrics.counter("authn_tokens_issued_total", "").get()).isEqualTo(2);
  }

  /** Keys kept in a list, as a catalog would keep them (without Ratis and wrapping). */
  private static final class ListStore implements TokenSigningKeyStore {
    final Map<Long, TokenSigningKey> keys = new TreeMap<>();
    NyalaException loadFails;

    @Override
    public List<TokenSigningKey> load() {
      if (loadFails != null) {
        throw loadFails;
      }
      return List.copyOf(keys.values());
    }

    @Override
    public void save(List<TokenSigningKey> put, List<Long> deleted) {
      put.forEach(k -> keys.put(k.seq(), k));
      deleted.forEach(keys::remove);
    }
  }

  private TokenIssuer leading(ListStore store, AtomicLong term, TokenVerifier verifier) {
    Path users = dir.resolve("users");
    if (!Files.exists(users)) {
      PasswordFileVerifier.addUser(users, "alice", "s3cret");
    }
    return TokenIssuer.fromFlags(users.toString(), 60_000, 600_000, now::get, verifier, true,
        store, term::get, new MetricRegistry("master-" + term.get()));
  }

  @Test
  void aNewLeaderSignsOnWithTheStoredKeysAndAcceptsItsPredecessorsTokens() throws Exception {
    ListStore store = new ListStore();
    TokenIssuer first = leading(store, new AtomicLong(1), own);
    AuthenticateResponsePB before = first.authenticate(request("alice", "s3cret"));

    TokenVerifier successorsOwn = new TokenVerifier(now::get);
    TokenIssuer successor = leading(store, new AtomicLong(2), successorsOwn);
    successor.refresh();
    assertThat(successorsOwn.verify(before.getToken().toByteArray())).isEqualTo("alice");
    AuthenticateResponsePB after = successor.authenticate(request("alice", "s3cret"));
    assertThat(AuthnTokenPB.parseFrom(after.getToken().getTokenData()).getSigningKeySeq())
        .isEqualTo(AuthnTokenPB.parseFrom(before.getToken().getTokenData()).getSigningKeySeq());
    assertThat(successor.publicKeys()).isEqualTo(first.publicKeys());
    assertThat(store.keys).hasSize(2);
  }

  @Test
  void storedKeysThatCannotBeTakenOverStopSigningButNotHeartbeats() {
    ListStore store = new ListStore();
    store.loadFails = NyalaException.corruption("token signing key 4 in the sys catalog does "
        + "not unwrap with cluster key version 2: wrong key");
    TokenIssuer issuer = leading(store, new AtomicLong(3), own);
    assertThatThrownBy(() -> issuer.authenticate(request("alice", "s3cret")))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION))
        .hasMessageContaining("token signing key 4");
    assertThat(issuer.publicKeys()).isEmpty();
    issuer.refresh();
    assertThat(own.hasKeys()).isFalse();
    assertThat(store.keys).as("no key of its own hides the stored ones").isEmpty();
  }

  /** An issuer of a master leading term 1, keys in memory only. */
  private TokenIssuer flags(String users, long validityMs, long rotationMs, boolean overTls) {
    return TokenIssuer.fromFlags(users, validityMs, rotationMs, now::get, own, overTls, null,
        () -> 1, metrics);
  }

  private static AuthenticateRequestPB request(String user, String password) {
    return AuthenticateRequestPB.newBuilder().setUser(user).setPassword(password).build();
  }
}
