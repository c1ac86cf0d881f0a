package dev.dptext.mechanism;

import dev.dptext.embedding.BinaryCodes;
import dev.dptext.knn.NearestCodes;
import dev.dptext.random.RandomStream;
import java.util.Locale;
import dev.dptext.config.ValueType;
import dev.dptext.config.Setting;
import dev.dptext.config.Check;
import java.util.List;
import dev.dptext.model.DpTextModel;
import dev.dptext.embedding.WordMetric;
import static dev.dptext.mechanism.MechanismDefinition.EPSILON;
import dev.dptext.mechanism.MechanismDefinition.Parameter;

/**
 * BRR, binary embeddings over randomized response (Carvalho et al.): take the word's n-bit code
 * ({@link BinaryCodes}), keep each bit with probability e^ε/(1+e^ε) and flip it otherwise, output
 * the Hamming-nearest word (exact; ties to the lower rank). The input word can be the output. Each
 * bit is flipped independently with probability exactly 1/(1+e^ε) as a double (no 53-bit rounding;
 * see {@link #bernoulliMask}).
 *
 * <p><b>Guarantee.</b> ε·d_H metric DP per token, d_H the Hamming distance between the words' codes:
 * P(y | x) ≤ exp(ε·d_H(c(x), c(x')))·P(y | x') (randomized response is ε-DP per bit; the bits are
 * independent, so the flipped code is ε·d_H-private; the nearest-word step is post-processing).
 * Next to the Euclidean mechanisms: d_H ranges over 0..n (n = 256 by default) while Euclidean
 * distances in GloVe 100-d are ~1–10, so equal ε are not comparable — use the privacy ratio
 * ε_B = ε_A·P_dA/P_dB of the paper's §5 to match a Euclidean mechanism's bound. Two words with the
 * same code are indistinguishable. <b>Not covered:</b> token count and layout, verbatim opt-ins.
 */
public final class BrrMechanism implements WordMechanism {
  private static final long serialVersionUID = 3L;

  /** n: the code length in bits. */
  public static final Setting<Integer> BITS = Setting.define("bits").symbol("n")
      .doc("BRR: the length n of the words' binary codes, in bits.")
      .hint("the paper uses 256")
      .createWithDefault(ValueType.INT, Check.between(1, 4096), 256);

  /** BRR: ε, n. */
  public static final MechanismDefinition DEFINITION = new MechanismDefinition("brr", List.of(),
      "BRR (Carvalho et al.): the word's n-bit code (random hyperplanes on the centred embeddings, public "
          + "seed); each bit kept with probability e^ε/(1+e^ε), else flipped; the Hamming-nearest word (exact, "
          + "ties to the lower rank). Hamming distances (0..n) are not on the Euclidean scale: match ε across "
          + "metrics with calibrate.",
      List.of(Parameter.of(EPSILON), Parameter.of(BITS))) {
    @Override
    public String example() {
      return "brr:epsilon=1,bits=64";
    }

    @Override
    public WordMechanism build(MechanismSpec spec, DpTextModel model) {
      return new BrrMechanism(model.binaryCodes(spec.get(BITS)), spec.epsilon());
    }

    @Override
    protected String approximateSearchObstacle() {
      return "searches the Hamming-nearest binary code, exactly, with its own bit kernel; an embedding index "
          + "does not apply to it";
    }

    @Override
    public WordMetric metric(MechanismSpec spec, DpTextModel model) {
      return WordMetric.hamming(model.binaryCodes(spec.get(BITS)));
    }

    @Override
    protected String guarantee(Rendering r) {
      return "BRR: " + r.text(EPSILON) + "·d_Hamming metric DP per token over " + r.text(BITS) + "-bit codes "
          + "(randomized response per bit; the Hamming-nearest word is post-processing)";
    }

    @Override
    public String describe(MechanismSpec spec) {
      return String.format(Locale.ROOT, "brr ε=%s, %d bits", spec.epsilon(), spec.get(BITS));
    }
  };

  private final BinaryCodes codes;
  private final NearestCodes nearest;
  private final double epsilon;
  private final double flipProbability;
  /** The binary digits of flipProbability after the point, most significant first (all of them). */
  private final boolean[] flipDigits;

