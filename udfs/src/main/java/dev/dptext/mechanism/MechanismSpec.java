package dev.dptext.mechanism;

import dev.dptext.model.DpTextModel;
import java.io.Serializable;
import java.util.List;
import java.util.Locale;

/**
 * A mechanism's name and parameters, validated, as the job, the SQL functions and the DataFrame API
 * receive them; {@link #build(DpTextModel)} turns it into a {@link WordMechanism} on the driver.
 *
 * @param name {@code santext}, {@code santext+}, {@code laplace}, {@code mahalanobis},
 *     {@code vickrey}, {@code vickrey-topk} or {@code brr}
 * @param epsilon ε &gt; 0
 * @param sensitiveFraction SanText+'s w ∈ (0, 1]
 * @param replaceProbability SanText+'s p ∈ [0, 1]
 * @param lambda the Mahalanobis regularisation λ ∈ [0, 1] (Mahalanobis, and Vickrey's noise: 0 is
 *     Laplace noise); NaN for the mechanism's default (Mahalanobis 0.5, Vickrey 0)
 * @param t Vickrey's threshold t ∈ [0, 1] (one value), or t_1..t_k ≥ 0 for {@code vickrey-topk}
 * @param bits BRR's code length n (default {@value #DEFAULT_BRR_BITS})
 */
