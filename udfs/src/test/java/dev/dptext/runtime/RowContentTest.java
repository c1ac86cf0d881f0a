package dev.dptext.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.dptext.sanitizer.Sanitizer;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Arrays;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

/** What the ledger tells releases apart by: a row's seed bytes and text, framed, and nothing else. */
class RowContentTest {
  private final RowContent content = new RowContent();

  @Test
  void seedBytesAndTextAreFramedApart() {
    // "ab" + "c" and "a" + "bc" concatenate alike: the seed's length keeps them apart.
    assertFalse(Arrays.equals(content.call("c", "ab"), content.call("bc", "a")));
    // Content-hash seeding (no id) is not the id "" with the same text.
    assertFalse(Arrays.equals(content.call("text", null), content.call("text", "")));
    assertFalse(Arrays.equals(content.call("text", 5L), content.call("text", 5.0)));
    assertArrayEquals(content.call("text", 5L), content.call("text", 5));
    assertNull(content.call(null, 5L), "a row without text sanitizes nothing");
    for (long lane : content.call("text", 5L)) {
      assertEquals(lane, lane & 0xFFFF_FFFFL, "32-bit lanes: sums of 2^31 rows fit a long");
    }
  }

  @Test
  void aTimestampIdSeedsByItsInstantInEveryTimeZone() {
    TimeZone zone = TimeZone.getDefault();
    Instant instant = Instant.parse("2026-03-01T08:15:00.250Z");
    try {
      byte[] first = null;
      for (String id : new String[] {"UTC", "Asia/Tokyo", "America/Los_Angeles"}) {
        TimeZone.setDefault(TimeZone.getTimeZone(id));
        byte[] seed = Sanitizer.idBytes(Timestamp.from(instant));
        assertEquals("2026-03-01T08:15:00.250Z", new String(seed, StandardCharsets.UTF_8), id);
        assertArrayEquals(Sanitizer.idBytes(instant), seed, "Spark's Java 8 API hands over an Instant: the same bytes");
        first = first == null ? seed : first;
        assertArrayEquals(first, seed);
      }
    } finally {
      TimeZone.setDefault(zone);
    }
  }

  @Test
  void sumsAreOrderIndependentAndCountDuplicates() {
    long[] a = content.call("a", 1L);
    long[] b = content.call("b", 2L);
    RowContent.Sums ab = RowContent.Sums.empty().plus(1, a).plus(1, b);
    RowContent.Sums ba = RowContent.Sums.empty().plus(1, b).plus(1, a);
    assertEquals(ab, ba);
    assertFalse(ab.equals(RowContent.Sums.empty().plus(1, a).plus(1, a).plus(1, b)), "a duplicate row counts");
    assertFalse(ab.toString().contains(Long.toString(ab.lanes()[0])), "the sums are never printed");
  }
}
