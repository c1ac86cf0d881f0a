package dev.dptext.spark.ml;

import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.EmbeddedDefault;
import dev.dptext.spark.DpText;
import dev.dptext.spark.DpTextOptions;
import dev.dptext.spark.IdMode;
import dev.dptext.text.CasePolicy;
import dev.dptext.text.OovPolicy;
import java.io.Serializable;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.DoubleArrayParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.Function1;

/**
 * dptext as a Spark ML pipeline stage: adds {@code outputCol}, the text of {@code inputCol} with every
 * word replaced by a differentially private mechanism over word embeddings. Every other column and
 * every row is kept; null stays null, empty stays empty.
 *
 * <pre>{@code
 * DpTextSanitizer dp = new DpTextSanitizer()
 *     .setInputCol("body").setOutputCol("body_dp").setIdCol("ticket_id")
 *     .setMechanism("santext+").setEpsilon(3.0).setW(0.9).setP(0.3)
 *     .setModel("dbfs:/models/glove-74k.dptext");
 * PipelineModel pipeline = new Pipeline().setStages(new PipelineStage[] {dp, ...}).fit(tickets);
 * }</pre>
 *
 * <p><b>Guarantee</b> (per token, as for the job and the SQL function): SanText and the multivariate
 * Laplace mechanism give ε·d metric local DP, d the Euclidean distance of the embeddings; SanText+
 * gives (ε, ε0)-UMLDP with ε0 = ln(1/p); Mahalanobis gives ε·d_RM (regularized Mahalanobis norm);
 * Vickrey gives its noise's guarantee (the selection is post-processing); BRR ({@code bits}-bit codes)
 * gives ε·d_H, d_H the Hamming distance of the words' codes. Not covered: the number of tokens, whitespace and layout, and anything emitted
 * verbatim by an opt-in ({@code oov=keep}, {@code casePolicy=restore}).
 *
 * <p><b>What a saved pipeline holds.</b> Only these params, through {@link DefaultParamsWritable}.
 * The model is a <em>reference</em> (a path or {@code default}), loaded on the driver when the stage
 * transforms, so a pipeline stays a few kilobytes and a rebuilt model is picked up without re-saving.
 * The RNG key is deliberately <em>not</em> a param, so it can never be written with a pipeline: at
 * transform time it is resolved like everywhere else in dptext, first match wins: the Spark conf
 * {@value DpTextOptions#SECRET} (set at application start), the Databricks secret named by the session's
 * {@value DpTextOptions#SECRET_DATABRICKS}, the file named by
 * {@link #keyFile()}, the environment variable named by {@link #keyEnv()}. Without a key the stage
 * fails unless {@code idMode} is {@code fresh}.
 *
 * <p><b>Reproducibility.</b> Each row's noise is keyed by (key, purpose, id): with
 * {@code idMode=column} (the default) re-running the pipeline on the same rows gives identical output
 * whatever the partitioning. There is no silent fallback: without {@code idCol} the stage fails
 * unless {@code idMode} is explicitly {@code content-hash} or {@code fresh} (see {@link IdMode}).
 *
 * <p>Params validate their values when set (and when a saved pipeline is loaded), with messages that
 * name the param; {@link #transformSchema} checks the columns and the whole mechanism configuration
 * before any data is read.
 */
public final class DpTextSanitizer extends Transformer implements DefaultParamsWritable {
  private static final long serialVersionUID = 1L;

  private final String uid;

  private final Param<String> inputCol;
  private final Param<String> outputCol;
  private final Param<String> idCol;
  private final Param<String> idMode;
  private final Param<String> mechanism;
  private final DoubleParam epsilon;
  private final DoubleParam w;
  private final DoubleParam p;
  private final DoubleParam lambda;
  private final DoubleArrayParam t;
  private final IntParam bits;
  private final Param<String> model;
  private final IntParam vocabSize;
  private final IntParam neighbours;
  private final Param<String> oov;
  private final Param<String> oovPlaceholder;
  private final Param<String> casePolicy;
  private final Param<String> purpose;
  private final Param<String> keyEnv;
  private final Param<String> keyFile;

  public DpTextSanitizer() {
    this(Identifiable.randomUID("dpTextSanitizer"));
  }

