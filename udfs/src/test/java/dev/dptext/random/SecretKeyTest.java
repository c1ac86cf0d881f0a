package dev.dptext.random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.testing.ErrorAssertions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretKeyTest {
  private static final String HEX32 = "00112233445566778899aabbccddeeff";
  private static final String HEX64 =
      "8f3a91c2d4e5b6a7980f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69";
  private static final String SOURCE = "test source DPTEXT_KEY";

  @TempDir Path dir;

  /**
   * The message of a rejected key: names the source, says how to generate a key, and contains neither
   * the secret nor any 8-character piece of it.
   */
  private static void assertSafeMessage(String secret, IllegalArgumentException e) {
    String msg = e.getMessage();
    assertTrue(msg.contains(SOURCE), "message should name the source: " + msg);
    assertTrue(msg.contains("openssl rand -hex 32"), "message should say how to generate a key: " + msg);
    assertTrue(e instanceof dev.dptext.errors.DpTextException d && d.errorClass().startsWith("KEY_"), msg);
    String s = secret.strip();
    if (!s.isEmpty()) {
      assertFalse(msg.contains(s), "message leaks the key: " + msg);
    }
    for (int i = 0; i + 8 <= s.length(); i++) {
      String piece = s.substring(i, i + 8);
      assertFalse(
          msg.toLowerCase(Locale.ROOT).contains(piece.toLowerCase(Locale.ROOT)),
          "message leaks part of the key ('" + piece + "'): " + msg);
    }
  }

  private static void assertRejected(String secret) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SecretKey.parse(secret, SOURCE));
    assertSafeMessage(secret, e);
  }

  @Test
  void acceptsHexOf32DigitsOrMore() {
    SecretKey k = SecretKey.parse(HEX32, SOURCE);
    assertArrayEquals(HexFormat.of().parseHex(HEX32), k.material());
    assertEquals(SOURCE, k.source());
    assertEquals(32, SecretKey.parse(HEX64, SOURCE).material().length);
    // Upper case and surrounding whitespace (a trailing newline from `openssl rand -hex 32 > file`).
    assertEquals(k, SecretKey.parse("  " + HEX32.toUpperCase(Locale.ROOT) + "\n", SOURCE));
    assertNotEquals(k, SecretKey.parse(HEX64, SOURCE));
  }

  @Test
  void acceptsBase64() {
    byte[] bytes = HexFormat.of().parseHex(HEX64);
    String b64 = Base64.getEncoder().encodeToString(bytes);
    SecretKey k = SecretKey.parse("base64:" + b64, SOURCE);
    assertArrayEquals(bytes, k.material());
    assertEquals(SecretKey.parse(HEX64, SOURCE), k, "the same bytes in either encoding are one key");
    assertEquals(k, SecretKey.parse("BASE64:" + b64, SOURCE));
    assertEquals(k.hashCode(), SecretKey.parse(HEX64, SOURCE).hashCode());
    // Exactly 16 bytes is enough.
    assertEquals(16, SecretKey.parse("base64:" + Base64.getEncoder().encodeToString(new byte[16]), SOURCE)
        .material().length);
  }

  @Test
  void materialIsACopy() {
    SecretKey k = SecretKey.parse(HEX32, SOURCE);
    k.material()[0] = 42;
    assertEquals(0, k.material()[0]);
  }

  @Test
  void rejectsShortHex() {
    assertRejected("8f3a91c2d4e5b6a7980f1e2d3c4b5a"); // 30 digits = 120 bits
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SecretKey.parse("8f3a91c2d4e5b6a7980f1e2d3c4b5a", SOURCE));
    ErrorAssertions.assertError(e, "KEY_TOO_SHORT", Map.of("source", SOURCE, "bits", 120, "minBits", 128));
    assertRejected("8f3a91c2d4e5b6a7980f1e2d3c4b5a6"); // 31 digits: odd
    assertRejected("");
    assertRejected("   ");
  }

  @Test
  void rejectsNonHex() {
    assertRejected("correct horse battery staple, a long passphrase");
    assertRejected("0x8f3a91c2d4e5b6a7980f1e2d3c4b5a69788796a5");
    assertRejected("8f3a91c2d4e5b6a7980f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5g69");
    assertRejected("8f3a91c2-d4e5-b6a7-980f-1e2d3c4b5a69");
  }

  @Test
  void rejectsBadBase64() {
    assertRejected("base64:!!not*base64!!secretsecret");
    assertRejected("base64:c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0=x");
    // Valid Base64 but 8 bytes.
    String shortKey = "base64:" + Base64.getEncoder().encodeToString("s3cr3tK!".getBytes(StandardCharsets.US_ASCII));
    assertRejected(shortKey);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SecretKey.parse(shortKey, SOURCE));
    ErrorAssertions.assertError(e, "KEY_TOO_SHORT", Map.of("source", SOURCE, "bits", 64, "minBits", 128));
  }

  @Test
  void rejectsMissingKey() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SecretKey.parse(null, SOURCE));
    ErrorAssertions.assertError(e, "KEY_MISSING", Map.of("source", SOURCE));
  }

  @Test
  void rejectsNonAsciiDigitsWithASafeMessage() {
    String fullwidth = "０１２３４５６７８９ａｂｃｄｅｆ00112233445566778899aabbccddeeff";
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SecretKey.parse(fullwidth, SOURCE));
    assertSafeMessage(fullwidth, e);
    assertFalse(e.getMessage().contains("０"), e.getMessage());
    String arabicIndic = "٠١٢٣٤٥٦٧٨٩00112233445566778899aabbccddeeff00";
    assertSafeMessage(
        arabicIndic,
        assertThrows(IllegalArgumentException.class, () -> SecretKey.parse(arabicIndic, SOURCE)));
  }

  @Test
  void toStringNeverShowsTheMaterial() {
    byte[] bytes = HexFormat.of().parseHex(HEX64);
    for (SecretKey k :
        new SecretKey[] {
          SecretKey.parse(HEX64, SOURCE),
          SecretKey.parse("base64:" + Base64.getEncoder().encodeToString(bytes), SOURCE),
          SecretKey.fresh()
        }) {
      String s = k.toString();
      String hex = HexFormat.of().formatHex(k.material());
      assertTrue(s.contains("redacted"), s);
      assertFalse(s.toLowerCase(Locale.ROOT).contains(hex.substring(0, 8)), s);
      assertFalse(s.contains(Base64.getEncoder().encodeToString(k.material()).substring(0, 8)), s);
      assertFalse(s.contains(hex.substring(20, 28)), s);
    }
    assertTrue(SecretKey.parse(HEX64, SOURCE).toString().contains(SOURCE));
  }

  @Test
  void freshKeysAreRandomAndLongEnough() {
    SecretKey a = SecretKey.fresh();
    SecretKey b = SecretKey.fresh();
    assertEquals(32, a.material().length);
    assertNotEquals(a, b);
  }

  @Test
  void fromFileReadsTheWholeContent() throws IOException {
    Path file = dir.resolve("dptext.key");
    Files.writeString(file, HEX64 + "\n");
    SecretKey k = SecretKey.fromFile(file);
    assertEquals(SecretKey.parse(HEX64, "x"), k);
    assertTrue(k.source().contains(file.toString()), k.source());
    assertFalse(k.toString().contains(HEX64.substring(0, 8)));
  }

  @Test
  void fromFileWithABadKeyNamesTheFileNotTheKey() throws IOException {
    Path file = dir.resolve("bad.key");
    String secret = "deadbeefcafebabe0123"; // 80 bits
    Files.writeString(file, secret);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SecretKey.fromFile(file));
    ErrorAssertions.assertError(e, "KEY_TOO_SHORT", Map.of("source", "key file " + file, "bits", 80, "minBits", 128));
    assertFalse(e.getMessage().contains(secret), e.getMessage());
    assertFalse(e.getMessage().contains("deadbeef"), e.getMessage());
  }

  @Test
  void fromMissingFileNamesThePath() {
    Path missing = dir.resolve("nowhere").resolve("dptext.key");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SecretKey.fromFile(missing));
    assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
  }

  @Test
  void fromUnsetEnvironmentVariable() {
    String var = "DPTEXT_TEST_SURELY_UNSET_VARIABLE_1234";
    org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv(var) == null);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SecretKey.fromEnv(var));
    assertTrue(e.getMessage().contains(var), e.getMessage());
    assertTrue(e.getMessage().contains("openssl rand -hex 32"), e.getMessage());
  }

  @Test
  void theFingerprintTellsKeysApartAndIsTheHmacOfItsLabel() throws Exception {
    SecretKey a = SecretKey.parse(HEX32, SOURCE);
    SecretKey b = SecretKey.parse(HEX64, SOURCE);
    assertEquals(a.fingerprint(), SecretKey.parse(HEX32, "elsewhere").fingerprint(), "the same key, another source");
    assertFalse(a.fingerprint().equals(b.fingerprint()));
    assertEquals(32, a.fingerprint().length());
    javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
    mac.init(new javax.crypto.spec.SecretKeySpec(HexFormat.of().parseHex(HEX32), "HmacSHA256"));
    String expected = HexFormat.of().formatHex(mac.doFinal(
        "dptext key fingerprint v1".getBytes(java.nio.charset.StandardCharsets.UTF_8))).substring(0, 32);
    assertEquals(expected, a.fingerprint());
    assertFalse(a.fingerprint().contains(HEX32.substring(0, 8)), "no part of the key");
  }

  @Test
  void aKeyFileMayHoldTheRawBytes(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    byte[] raw = HexFormat.of().parseHex(HEX64);
    raw[0] = 0; // surely not text
    java.nio.file.Path file = java.nio.file.Files.write(dir.resolve("key.bin"), raw);
    assertArrayEquals(raw, SecretKey.fromFile(file).material());
    java.nio.file.Path hex = java.nio.file.Files.writeString(dir.resolve("key.hex"), HEX64 + "\n");
    assertArrayEquals(HexFormat.of().parseHex(HEX64), SecretKey.fromFile(hex).material());
    java.nio.file.Path shortRaw = java.nio.file.Files.write(dir.resolve("short.bin"), new byte[] {0, 1, 2, 3});
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SecretKey.fromFile(shortRaw));
    assertTrue(e.getMessage().contains("4 raw bytes") && e.getMessage().contains("head -c 32 /dev/urandom"),
        e.getMessage());
    // A hex key saved with a byte-order mark is the same key.
    byte[] hexBytes = (HEX64 + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] bom = new byte[hexBytes.length + 3];
    bom[0] = (byte) 0xef;
    bom[1] = (byte) 0xbb;
    bom[2] = (byte) 0xbf;
    System.arraycopy(hexBytes, 0, bom, 3, hexBytes.length);
    assertArrayEquals(HexFormat.of().parseHex(HEX64),
        SecretKey.fromFile(java.nio.file.Files.write(dir.resolve("key.bom"), bom)).material());
    // Text with accented letters is text, never raw bytes: refused like any passphrase.
    java.nio.file.Path accented = java.nio.file.Files.writeString(dir.resolve("accented"), "mot de passe très secret");
    assertThrows(IllegalArgumentException.class, () -> SecretKey.fromFile(accented));
    java.nio.file.Path words = java.nio.file.Files.writeString(dir.resolve("words"), "my secret passphrase");
    IllegalArgumentException w = assertThrows(IllegalArgumentException.class, () -> SecretKey.fromFile(words));
    assertTrue(w.getMessage().contains("openssl rand -hex 32") && w.getMessage().contains("raw bytes")
        && !w.getMessage().contains("passphrase"), w.getMessage());
  }
}
