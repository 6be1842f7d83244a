package io.nyala.tserver.replica;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OrphanBlockGcTest {
  @Test
  void theShareIsMoreThanTenPercentAndMoreThanAFewBlocks() {
    assertThat(OrphanBlockGc.isMass(32, 32)).isFalse();
    assertThat(OrphanBlockGc.isMass(33, 100)).isTrue();
    assertThat(OrphanBlockGc.isMass(33, 330)).isFalse();
    assertThat(OrphanBlockGc.isMass(34, 330)).isTrue();
  }
}