  /** The constructor {@code copy} and the pipeline reader use; the uid must exist before the params. */
  public DpTextSanitizer(String uid) {
    this.uid = uid;
    inputCol = new Param<>(this, "inputCol", "the string column to sanitize",
        nonBlank("inputCol"));
    outputCol = new Param<>(this, "outputCol",
        "the new column for the sanitized text (must not exist yet)", nonBlank("outputCol"));
    idCol = new Param<>(this, "idCol",
        "a stable, unique row id (any atomic type) that keys each row's randomness; required when idMode is column",
        nonBlank("idCol"));
    idMode = new Param<>(this, "idMode",
        "where each row's randomness comes from: column (reproducible, with idCol), content-hash "
            + "(reproducible; equal texts get equal outputs) or fresh (not reproducible)",
        parsedBy("idMode", IdMode::parse));
    mechanism = new Param<>(this, "mechanism",
        "the mechanism: santext, santext+, laplace, mahalanobis, vickrey, vickrey-topk or brr",
        parsedBy("mechanism", MechanismSpec::canonicalName));
    epsilon = new DoubleParam(this, "epsilon", "the privacy parameter ε > 0 (finite)",
        numberCheck("epsilon", v -> v > 0 && !Double.isInfinite(v), "a positive finite number (ε > 0)"));
    w = new DoubleParam(this, "w",
        "santext+: the fraction of least frequent words that are sensitive, in (0, 1]",
        numberCheck("w", v -> v > 0 && v <= 1, "in (0, 1]"));
    p = new DoubleParam(this, "p",
        "santext+: the probability of replacing a non-sensitive word, in [0, 1]; ε0 = ln(1/p)",
        numberCheck("p", v -> v >= 0 && v <= 1, "in [0, 1]"));
    lambda = new DoubleParam(this, "lambda",
        "mahalanobis (default 0.5) and vickrey's noise (default 0 = Laplace): the regularisation λ in [0, 1]",
        numberCheck("lambda", v -> v >= 0 && v <= 1, "in [0, 1]"));
    t = new DoubleArrayParam(this, "t",
        "vickrey: one threshold t in [0, 1] (default 0.5); vickrey-topk: thresholds t_1..t_k ≥ 0",
        thresholdsCheck());
    bits = new IntParam(this, "bits",
        "brr: the code length n in [1, 4096] (default " + MechanismSpec.DEFAULT_BRR_BITS + ", the paper's)",
        intCheck("bits", v -> v >= 1 && v <= 4096, "in [1, 4096]"));
    model = new Param<>(this, "model",
        "a dptext model artifact, a GloVe / word2vec / fastText .vec file (any Hadoop file system), or "
            + "'default' for the embedded GloVe subset; referenced, never copied into a saved pipeline",
        nonBlank("model"));
    vocabSize = new IntParam(this, "vocabSize",
        "keep only the N most frequent words of an embeddings file (0 = all)",
        intCheck("vocabSize", v -> v >= 0, "≥ 0"));
    neighbours = new IntParam(this, "neighbours",
        "K, neighbours per word in the sampler tables built from an embeddings file (memory |V|·K)",
        intCheck("neighbours", v -> v >= 1, "≥ 1"));
    oov = new Param<>(this, "oov",
        "out-of-vocabulary tokens: random (a uniform vocabulary word), placeholder, or keep (UNSAFE: verbatim)",
        parsedBy("oov", OovPolicy::parse));
    oovPlaceholder = new Param<>(this, "oovPlaceholder", "the token emitted for oov=placeholder",
        validator(value -> value != null));
    casePolicy = new Param<>(this, "casePolicy",
        "vocabulary (output spelled as in the vocabulary) or restore (copies the input's capitalisation: "
            + "outside the guarantee)",
        parsedBy("casePolicy", CasePolicy::parse));
    purpose = new Param<>(this, "purpose",
        "separates the random streams of different uses of the same rows", nonBlank("purpose"));
    keyEnv = new Param<>(this, "keyEnv",
        "the name of the environment variable holding the RNG key (the name, never the key)",
        nonBlank("keyEnv"));
    keyFile = new Param<>(this, "keyFile",
        "the path of a file holding the RNG key (the path, never the key)", nonBlank("keyFile"));

    setDefault(idMode, "column");
    setDefault(mechanism, MechanismSpec.SANTEXT_PLUS);
    setDefault(epsilon, 3.0);
    setDefault(w, 0.9);
    setDefault(p, 0.3);
    setDefault(bits, MechanismSpec.DEFAULT_BRR_BITS);
    setDefault(model, EmbeddedDefault.NAME);
    setDefault(vocabSize, 0);
    setDefault(neighbours, DpTextModel.DEFAULT_NEIGHBOURS);
    setDefault(oov, "random");
    setDefault(oovPlaceholder, "<unk>");
    setDefault(casePolicy, "vocabulary");
    setDefault(purpose, "dptext");
    setDefault(keyEnv, DpTextOptions.DEFAULT_KEY_ENV);
  }

