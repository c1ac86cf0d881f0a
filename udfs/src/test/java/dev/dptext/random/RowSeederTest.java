package dev.dptext.random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class RowSeederTest {
  private static final String HEX_A = "8f3a91c2d4e5b6a7980f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69";
  private static final String HEX_B = "8f3a91c2d4e5b6a7980f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6a";
  private static final SecretKey KEY_A = SecretKey.parse(HEX_A, "test");
  private static final SecretKey KEY_B = SecretKey.parse(HEX_B, "test");

  private static long[] first100(RandomStream s) {
    long[] out = new long[100];
    for (int i = 0; i < out.length; i++) {
      out[i] = s.nextLong();
    }
    return out;
  }

  private static long[] stream(SecretKey key, String purpose, String id) {
    return first100(new RowSeeder(key, purpose).streamFor(id));
  }

  @Test
  void sameKeyPurposeAndIdGiveTheSameStream() {
    long[] a = stream(KEY_A, "text", "row-17");
    assertArrayEquals(a, stream(KEY_A, "text", "row-17"));
    assertArrayEquals(a, stream(SecretKey.parse(HEX_A.toUpperCase(java.util.Locale.ROOT), "elsewhere"), "text", "row-17"));
    RowSeeder s = new RowSeeder(KEY_A, "text");
    assertArrayEquals(a, first100(s.streamFor("row-17")));
    s.streamFor("other row"); // a Mac reused for another row must not disturb the next
    assertArrayEquals(a, first100(s.streamFor("row-17")));
    assertArrayEquals(a, first100(s.streamFor("row-17".getBytes(StandardCharsets.UTF_8))));
  }

  @Test
  void differentKeyPurposeOrIdGiveDifferentStreams() {
    long[] a = stream(KEY_A, "text", "row-17");
    assertFalse(Arrays.equals(a, stream(KEY_B, "text", "row-17")), "key");
    assertFalse(Arrays.equals(a, stream(KEY_A, "text2", "row-17")), "purpose");
    assertFalse(Arrays.equals(a, stream(KEY_A, "text", "row-18")), "id");
    assertFalse(Arrays.equals(a, stream(KEY_A, "Text", "row-17")), "purpose is case-sensitive");
    assertFalse(Arrays.equals(a, stream(SecretKey.fresh(), "text", "row-17")), "fresh key");
    // Not merely different: no common first value either.
    assertNotEquals(a[0], stream(KEY_A, "text", "row-18")[0]);
  }

  @Test
  void purposeAndIdBoundaryIsUnambiguous() {
    assertFalse(Arrays.equals(stream(KEY_A, "ab", "c"), stream(KEY_A, "a", "bc")));
    assertFalse(Arrays.equals(stream(KEY_A, "", "abc"), stream(KEY_A, "abc", "")));
    assertFalse(Arrays.equals(stream(KEY_A, "", "abc"), stream(KEY_A, "a", "bc")));
    // A 4-byte length prefix spelled into the purpose must not collide either.
    assertFalse(Arrays.equals(stream(KEY_A, "\u0000\u0000\u0000\u0001a", "b"), stream(KEY_A, "a", "b")));
  }

  @Test
  void manyIdsGiveDistinctStreams() {
    RowSeeder s = new RowSeeder(KEY_A, "text");
    java.util.Set<Long> firsts = new java.util.HashSet<>();
    for (int i = 0; i < 10_000; i++) {
      firsts.add(s.streamFor(Integer.toString(i)).nextLong());
    }
    assertEquals(10_000, firsts.size());
  }

  /**
   * Pins the derivation, so that a key and id give the same output in every dptext version:
   * seed = HMAC-SHA256(key, "dptext/row-seed/v1" ‖ int32 len(purpose) ‖ purpose ‖ id), the 32 bytes
   * read as four big-endian longs.
   */
  @Test
  void derivationIsHmacSha256OfTheLengthPrefixedMessage() throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(HexFormat.of().parseHex(HEX_A), "HmacSHA256"));
    byte[] purpose = "sanitized_text".getBytes(StandardCharsets.UTF_8);
    mac.update("dptext/row-seed/v1".getBytes(StandardCharsets.US_ASCII));
    mac.update(ByteBuffer.allocate(4).putInt(purpose.length).array());
    mac.update(purpose);
    mac.update("row-ü-1".getBytes(StandardCharsets.UTF_8));
    ByteBuffer seed = ByteBuffer.wrap(mac.doFinal());
    RandomStream expected = new RandomStream(seed.getLong(), seed.getLong(), seed.getLong(), seed.getLong());
    assertArrayEquals(first100(expected), stream(KEY_A, "sanitized_text", "row-ü-1"));
  }

  @Test
  void javaSerializationRoundTripGivesTheSameStreams() throws Exception {
    RowSeeder s = new RowSeeder(KEY_A, "text");
    long[] before = first100(s.streamFor("row-17")); // initialises the transient Mac first
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(s);
    }
    RowSeeder back;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      back = (RowSeeder) in.readObject();
    }
    assertArrayEquals(before, first100(back.streamFor("row-17")));
    assertArrayEquals(first100(s.streamFor("x")), first100(back.streamFor("x")));
    assertFalse(back.toString().contains(HEX_A.substring(0, 8)));
  }

  @Test
  void threadsGetTheSameStreamsAsOneThread() throws Exception {
    RowSeeder s = new RowSeeder(KEY_A, "text");
    int rows = 2_000;
    long[] sequential = new long[rows];
    for (int i = 0; i < rows; i++) {
      sequential[i] = s.streamFor("row" + i).nextLong();
    }
    RowSeeder shared = new RowSeeder(KEY_A, "text");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<long[]>> futures = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        futures.add(
            pool.submit(
                () -> {
                  long[] out = new long[rows];
                  for (int i = 0; i < rows; i++) {
                    out[i] = shared.streamFor("row" + i).nextLong();
                  }
                  return out;
                }));
      }
      for (Future<long[]> f : futures) {
        assertArrayEquals(sequential, f.get());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void nullArgumentsRejected() {
    assertThrows(IllegalStateException.class, () -> new RowSeeder(null, "text"));
    assertThrows(IllegalStateException.class, () -> new RowSeeder(KEY_A, null));
  }

  @Test
  void toStringIsRedacted() {
    String s = new RowSeeder(KEY_A, "text").toString();
    assertFalse(s.toLowerCase(java.util.Locale.ROOT).contains(HEX_A.substring(0, 8)), s);
    assertFalse(s.contains(HEX_A.substring(32, 40)), s);
  }
}
