package dev.dptext.spark;

import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.EmbeddedDefault;
import dev.dptext.random.SecretKey;
import dev.dptext.text.CasePolicy;
import dev.dptext.text.OovPolicy;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Every setting of a sanitization, in one place, with the Spark conf keys ({@code spark.dptext.*})
 * that set them for SQL functions. The job and the DataFrame API fill the same object.
 *
 * <p>The RNG key is resolved here, on the driver, from (first match) an explicit key,
 * {@value #SECRET}, the Databricks secret named by {@value #SECRET_DATABRICKS} ({@code scope/key}, on
 * Databricks), the file named by {@value #SECRET_FILE}, or the environment variable named by
 * {@value #SECRET_ENV} (default {@code DPTEXT_KEY}). {@value #SECRET} matches Spark's default
 * {@code spark.redaction.regex}, so the UI and event log show it redacted. Without a key the run fails,
 * unless {@value #FRESH} is true: then a fresh random key is used and re-runs differ.
 */
public final class DpTextOptions {
  public static final String PREFIX = "spark.dptext.";
  public static final String MODEL = PREFIX + "model";
  public static final String VOCAB_SIZE = PREFIX + "vocabSize";
  public static final String NEIGHBOURS = PREFIX + "neighbours";
  public static final String MECHANISM = PREFIX + "mechanism";
  public static final String EPSILON = PREFIX + "epsilon";
  public static final String W = PREFIX + "w";
  public static final String P = PREFIX + "p";
  public static final String LAMBDA = PREFIX + "lambda";
  public static final String T = PREFIX + "t";
  public static final String BITS = PREFIX + "bits";
  public static final String OOV = PREFIX + "oov";
  public static final String OOV_PLACEHOLDER = PREFIX + "oovPlaceholder";
  public static final String CASE = PREFIX + "case";
  public static final String ID_MODE = PREFIX + "idMode";
  public static final String PURPOSE = PREFIX + "purpose";
  public static final String SECRET = PREFIX + "rng.secret";
  public static final String SECRET_FILE = PREFIX + "rng.secretFile";
  public static final String SECRET_ENV = PREFIX + "rng.secretEnv";
  public static final String SECRET_DATABRICKS = PREFIX + "rng.databricksSecret";
  public static final String FRESH = PREFIX + "rng.fresh";

  /** Every key this class reads; anything else under {@value #PREFIX} is a typo. */
  public static final Set<String> KEYS =
      Set.of(MODEL, VOCAB_SIZE, NEIGHBOURS, MECHANISM, EPSILON, W, P, LAMBDA, T, BITS, OOV, OOV_PLACEHOLDER, CASE,
          ID_MODE, PURPOSE, SECRET, SECRET_DATABRICKS, SECRET_FILE, SECRET_ENV, FRESH);

  public static final String DEFAULT_KEY_ENV = "DPTEXT_KEY";

  String model = EmbeddedDefault.NAME;
  int vocabularySize = 0;
  int neighbours = DpTextModel.DEFAULT_NEIGHBOURS;
  DpTextModel modelInstance;
  String mechanism = MechanismSpec.SANTEXT;
  double epsilon = 3.0;
  double w = 0.9;
  double p = 0.3;
  double lambda = Double.NaN;
  java.util.List<Double> t = java.util.List.of();
  int bits = MechanismSpec.DEFAULT_BRR_BITS;
  OovPolicy oov = OovPolicy.RANDOM;
  String oovPlaceholder = "<unk>";
  CasePolicy casePolicy = CasePolicy.VOCABULARY;
  IdMode idMode = IdMode.COLUMN;
  String purpose = "dptext";
  SecretKey key;
  String secretFile;
  String databricksSecret;
  String secretEnv = DEFAULT_KEY_ENV;
  boolean fresh;

  /** Reads {@code spark.dptext.*} settings through {@code get} (null when unset). */
  public static DpTextOptions fromConf(Function<String, String> get, Iterable<String> presentKeys) {
    Set<String> unknown = new TreeSet<>();
    for (String k : presentKeys) {
      if (k.startsWith(PREFIX) && !KEYS.contains(k)) {
        unknown.add(k);
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "Unknown dptext setting(s) " + unknown + "; known settings are " + new TreeSet<>(KEYS));
    }
    DpTextOptions o = new DpTextOptions();
    o.model = Objects.requireNonNullElse(get.apply(MODEL), o.model);
    o.vocabularySize = parseInt(get, VOCAB_SIZE, o.vocabularySize);
    o.neighbours = parseInt(get, NEIGHBOURS, o.neighbours);
    o.mechanism = Objects.requireNonNullElse(get.apply(MECHANISM), o.mechanism);
    o.epsilon = parseDouble(get, EPSILON, o.epsilon);
    o.w = parseDouble(get, W, o.w);
    o.p = parseDouble(get, P, o.p);
    o.lambda = parseDouble(get, LAMBDA, o.lambda);
    o.bits = parseInt(get, BITS, o.bits);
    String ts = get.apply(T);
    if (ts != null && !ts.isBlank()) {
      java.util.List<Double> list = new java.util.ArrayList<>();
      for (String part : ts.split(",")) {
        try {
          list.add(Double.parseDouble(part.strip()));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(T + " must be a number or a comma-separated list, got '" + ts + "'");
        }
      }
      o.t = list;
    }
    if (get.apply(OOV) != null) {
      o.oov = OovPolicy.parse(get.apply(OOV));
    }
    o.oovPlaceholder = Objects.requireNonNullElse(get.apply(OOV_PLACEHOLDER), o.oovPlaceholder);
    if (get.apply(CASE) != null) {
      o.casePolicy = CasePolicy.parse(get.apply(CASE));
    }
    if (get.apply(ID_MODE) != null) {
      o.idMode = IdMode.parse(get.apply(ID_MODE));
    }
    o.purpose = Objects.requireNonNullElse(get.apply(PURPOSE), o.purpose);
    String secret = get.apply(SECRET);
    if (secret != null) {
      o.key = SecretKey.parse(secret, "Spark conf " + SECRET);
    }
    o.secretFile = get.apply(SECRET_FILE);
    o.databricksSecret = get.apply(SECRET_DATABRICKS);
    o.secretEnv = Objects.requireNonNullElse(get.apply(SECRET_ENV), o.secretEnv);
    String fresh = get.apply(FRESH);
    if (fresh != null) {
      if (!fresh.equalsIgnoreCase("true") && !fresh.equalsIgnoreCase("false")) {
        throw new IllegalArgumentException(FRESH + " must be true or false, got '" + fresh + "'");
      }
      o.fresh = Boolean.parseBoolean(fresh);
    }
    o.mechanismSpec(); // validate now, not at first use
    return o;
  }

  /** Reads from a map of settings, e.g. a job's configuration. */
  public static DpTextOptions fromMap(Map<String, String> settings) {
    return fromConf(settings::get, settings.keySet());
  }

  private static int parseInt(Function<String, String> get, String key, int dflt) {
    String v = get.apply(key);
    if (v == null) {
      return dflt;
    }
    try {
      return Integer.parseInt(v.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be an integer, got '" + v + "'");
    }
  }

  private static double parseDouble(Function<String, String> get, String key, double dflt) {
    String v = get.apply(key);
    if (v == null) {
      return dflt;
    }
    try {
      return Double.parseDouble(v.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a number, got '" + v + "'");
    }
  }

  public MechanismSpec mechanismSpec() {
    return new MechanismSpec(mechanism, epsilon, w, p, lambda, t, bits);
  }

  public IdMode idMode() {
    return idMode;
  }

  public String modelSource() {
    return modelInstance != null ? modelInstance.metadata().getOrDefault("source", "in-memory") : model;
  }

  /** The key to use, resolved as described in the class comment. */
  public SecretKey resolveKey() {
    if (key != null) {
      return key;
    }
    if (databricksSecret != null && !databricksSecret.isBlank()) {
      return SecretKey.parse(DatabricksSecrets.get(databricksSecret.strip()),
          "Databricks secret " + databricksSecret.strip());
    }
    if (secretFile != null && !secretFile.isBlank()) {
      return SecretKey.fromFile(Path.of(secretFile));
    }
    String env = System.getenv(secretEnv);
    if (env != null) {
      return SecretKey.parse(env, "environment variable " + secretEnv);
    }
    if (fresh || idMode == IdMode.FRESH) {
      return SecretKey.fresh();
    }
    throw new IllegalArgumentException(
        "No RNG key: set the environment variable " + secretEnv + ", " + SECRET_FILE + " (a file "
            + "holding the key) or " + SECRET + "; " + SecretKey.HOW_TO_GENERATE + ". To run with "
            + "fresh, non-reproducible randomness instead, set " + FRESH + "=true (or --fresh-randomness)");
  }

  /** A description safe to log: mechanism, parameters, model; never the key. */
  public String describe() {
    return String.format(Locale.ROOT, "%s, model=%s, oov=%s, case=%s, idMode=%s",
        mechanismSpec(), modelSource(), oov, casePolicy, idMode);
  }
}
