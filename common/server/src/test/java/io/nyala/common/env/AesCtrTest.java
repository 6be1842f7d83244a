package io.nyala.common.env;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.security.KeyMaterial;
import java.util.HexFormat;
import java.util.Random;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.modes.CTRModeCipher;
import org.bouncycastle.crypto.modes.SICBlockCipher;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AesCtrTest {
  private static final HexFormat HEX = HexFormat.of();
  private static final String NIST_IV = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
  private static final String NIST_PLAIN = "6bc1bee22e409f96e93d7e117393172a"
      + "ae2d8a571e03ac9c9eb76fac45af8e51" + "30c81c46a35ce411e5fbc1191a0a52ef"
      + "f69f2445df4f9b17ad2b417be66c3710";

  /** NIST SP 800-38A F.5.1 (CTR-AES128.Encrypt) and F.5.5 (CTR-AES256.Encrypt). */
  @ParameterizedTest
  @ValueSource(strings = {
      "2b7e151628aed2a6abf7158809cf4f3c:874d6191b620e3261bef6864990db6ce"
          + "9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab"
          + "1e031dda2fbe03d1792170a0f3009cee",
      "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4:"
          + "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"
          + "2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6"})
  @Timeout(10)
  void nistVectorsForJceAndBouncyCastle(String vector) throws Exception {
    byte[] key = HEX.parseHex(vector.split(":")[0]);
    byte[] expected = HEX.parseHex(vector.split(":")[1]);
    byte[] plain = HEX.parseHex(NIST_PLAIN);
    byte[] iv = HEX.parseHex(NIST_IV);

    Cipher jce = Cipher.getInstance("AES/CTR/NoPadding");
    jce.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(iv));
    assertThat(HEX.formatHex(jce.doFinal(plain))).isEqualTo(HEX.formatHex(expected));

    CTRModeCipher bc = SICBlockCipher.newInstance(AESEngine.newInstance());
    bc.init(true, new ParametersWithIV(new KeyParameter(key), iv));
    byte[] out = new byte[plain.length];
    bc.processBytes(plain, 0, plain.length, out, 0);
    assertThat(HEX.formatHex(out)).isEqualTo(HEX.formatHex(expected));
  }

  @ParameterizedTest
  @ValueSource(ints = {128, 192, 256})
  @Timeout(20)
  void cryptEqualsBouncyCastleAtRandomOffsets(int bits) {
    Random rnd = new Random(bits);
    KeyMaterial key = KeyMaterial.random(bits);
    AesCtr ctr = new AesCtr(key);
    for (int i = 0; i < 300; i++) {
      // Offsets far past 2^32 blocks check the big-endian counter's upper bytes.
      long phys = i % 3 == 0 ? rnd.nextInt(1 << 20) : (rnd.nextLong() >>> 8);
      byte[] plain = new byte[rnd.nextInt(3000)];
      rnd.nextBytes(plain);
      byte[] out = new byte[plain.length];
      ctr.crypt(phys, plain, 0, plain.length, out, 0);
      assertThat(out).as("offset %d length %d", phys, plain.length)
          .isEqualTo(BcReference.ctr(key.bytes(), phys, plain));
    }
  }

  @Test
  @Timeout(10)
  void decryptZeroesWholeZeroBlocksOnly() {
    KeyMaterial key = KeyMaterial.random(128);
    AesCtr ctr = new AesCtr(key);
    byte[] plain = new byte[40];
    new Random(1).nextBytes(plain);
    byte[] ct = new byte[40];
    ctr.crypt(64, plain, 0, 40, ct, 0);
    // Block 1 (bytes 16..31) and the 8-byte tail (32..39) are zero ciphertext.
    java.util.Arrays.fill(ct, 16, 40, (byte) 0);
    byte[] out = new byte[40];
    ctr.decrypt(64, ct, 40, 0, out, 0, 40);
    assertThat(java.util.Arrays.copyOfRange(out, 0, 16))
        .isEqualTo(java.util.Arrays.copyOfRange(plain, 0, 16));
    assertThat(java.util.Arrays.copyOfRange(out, 16, 32)).containsOnly(0);
    // The short last block decrypts normally: zero ciphertext gives the keystream.
    byte[] keystream = BcReference.ctr(key.bytes(), 96, new byte[8]);
    assertThat(java.util.Arrays.copyOfRange(out, 32, 40)).isEqualTo(keystream);
  }
}