  public BrrMechanism(BinaryCodes codes, double epsilon) {
    MechanismDefinition.EPSILON.check(epsilon);
    this.codes = codes;
    this.nearest = new NearestCodes(codes);
    this.epsilon = epsilon;
    this.flipProbability = 1 / (1 + StrictMath.exp(epsilon)); // fdlibm: the Python engine's bits too
    this.flipDigits = binaryDigits(flipProbability);
  }

  /** 1/(1+e^ε), the probability that a bit is flipped. */
  public double flipProbability() {
    return flipProbability;
  }

  @Override
  public int sanitize(int word, RandomStream random) {
    int[] out = new int[1];
    sanitize(new int[] {word}, 1, random, out);
    return out[0];
  }

  /**
   * Flips every word's code first (drawing from the stream in token order, exactly as one-at-a-time
   * calls do — the nearest-word step draws nothing), then finds all the nearest words in one pass
   * over the codes, each query starting from its input word's distance as the bound.
   */
  @Override
  public void sanitize(int[] words, int count, RandomStream random, int[] out) {
    int longs = codes.longs();
    long[] queries = new long[count * longs];
    for (int i = 0; i < count; i++) {
      flip(words[i], random, queries, i * longs);
    }
    nearest.nearest(queries, words, count, out);
  }

  /** Writes word's code with each bit flipped independently with probability 1/(1+e^ε). */
  void flip(int word, RandomStream random, long[] out) {
    flip(word, random, out, 0);
  }

  /**
   * The randomized-response step alone: writes word's code into {@code out[offset ..)} with each bit
   * flipped independently with probability 1/(1+e^ε) (for benchmarks and tests; the output word is
   * the code's Hamming-nearest word).
   */
  public void flip(int word, RandomStream random, long[] out, int offset) {
    codes.copyCode(word, out, offset);
    int bits = codes.bits();
    for (int k = 0; k < codes.longs(); k++) {
      long mask = bernoulliMask(flipDigits, random);
      int left = bits - 64 * k;
      if (left < 64) {
        mask &= (1L << left) - 1; // lanes past the code's last bit
      }
      out[offset + k] ^= mask;
    }
  }

  /**
   * The binary expansion of p ∈ [0, 1): digit k (k = 0, 1, …) is the coefficient of 2^-(k+1). Exact
   * and finite: doubling a double and subtracting 1 are exact, and a double has at most 1,074
   * fractional digits.
   */
  static boolean[] binaryDigits(double p) {
    if (!(p >= 0 && p < 1)) { // p = 1/(1+e^ε) with ε > 0 checked
      throw new IllegalStateException("p must be in [0, 1), got " + p);
    }
    boolean[] digits = new boolean[1100];
    int n = 0;
    double x = p;
    while (x != 0) {
      x *= 2;
      digits[n] = x >= 1;
      if (x >= 1) {
        x -= 1;
      }
      n++;
    }
    return java.util.Arrays.copyOf(digits, n);
  }

  /**
   * 64 independent bits, each 1 with probability exactly p (the double whose digits are given).
   *
   * <p>Each lane compares an infinite-precision uniform U with p, digit by digit, all 64 lanes at
   * once: one {@link RandomStream#nextLong()} supplies the next digit of every lane's U. A lane is
   * decided at the first digit where U and p differ (U &lt; p iff p has the 1 there), so it stays
   * undecided after each digit with probability ½, independently of p; a lane still undecided when p's
   * digits run out has U ≥ p. Hence P(bit = 1) = P(U &lt; p) = p exactly — not rounded to a 53-bit
   * grid — and the lanes are independent because their digits are distinct bits of the stream. It
   * takes 7.3 draws per 64 bits on average (the maximum of 64 geometric(½) stopping times) instead of
   * 64 uniforms.
   */
  static long bernoulliMask(boolean[] digits, RandomStream random) {
    long undecided = -1L;
    long ones = 0;
    for (int k = 0; k < digits.length && undecided != 0; k++) {
      long u = random.nextLong();
      if (digits[k]) {
        ones |= undecided & ~u; // U's digit 0 < p's digit 1: U < p
        undecided &= u;
      } else {
        undecided &= ~u; // U's digit 1 > p's digit 0: U > p
      }
    }
    return ones;
  }

  @Override
  public int outputStart() {
    return 0;
  }

  @Override
  public String name() {
    return "brr";
  }


}