  @Override
  public String uid() {
    return uid;
  }

  // Params: public no-argument methods, as Spark ML finds them by reflection.

  public Param<String> inputCol() {
    return inputCol;
  }

  public Param<String> outputCol() {
    return outputCol;
  }

  public Param<String> idCol() {
    return idCol;
  }

  public Param<String> idMode() {
    return idMode;
  }

  public Param<String> mechanism() {
    return mechanism;
  }

  public DoubleParam epsilon() {
    return epsilon;
  }

  public DoubleParam w() {
    return w;
  }

  public DoubleParam p() {
    return p;
  }

  public DoubleParam lambda() {
    return lambda;
  }

  public DoubleArrayParam t() {
    return t;
  }

  public Param<String> model() {
    return model;
  }

  public IntParam bits() {
    return bits;
  }

  public IntParam vocabSize() {
    return vocabSize;
  }

  public IntParam neighbours() {
    return neighbours;
  }

  public Param<String> oov() {
    return oov;
  }

  public Param<String> oovPlaceholder() {
    return oovPlaceholder;
  }

  public Param<String> casePolicy() {
    return casePolicy;
  }

  public Param<String> purpose() {
    return purpose;
  }

  public Param<String> keyEnv() {
    return keyEnv;
  }

  public Param<String> keyFile() {
    return keyFile;
  }

  // Setters return this, for chaining; an invalid value fails here, naming the param.

  public DpTextSanitizer setInputCol(String value) {
    set(inputCol, value);
    return this;
  }

  public DpTextSanitizer setOutputCol(String value) {
    set(outputCol, value);
    return this;
  }

  /** Seeds each row's randomness from this column (with the default {@code idMode=column}). */
  public DpTextSanitizer setIdCol(String value) {
    set(idCol, value);
    return this;
  }

  /** {@code column}, {@code content-hash} or {@code fresh}: see {@link IdMode} for the trade-offs. */
  public DpTextSanitizer setIdMode(String value) {
    set(idMode, value);
    return this;
  }

  public DpTextSanitizer setMechanism(String value) {
    set(mechanism, value);
    return this;
  }

  public DpTextSanitizer setEpsilon(double value) {
    set(epsilon, value);
    return this;
  }

  public DpTextSanitizer setW(double value) {
    set(w, value);
    return this;
  }

  public DpTextSanitizer setP(double value) {
    set(p, value);
    return this;
  }

  public DpTextSanitizer setLambda(double value) {
    set(lambda, value);
    return this;
  }

  public DpTextSanitizer setT(double... values) {
    set(t, values.clone());
    return this;
  }

  public DpTextSanitizer setModel(String value) {
    set(model, value);
    return this;
  }

  /** BRR's code length n (default 256). */
  public DpTextSanitizer setBits(int value) {
    set(bits, value);
    return this;
  }

  public DpTextSanitizer setVocabSize(int value) {
    set(vocabSize, value);
    return this;
  }

  public DpTextSanitizer setNeighbours(int value) {
    set(neighbours, value);
    return this;
  }

  public DpTextSanitizer setOov(String value) {
    set(oov, value);
    return this;
  }

  public DpTextSanitizer setOovPlaceholder(String value) {
    set(oovPlaceholder, value);
    return this;
  }

  public DpTextSanitizer setCasePolicy(String value) {
    set(casePolicy, value);
    return this;
  }

  public DpTextSanitizer setPurpose(String value) {
    set(purpose, value);
    return this;
  }

  public DpTextSanitizer setKeyEnv(String value) {
    set(keyEnv, value);
    return this;
  }

  public DpTextSanitizer setKeyFile(String value) {
    set(keyFile, value);
    return this;
  }

  public String getInputCol() {
    return getOrDefault(inputCol);
  }

  public String getOutputCol() {
    return getOrDefault(outputCol);
  }

  /** The id column, or null when none is set. */
  public String getIdCol() {
    return isDefined(idCol) ? getOrDefault(idCol) : null;
  }

  public String getIdMode() {
    return getOrDefault(idMode);
  }

  public String getMechanism() {
    return getOrDefault(mechanism);
  }

  public double getEpsilon() {
    return (Double) getOrDefault(epsilon);
  }

