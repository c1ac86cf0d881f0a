package dev.dptext.random;

import dev.dptext.errors.DpTextErrors;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The secret that keys every row's random stream.
 *
 * <p>Whoever knows the key and a row's id can recompute the noise the mechanism added to that row and
 * so undo it: treat the key like a password. This class never prints its material: {@link #toString()}
 * is redacted and every error message describes the <em>shape</em> of a bad key, never its value.
 *
 * <p>Accepted encodings: at least 32 hexadecimal digits (128 bits), or {@code base64:} followed by at
 * least 16 bytes in standard Base64. Generate one with {@code openssl rand -hex 32}. A key file may also
 * hold the key's raw bytes (at least 16; anything that is not valid UTF-8), as
 * {@code head -c 32 /dev/urandom > key} writes them.
 */
public final class SecretKey implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Minimum key length in bytes (128 bits). */
  public static final int MIN_BYTES = 16;

  /** How a key can be generated; quoted in error messages. */
  public static final String HOW_TO_GENERATE = "generate one with `openssl rand -hex 32`";

  private final byte[] material;
  private final String source;
  private final boolean fresh;

  private SecretKey(byte[] material, String source, boolean fresh) {
    this.material = material;
    this.source = source;
    this.fresh = fresh;
  }

  /**
   * Parses an encoded key.
   *
   * @param encoded hex (≥ 32 digits) or {@code base64:...} (≥ 16 bytes)
   * @param source where the key came from, for messages (e.g. "environment variable DPTEXT_KEY");
   *     never the key itself
   * @throws IllegalArgumentException naming the source and the expected shape, never the value
   */
  public static SecretKey parse(String encoded, String source) {
    if (encoded == null) {
      throw DpTextErrors.error("KEY_MISSING", "source", source);
    }
    String s = encoded.strip();
    byte[] bytes;
    if (s.regionMatches(true, 0, "base64:", 0, 7)) {
      try {
        bytes = Base64.getDecoder().decode(s.substring(7));
      } catch (IllegalArgumentException e) {
        throw DpTextErrors.error("KEY_NOT_BASE64", "source", source);
      }
    } else if (s.length() % 2 == 0 && s.chars().allMatch(SecretKey::isAsciiHex)) {
      bytes = HexFormat.of().parseHex(s.toLowerCase(Locale.ROOT));
    } else {
      throw DpTextErrors.error(source.startsWith("key file") ? "KEY_FILE_NOT_HEX_OR_BASE64" : "KEY_NOT_HEX_OR_BASE64",
          "source", source, "length", s.length());
    }
    if (bytes.length < MIN_BYTES) {
      throw DpTextErrors.error("KEY_TOO_SHORT", "source", source, "bits", bytes.length * 8, "minBits", MIN_BYTES * 8);
    }
    return new SecretKey(bytes, source, false);
  }

  private static boolean isAsciiHex(int c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  /** Reads the key from an environment variable. */
  public static SecretKey fromEnv(String variable) {
    return parse(System.getenv(variable), "environment variable " + variable);
  }

  /** Reads the key from a file (its whole content, surrounding whitespace ignored). */
  public static SecretKey fromFile(Path file) {
    byte[] content;
    try {
      content = Files.readAllBytes(file);
    } catch (IOException e) {
      throw DpTextErrors.error(e, "KEY_FILE_UNREADABLE", "path", file, "kind", e.getClass().getSimpleName());
    }
    String source = "key file " + file;
    java.util.Optional<String> text = text(content);
    if (text.isPresent()) {
      return parse(text.get(), source);
    }
    // Not text: the key's raw bytes, as `head -c 32 /dev/urandom > key` writes them.
    if (content.length < MIN_BYTES) {
      throw DpTextErrors.error("KEY_FILE_TOO_SHORT", "source", source, "bytes", content.length, "minBytes", MIN_BYTES);
    }
    return new SecretKey(content, source, false);
  }

  /** What a key file may hold; quoted in error messages. */
  public static final String FILE_FORMATS = "a key file holds hex digits (`openssl rand -hex 32 > key`), "
      + "'base64:' and Base64, or the raw bytes (`head -c 32 /dev/urandom > key`)";

  /**
   * A key file's content as text, when it is valid UTF-8 without control characters other than line
   * breaks and tabs (a leading byte-order mark dropped): then it must
   * be hex or base64 — a passphrase with accented letters, or a hex key saved by an editor that writes a
   * BOM, is read as text and refused or parsed as such, never taken as raw bytes. Random raw bytes are
   * valid UTF-8 with negligible probability (32 bytes: about 10^-8); such a key is then refused with the
   * formats, never misread.
   */
  private static java.util.Optional<String> text(byte[] content) {
    int start = content.length >= 3 && (content[0] & 0xff) == 0xef && (content[1] & 0xff) == 0xbb
        && (content[2] & 0xff) == 0xbf ? 3 : 0;
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
          .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
          .decode(java.nio.ByteBuffer.wrap(content, start, content.length - start)).toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      return java.util.Optional.empty();
    }
    // Control characters other than line breaks and tabs do not occur in text a person wrote.
    boolean controls = text.chars().anyMatch(c -> Character.isISOControl(c) && c != '\n' && c != '\r' && c != '\t');
    return controls ? java.util.Optional.empty() : java.util.Optional.of(text);
  }



  /**
   * A fresh random key, for runs whose output need not be reproducible. Re-running such a job gives
   * different output.
   */
  public static SecretKey fresh() {
    byte[] b = new byte[32];
    new SecureRandom().nextBytes(b);
    return new SecretKey(b, "a fresh random key (not reproducible)", true);
  }

  /** Whether this key was drawn by {@link #fresh()}: outputs keyed by it cannot be reproduced. */
  public boolean isFresh() {
    return fresh;
  }

  /** Where this key came from, e.g. "environment variable DPTEXT_KEY". Safe to log. */
  public String source() {
    return source;
  }

  /**
   * A fingerprint that tells keys apart without revealing them: HMAC-SHA256 keyed by this key over a
   * fixed label, 128 bits in hex. Equal keys give equal fingerprints; learning the key from one is as
   * hard as breaking HMAC-SHA256 as a PRF. Safe to put in a plan or a log.
   */
  public String fingerprint() {
    try {
      javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(new javax.crypto.spec.SecretKeySpec(material, "HmacSHA256"));
      byte[] h = mac.doFinal("dptext key fingerprint v1".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(h, 0, 16);
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  /**
   * HMAC-SHA256 under this key of {@code label} and {@code message} (the label's length first, so that no
   * two pairs encode alike), 128 bits in hex: a digest of {@code message} that only the key's holder can
   * compute or check, so that a digest of something guessable (a short text, an id) reveals nothing of it.
   */
  public String tag(String label, byte[] message) {
    try {
      javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(new javax.crypto.spec.SecretKeySpec(material, "HmacSHA256"));
      byte[] l = label.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      mac.update(java.nio.ByteBuffer.allocate(4).putInt(l.length).array());
      mac.update(l);
      return java.util.HexFormat.of().formatHex(mac.doFinal(message), 0, 16);
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  /** A copy of the key bytes, for the PRF only. */
  byte[] material() {
    return material.clone();
  }

  @Override
  public String toString() {
    return "SecretKey[redacted, from " + source + "]";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SecretKey k && java.security.MessageDigest.isEqual(material, k.material);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(material);
  }
}