public record MechanismSpec(
    String name, double epsilon, double sensitiveFraction, double replaceProbability, double lambda, List<Double> t,
    int bits)
    implements Serializable {

  public static final String SANTEXT = "santext";
  public static final String SANTEXT_PLUS = "santext+";
  public static final String LAPLACE = "laplace";
  public static final String MAHALANOBIS = "mahalanobis";
  public static final String VICKREY = "vickrey";
  public static final String VICKREY_TOPK = "vickrey-topk";
  public static final String BRR = "brr";

  /** BRR's code length unless configured: the paper's 256 bits. */
  public static final int DEFAULT_BRR_BITS = 256;

  /** Mahalanobis's λ when none is given. */
  public static final double DEFAULT_MAHALANOBIS_LAMBDA = 0.5;
  /** Vickrey's t when none is given. */
  public static final double DEFAULT_VICKREY_T = 0.5;

  public MechanismSpec {
    name = canonicalName(name);
    t = t == null ? List.of() : List.copyOf(t);
    if (bits < 1 || bits > 4096) {
      throw new IllegalArgumentException("brr bits must be in [1, 4096], got " + bits + "; the paper uses 256");
    }
    if (!(epsilon > 0) || Double.isInfinite(epsilon)) {
      throw new IllegalArgumentException(
          "epsilon must be a positive finite number, got " + epsilon + "; typical values are 1 to 10");
    }
    if (name.equals(SANTEXT_PLUS)) {
      if (!(sensitiveFraction > 0 && sensitiveFraction <= 1)) {
        throw new IllegalArgumentException(
            "santext+ sensitive fraction w must be in (0, 1], got " + sensitiveFraction + "; the paper uses 0.9");
      }
      if (!(replaceProbability >= 0 && replaceProbability <= 1)) {
        throw new IllegalArgumentException(
            "santext+ replacement probability p must be in [0, 1], got " + replaceProbability + "; the paper uses 0.3");
      }
    }
    if (name.equals(MAHALANOBIS) && Double.isNaN(lambda)) {
      lambda = DEFAULT_MAHALANOBIS_LAMBDA;
    }
    if ((name.equals(VICKREY) || name.equals(VICKREY_TOPK)) && Double.isNaN(lambda)) {
      lambda = 0;
    }
    if (!Double.isNaN(lambda) && !(lambda >= 0 && lambda <= 1)) {
      throw new IllegalArgumentException("lambda must be in [0, 1], got " + lambda + "; 0 is Laplace noise");
    }
    if (name.equals(VICKREY)) {
      if (t.isEmpty()) {
        t = List.of(DEFAULT_VICKREY_T);
      }
      if (t.size() != 1 || !(t.get(0) >= 0 && t.get(0) <= 1)) {
        throw new IllegalArgumentException(
            "vickrey takes one threshold t in [0, 1], got " + t + "; use vickrey-topk for t_1..t_k");
      }
    }
    if (name.equals(VICKREY_TOPK)) {
      if (t.size() < 2) {
        throw new IllegalArgumentException(
            "vickrey-topk takes k ≥ 2 thresholds t_1..t_k (e.g. t=0,0.5,1), got " + t);
      }
      for (double x : t) {
        if (!(x >= 0) || Double.isInfinite(x)) {
          throw new IllegalArgumentException("vickrey-topk thresholds must be finite and ≥ 0, got " + t);
        }
      }
    }
  }

  /** SanText+ parameters with the other mechanisms' left at their defaults. */
  public MechanismSpec(String name, double epsilon, double sensitiveFraction, double replaceProbability) {
    this(name, epsilon, sensitiveFraction, replaceProbability, Double.NaN, List.of());
  }

  /** Every parameter but BRR's code length, which takes its default. */
  public MechanismSpec(
      String name, double epsilon, double sensitiveFraction, double replaceProbability, double lambda, List<Double> t) {
    this(name, epsilon, sensitiveFraction, replaceProbability, lambda, t, DEFAULT_BRR_BITS);
  }

  /** BRR over {@code bits}-bit codes. */
  public static MechanismSpec brr(double epsilon, int bits) {
    return new MechanismSpec(BRR, epsilon, 0.9, 0.3, Double.NaN, List.of(), bits);
  }

  public static MechanismSpec santext(double epsilon) {
    return new MechanismSpec(SANTEXT, epsilon, 0.9, 0.3);
  }

  public static MechanismSpec santextPlus(double epsilon, double w, double p) {
    return new MechanismSpec(SANTEXT_PLUS, epsilon, w, p);
  }

  public static MechanismSpec laplace(double epsilon) {
    return new MechanismSpec(LAPLACE, epsilon, 0.9, 0.3);
  }

  public static MechanismSpec mahalanobis(double epsilon, double lambda) {
    return new MechanismSpec(MAHALANOBIS, epsilon, 0.9, 0.3, lambda, List.of());
  }

  /** Vickrey with one threshold t; λ = 0 for Laplace noise, else Mahalanobis noise. */
  public static MechanismSpec vickrey(double epsilon, double t, double lambda) {
    return new MechanismSpec(VICKREY, epsilon, 0.9, 0.3, lambda, List.of(t));
  }

  /** The generalised top-k Vickrey mechanism with thresholds t_1..t_k. */
  public static MechanismSpec vickreyTopK(double epsilon, List<Double> t, double lambda) {
    return new MechanismSpec(VICKREY_TOPK, epsilon, 0.9, 0.3, lambda, t);
  }

  /** Normalises a mechanism name; an unknown one is an error listing the known ones. */
  public static String canonicalName(String name) {
    String n = name == null ? "" : name.strip().toLowerCase(Locale.ROOT).replace('_', '-');
    return switch (n) {
      case "santext" -> SANTEXT;
      case "santext+", "santextplus", "santext-plus" -> SANTEXT_PLUS;
      case "laplace", "madlib", "multivariate-laplace" -> LAPLACE;
      case "mahalanobis" -> MAHALANOBIS;
      case "vickrey" -> VICKREY;
      case "vickrey-topk", "vickrey-top-k" -> VICKREY_TOPK;
      case "brr" -> BRR;
      default -> throw new IllegalArgumentException(
          "Unknown mechanism '" + name + "'; use santext, santext+, laplace, mahalanobis, vickrey, vickrey-topk or brr");
    };
  }

  /** The first rank of the output vocabulary this mechanism draws from. */
  public int outputStart(int vocabularySize) {
    return name.equals(SANTEXT_PLUS)
        ? SanTextPlus.sensitiveStart(vocabularySize, sensitiveFraction)
        : 0;
  }

  /** Builds the mechanism (and any neighbour table or index it needs) on the driver. */
  public WordMechanism build(DpTextModel model) {
    int start = outputStart(model.embeddings().size());
    return switch (name) {
      case SANTEXT -> new SanText(model.embeddings(), model.neighbours(0), epsilon);
      case SANTEXT_PLUS -> new SanTextPlus(
          model.embeddings(), model.neighbours(start), epsilon, sensitiveFraction, replaceProbability);
      case LAPLACE -> new LaplaceMechanism(model.embeddings(), model.nearestWords(), epsilon);
      case MAHALANOBIS -> new MahalanobisMechanism(
          model.embeddings(), model.nearestWords(), model.covariance(), epsilon, lambda);
      case VICKREY, VICKREY_TOPK -> VickreyMechanism.of(
          model.embeddings(), model.nearestWords(), lambda > 0 ? model.covariance() : null, epsilon, lambda, t);
      case BRR -> new BrrMechanism(model.binaryCodes(bits), epsilon);
      default -> throw new IllegalStateException(name);
    };
  }

  /** A one-line description for summaries and logs. */
  public String describe() {
    return switch (name) {
      case SANTEXT -> String.format(Locale.ROOT, "santext ε=%s", epsilon);
      case SANTEXT_PLUS -> String.format(Locale.ROOT, "santext+ ε=%s, w=%s, p=%s, ε0=ln(1/p)=%.3f", epsilon,
          sensitiveFraction, replaceProbability,
          replaceProbability > 0 ? Math.log(1 / replaceProbability) : Double.POSITIVE_INFINITY);
      case LAPLACE -> String.format(Locale.ROOT, "laplace ε=%s", epsilon);
      case MAHALANOBIS -> String.format(Locale.ROOT, "mahalanobis ε=%s, λ=%s", epsilon, lambda);
      case BRR -> String.format(Locale.ROOT, "brr ε=%s, %d bits", epsilon, bits);
      default -> String.format(Locale.ROOT, "%s ε=%s, t=%s, noise=%s", name, epsilon,
          t.size() == 1 ? t.get(0).toString() : t.toString(), lambda == 0 ? "laplace" : "mahalanobis λ=" + lambda);
    };
  }
}
