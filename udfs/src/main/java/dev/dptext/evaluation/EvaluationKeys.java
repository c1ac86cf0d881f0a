package dev.dptext.evaluation;

import dev.dptext.random.SecretKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Keys for evaluation runs, derived from a public seed: trial i of an evaluation uses
 * SHA-256("dptext/evaluation/" + purpose + "/" + seed + "/" + i) as its RNG key, so every figure is
 * reproducible from the seed printed next to it. They are evaluation keys, public by design, never
 * keys for data that is published: a production key must be secret and random.
 */
public final class EvaluationKeys {
  private EvaluationKeys() {}

  /** The key of trial {@code trial} for {@code purpose} under the public {@code seed}. */
  public static SecretKey of(String purpose, long seed, int trial) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(
          ("dptext/evaluation/" + purpose + "/" + seed + "/" + trial).getBytes(StandardCharsets.UTF_8));
      return SecretKey.parse(HexFormat.of().formatHex(digest), "evaluation seed " + seed + ", trial " + trial);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
