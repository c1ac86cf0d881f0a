package dev.dptext.mechanism;

import dev.dptext.model.DpTextModel;
import java.io.Serializable;
import java.util.Locale;

/**
 * A mechanism's name and parameters, validated, as the job, the SQL functions and the DataFrame API
 * receive them; {@link #build(DpTextModel)} turns it into a {@link WordMechanism} on the driver.
 *
 * @param name {@code santext} or {@code santext+}
 * @param epsilon ε &gt; 0
 * @param sensitiveFraction SanText+'s w ∈ (0, 1]
 * @param replaceProbability SanText+'s p ∈ [0, 1]
 */
public record MechanismSpec(String name, double epsilon, double sensitiveFraction, double replaceProbability)
    implements Serializable {

  public static final String SANTEXT = "santext";
  public static final String SANTEXT_PLUS = "santext+";

  public MechanismSpec {
    name = canonicalName(name);
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
  }

  public static MechanismSpec santext(double epsilon) {
    return new MechanismSpec(SANTEXT, epsilon, 0.9, 0.3);
  }

  public static MechanismSpec santextPlus(double epsilon, double w, double p) {
    return new MechanismSpec(SANTEXT_PLUS, epsilon, w, p);
  }

  /** Normalises a mechanism name; an unknown one is an error listing the known ones. */
  public static String canonicalName(String name) {
    String n = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
    return switch (n) {
      case "santext" -> SANTEXT;
      case "santext+", "santextplus", "santext-plus", "santext_plus" -> SANTEXT_PLUS;
      default -> throw new IllegalArgumentException(
          "Unknown mechanism '" + name + "'; use santext or santext+");
    };
  }

  /** The first rank of the output vocabulary this mechanism draws from. */
  public int outputStart(int vocabularySize) {
    return name.equals(SANTEXT_PLUS)
        ? SanTextPlus.sensitiveStart(vocabularySize, sensitiveFraction)
        : 0;
  }

  /** Builds the mechanism (and any neighbour table it needs) on the driver. */
  public WordMechanism build(DpTextModel model) {
    int start = outputStart(model.embeddings().size());
    return switch (name) {
      case SANTEXT -> new SanText(model.embeddings(), model.neighbours(0), epsilon);
      case SANTEXT_PLUS -> new SanTextPlus(
          model.embeddings(), model.neighbours(start), epsilon, sensitiveFraction, replaceProbability);
      default -> throw new IllegalStateException(name);
    };
  }
}