  public double getW() {
    return (Double) getOrDefault(w);
  }

  public double getP() {
    return (Double) getOrDefault(p);
  }

  /** λ, or NaN when unset (the mechanism's default applies). */
  public double getLambda() {
    return isDefined(lambda) ? (Double) getOrDefault(lambda) : Double.NaN;
  }

  /** The Vickrey thresholds; empty when unset (the mechanism's default applies). */
  public double[] getT() {
    return isDefined(t) ? getOrDefault(t).clone() : new double[0];
  }

  public String getModel() {
    return getOrDefault(model);
  }

  public int getBits() {
    return (Integer) getOrDefault(bits);
  }

  public int getVocabSize() {
    return (Integer) getOrDefault(vocabSize);
  }

  public int getNeighbours() {
    return (Integer) getOrDefault(neighbours);
  }

  public String getOov() {
    return getOrDefault(oov);
  }

  public String getOovPlaceholder() {
    return getOrDefault(oovPlaceholder);
  }

  public String getCasePolicy() {
    return getOrDefault(casePolicy);
  }

  public String getPurpose() {
    return getOrDefault(purpose);
  }

  public String getKeyEnv() {
    return getOrDefault(keyEnv);
  }

  /** The key file path, or null when none is set. */
  public String getKeyFile() {
    return isDefined(keyFile) ? getOrDefault(keyFile) : null;
  }

  /**
   * Checks, before any data is read, that the input column exists and is a string, that the id
   * configuration is complete (an existing atomic {@code idCol} for {@code idMode=column}, none
   * otherwise), that the output column is new, and that the mechanism's parameters fit together.
   *
   * @return the input schema plus the nullable string {@code outputCol}
   * @throws IllegalArgumentException naming the column or param at fault
   */
  @Override
  public StructType transformSchema(StructType schema) {
    requireSet(inputCol, "the string column to sanitize");
    requireSet(outputCol, "the new column for the sanitized text");
    String out = getOutputCol();
    if (Arrays.asList(schema.fieldNames()).contains(out)) {
      throw new IllegalArgumentException(
          "The output column '" + out + "' already exists in the input; choose another outputCol "
              + "(DpTextSanitizer never overwrites a column)");
    }
    sanitizer(settings()).validate(schema, getInputCol());
    return schema.add(out, DataTypes.StringType, true);
  }

  /**
   * Sanitizes {@code inputCol} into {@code outputCol}. The model is loaded (or taken from the JVM's
   * cache) and broadcast with the mechanism and the key once per configuration; the key is resolved
   * now, on the driver, so a missing key fails here rather than in a task.
   */
  @Override
  public Dataset<Row> transform(Dataset<?> dataset) {
    transformSchema(dataset.schema());
    Map<String, String> settings = settings();
    dev.dptext.spark.SessionSecret.get(dataset.sparkSession())
        .ifPresent(secret -> settings.put(DpTextOptions.SECRET, secret));
    dataset.sparkSession().conf().getOption(DpTextOptions.SECRET_DATABRICKS)
        .foreach(name -> settings.put(DpTextOptions.SECRET_DATABRICKS, name));
    return sanitizer(settings).transform(dataset.toDF(), getInputCol(), getOutputCol());
  }

  @Override
  public DpTextSanitizer copy(ParamMap extra) {
    return defaultCopy(extra);
  }

  /** The reader {@code PipelineModel.load} finds by reflection. */
  public static MLReader<DpTextSanitizer> read() {
    return new DefaultParamsReader<>();
  }

  /** Loads a stage saved with {@code write().save(path)}. */
  public static DpTextSanitizer load(String path) {
    return read().load(path);
  }

