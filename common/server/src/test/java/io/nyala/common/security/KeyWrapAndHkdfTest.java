package io.nyala.common.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class KeyWrapAndHkdfTest {
  private static final HexFormat HEX = HexFormat.of();

  /** RFC 3394 section 4.1: 128-bit key data with a 128-bit KEK. */
  @Test
  void rfc3394Vector() {
    KeyMaterial kek = KeyMaterial.fromHex("000102030405060708090A0B0C0D0E0F");
    KeyMaterial key = KeyMaterial.fromHex("00112233445566778899AABBCCDDEEFF");
    byte[] wrapped = KeyWrap.wrap(kek, key);
    assertThat(HEX.formatHex(wrapped))
        .isEqualTo("1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5");
    assertThat(KeyWrap.unwrap(kek, wrapped, "test key")).isEqualTo(key);
  }

  /** RFC 5649 section 6: 20 octets of key data with a 192-bit KEK. */
  @Test
  void rfc5649Vector() {
    KeyMaterial kek = KeyMaterial.fromHex("5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8");
    byte[] secret = HEX.parseHex("c37b7e6492584340bed12207808941155068f738");
    byte[] wrapped = KeyWrap.wrapWithPadding(kek, secret);
    assertThat(HEX.formatHex(wrapped))
        .isEqualTo("138bdeaa9b8fa7fc61f97742e72248ee5ae6ae5360d1ae6a5f54f373fa543b6a");
    assertThat(KeyWrap.unwrapWithPadding(kek, wrapped, "secret")).isEqualTo(secret);
  }

  @Test
  void wrongKekOrDamagedBlobIsCorruptionNamingTheThing() {
    KeyMaterial kek = KeyMaterial.random(256);
    byte[] wrapped = KeyWrap.wrap(kek, KeyMaterial.random(128));
    assertThatThrownBy(() -> KeyWrap.unwrap(KeyMaterial.random(256), wrapped, "tablet t1 key"))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION))
        .hasMessageContaining("tablet t1 key");
    wrapped[3] ^= 1;
    assertThatThrownBy(() -> KeyWrap.unwrap(kek, wrapped, "tablet t1 key"))
        .isInstanceOf(NyalaException.class).hasMessageContaining("integrity check failed");
  }

  /** RFC 5869 appendix A.1. */
  @Test
  void hkdfRfc5869Case1() {
    byte[] ikm = HEX.parseHex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");
    byte[] salt = HEX.parseHex("000102030405060708090a0b0c");
    byte[] info = HEX.parseHex("f0f1f2f3f4f5f6f7f8f9");
    assertThat(HEX.formatHex(Hkdf.derive(ikm, salt, info, 42))).isEqualTo(
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
  }

  @Test
  void keyMaterialNeverPrintsItsBytes() {
    KeyMaterial k = KeyMaterial.fromHex("00112233445566778899aabbccddeeff");
    assertThat(k.toString()).isEqualTo("KeyMaterial[128 bits]").doesNotContain("0011");
    assertThat(k).isEqualTo(KeyMaterial.of(k.bytes())).isNotEqualTo(KeyMaterial.random(128));
    assertThatThrownBy(() -> KeyMaterial.of(new byte[15]))
        .isInstanceOf(NyalaException.class).hasMessageContaining("120");
  }
}
