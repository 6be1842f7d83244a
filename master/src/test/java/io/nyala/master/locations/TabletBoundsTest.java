package io.nyala.master.locations;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which tablet a lookup from a key starts at: the one containing it, else the next one. */
@Timeout(10)
class TabletBoundsTest {
  private static ByteString k(String s) {
    return ByteString.copyFromUtf8(s);
  }

  private static TabletBounds bounds(String... startEnd) {
    List<TabletBounds.Range> ranges = new ArrayList<>();
    for (int i = 0; i < startEnd.length; i += 2) {
      ranges.add(new TabletBounds.Range(k(startEnd[i]), k(startEnd[i + 1])));
    }
    return new TabletBounds(ranges);
  }

  @Test
  void aKeyInATabletMapsToItsStartAndAKeyInAGapToTheNextTablet() {
    // [b, d), gap, [f, h), [h, unbounded)
    TabletBounds b = bounds("b", "d", "f", "h", "h", "");
    assertThat(b.firstFrom(k(""))).isEqualTo(k("b"));
    assertThat(b.firstFrom(k("a"))).isEqualTo(k("b"));
    assertThat(b.firstFrom(k("b"))).isEqualTo(k("b"));
    assertThat(b.firstFrom(k("c\u00ff"))).isEqualTo(k("b"));
    assertThat(b.firstFrom(k("d"))).isEqualTo(k("f"));
    assertThat(b.firstFrom(k("e"))).isEqualTo(k("f"));
    assertThat(b.firstFrom(k("g"))).isEqualTo(k("f"));
    assertThat(b.firstFrom(k("h"))).isEqualTo(k("h"));
    assertThat(b.firstFrom(k("zzz"))).isEqualTo(k("h"));
  }

  @Test
  void pastTheLastBoundedTabletThereIsNone() {
    TabletBounds b = bounds("", "m");
    assertThat(b.firstFrom(k("a"))).isEqualTo(k(""));
    assertThat(b.firstFrom(k("m"))).isNull();
    assertThat(new TabletBounds(List.of()).firstFrom(k("a"))).isNull();
  }

  @Test
  void keysCompareAsUnsignedBytes() {
    ByteString high = ByteString.copyFrom(new byte[] {(byte) 0x80});
    TabletBounds b = new TabletBounds(List.of(new TabletBounds.Range(k(""), high),
        new TabletBounds.Range(high, k(""))));
    assertThat(b.firstFrom(k("\u007f"))).isEqualTo(k(""));
    assertThat(b.firstFrom(ByteString.copyFrom(new byte[] {(byte) 0x90}))).isEqualTo(high);
  }
}