  /** The params as {@code spark.dptext.*} settings, everything but the key itself. */
  private Map<String, String> settings() {
    Map<String, String> s = new HashMap<>();
    s.put(DpTextOptions.MODEL, getModel());
    s.put(DpTextOptions.VOCAB_SIZE, Integer.toString(getVocabSize()));
    s.put(DpTextOptions.NEIGHBOURS, Integer.toString(getNeighbours()));
    s.put(DpTextOptions.MECHANISM, getMechanism());
    s.put(DpTextOptions.EPSILON, Double.toString(getEpsilon()));
    s.put(DpTextOptions.W, Double.toString(getW()));
    s.put(DpTextOptions.P, Double.toString(getP()));
    if (isDefined(lambda)) {
      s.put(DpTextOptions.LAMBDA, Double.toString(getLambda()));
    }
    if (isDefined(t)) {
      s.put(DpTextOptions.T,
          Arrays.stream(getT()).mapToObj(Double::toString).collect(Collectors.joining(",")));
    }
    s.put(DpTextOptions.BITS, Integer.toString(getBits()));
    s.put(DpTextOptions.OOV, getOov());
    s.put(DpTextOptions.OOV_PLACEHOLDER, getOovPlaceholder());
    s.put(DpTextOptions.CASE, getCasePolicy());
    s.put(DpTextOptions.ID_MODE, getIdMode());
    s.put(DpTextOptions.PURPOSE, getPurpose());
    s.put(DpTextOptions.SECRET_ENV, getKeyEnv());
    if (isDefined(keyFile)) {
      s.put(DpTextOptions.SECRET_FILE, getKeyFile());
    }
    return s;
  }

  /** The DataFrame-API sanitizer for these settings, with the id configuration checked. */
  private DpText.Builder sanitizer(Map<String, String> settings) {
    DpTextOptions options;
    try {
      options = DpTextOptions.fromMap(settings);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("DpTextSanitizer: " + e.getMessage(), e);
    }
    DpText.Builder builder = DpText.sanitizer(options);
    IdMode mode = IdMode.parse(getIdMode());
    String id = getIdCol();
    if (mode == IdMode.COLUMN && id == null) {
      throw new IllegalArgumentException(
          "DpTextSanitizer has no idCol. Name a stable, unique id column with setIdCol (recommended), "
              + "or choose explicitly: setIdMode(\"content-hash\") (reproducible, but equal texts get "
              + "equal outputs) or setIdMode(\"fresh\") (not reproducible)");
    }
    if (mode != IdMode.COLUMN && id != null) {
      throw new IllegalArgumentException(
          "DpTextSanitizer has idCol '" + id + "' but idMode " + getIdMode()
              + "; clear one of them (idMode column uses idCol)");
    }
    return switch (mode) {
      case COLUMN -> builder.idColumn(id);
      case CONTENT_HASH -> builder.seedByContent();
      case FRESH -> builder.freshRandomness();
    };
  }

  private void requireSet(Param<String> param, String what) {
    if (!isDefined(param)) {
      throw new IllegalArgumentException(
          "DpTextSanitizer: set " + param.name() + " (" + what + ")");
    }
  }

  // Validators. Spark's own message says only "given invalid value"; these throw one that says what
  // is expected. They are stored in the params, which are serialized with the stage.

  /** A serializable test of a value. */
  private interface Check<T> extends Serializable {
    boolean ok(T value);
  }

  /** A serializable parser that throws IllegalArgumentException with its own explanation. */
  private interface Parser extends Serializable {
    Object parse(String value);
  }

  private static <T> Function1<T, Object> validator(Check<T> check) {
    return (Function1<T, Object> & Serializable) check::ok;
  }

  private static Function1<String, Object> nonBlank(String name) {
    return validator(value -> {
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException(
            "DpTextSanitizer param " + name + " must be a non-empty string, got '" + value + "'");
      }
      return true;
    });
  }

  private static Function1<String, Object> parsedBy(String name, Parser parser) {
    return validator(value -> {
      try {
        parser.parse(value);
        return true;
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("DpTextSanitizer param " + name + ": " + e.getMessage(), e);
      }
    });
  }

  private static Function1<Object, Object> numberCheck(String name, Check<Double> ok, String expected) {
    return validator(value -> {
      double v = (Double) value;
      if (!ok.ok(v)) {
        throw new IllegalArgumentException(
            "DpTextSanitizer param " + name + " must be " + expected + ", got " + v);
      }
      return true;
    });
  }

  private static Function1<Object, Object> intCheck(String name, Check<Integer> ok, String expected) {
    return validator(value -> {
      int v = (Integer) value;
      if (!ok.ok(v)) {
        throw new IllegalArgumentException(
            "DpTextSanitizer param " + name + " must be " + expected + ", got " + v);
      }
      return true;
    });
  }

  private static Function1<double[], Object> thresholdsCheck() {
    return validator(values -> {
      if (values.length == 0
          || Arrays.stream(values).anyMatch(v -> !(v >= 0) || Double.isInfinite(v))) {
        throw new IllegalArgumentException(
            "DpTextSanitizer param t must be one or more finite thresholds ≥ 0, got " + Arrays.toString(values));
      }
      return true;
    });
  }
}
