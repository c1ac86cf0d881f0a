package dev.dptext.spark.ml;

import dev.dptext.config.Check;
import dev.dptext.config.Setting;
import dev.dptext.errors.DpTextErrors;
import dev.dptext.errors.DpTextException;
import dev.dptext.mechanism.Mechanisms;
import dev.dptext.runtime.SessionSecret;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.IdMode;
import dev.dptext.settings.Settings;
import dev.dptext.spark.DpText;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.BooleanParam;
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
 * <p><b>Params.</b> One Param per setting of {@link Settings} (all but the key itself), with the same
 * name, default, doc and check as the Spark conf key {@code spark.dptext.NAME} and the job's option;
 * the mechanism's parameters come from {@link Mechanisms}, so a new mechanism's parameters are Params
 * without a change here ({@link #params()} lists them, {@link #setSetting} sets any by name).
 *
 * <p><b>Guarantee</b>: the mechanism's, per token, as {@link #guarantee()} states it for the configured
 * values (each mechanism's own text from {@link Mechanisms}; {@code explainParams()} shows them all).
 *
 * <p><b>What a saved pipeline holds.</b> Only these params, through {@link DefaultParamsWritable}.
 * The model is a <em>reference</em> (a path or {@code default}), loaded on the driver when the stage
 * transforms, so a pipeline stays a few kilobytes and a rebuilt model is picked up without re-saving.
 * The RNG key is deliberately <em>not</em> a param, so it can never be written with a pipeline: at
 * transform time it is resolved like everywhere else in dptext, first match wins: the Spark conf
 * {@code spark.dptext.secretKey} (set at application start), the Databricks secret named by
 * {@code databricksSecret}, the file named by {@code keyFile}, the environment variable named by
 * {@code keyEnv} — each the Param when it is set, else the session's {@code spark.dptext.*} setting, as
 * the SQL function and the DataFrame API read it. Without a key the stage
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
  private static final long serialVersionUID = 2L;

  private final String uid;

  private final Param<String> inputCol;
  private final Param<String> outputCol;
  private final Param<String> idCol;
  /** Setting name → its Param, one per {@link Settings#options()}. */
  private final Map<String, Param<?>> settingParams = new LinkedHashMap<>();
  private final Param<?>[] params;

  public DpTextSanitizer() {
    this(Identifiable.randomUID("dpTextSanitizer"));
  }

  /** The constructor {@code copy} and the pipeline reader use; the uid must exist before the params. */
  @SuppressWarnings("unchecked")
  public DpTextSanitizer(String uid) {
    this.uid = uid;
    inputCol = new Param<>(this, "inputCol", "the string column to sanitize", nonBlank("inputCol"));
    outputCol = new Param<>(this, "outputCol", "the new column for the sanitized text (must not exist yet)",
        nonBlank("outputCol"));
    idCol = new Param<>(this, "idCol",
        "a stable, unique row id (any atomic type) that keys each row's randomness; required when idMode is column",
        nonBlank("idCol"));
    List<Param<?>> all = new ArrayList<>(List.of(inputCol, outputCol, idCol));
    for (Setting<?> s : Settings.options()) {
      Param<?> p = paramOf(s);
      settingParams.put(s.name(), p);
      all.add(p);
    }
    params = all.toArray(new Param<?>[0]);
    // After params exists: setDefault asks params() whether this stage owns the Param.
    for (Setting<?> s : Settings.options()) {
      Param<?> p = settingParams.get(s.name());
      s.defaultValue().ifPresent(v -> setDefault((Param<Object>) p, toParamValue(v)));
    }
  }

  @Override
  public String uid() {
    return uid;
  }

  /** Every Param: the columns and one per setting (Spark ML would otherwise look for accessor methods). */
  @Override
  public Param<?>[] params() {
    return params.clone();
  }

  @Override
  @SuppressWarnings("unchecked")
  public Param<Object> getParam(String name) {
    for (Param<?> p : params) {
      if (p.name().equals(name)) {
        return (Param<Object>) p;
      }
    }
    // Spark ML's contract for an unknown Param is NoSuchElementException: the catalogued error is its cause.
    DpTextException e = DpTextErrors.error("ML_PARAM_UNKNOWN", "param", name, "params",
        String.join(", ", Arrays.stream(params).map(Param::name).toList()));
    throw (NoSuchElementException) new NoSuchElementException(e.getMessage()).initCause(e);
  }

  /** Sets the Param of any setting by name, e.g. a new mechanism's parameter: {@code setSetting("t", new double[] {0.5})}. */
  public DpTextSanitizer setSetting(String name, Object value) {
    Setting<?> s = Settings.byName(name).filter(x -> !x.secret()).orElseThrow(() -> DpTextErrors.error(
        "SETTING_UNKNOWN", "unknown", name, "known", settingParams.keySet()));
    set(getParam(name), toParamValue(s.coerce(value))); // a refused value: the setting's SETTING_INVALID
    return this;
  }

  /** The value of a setting's Param (its default when unset; null when it has none). */
  public Object getSetting(String name) {
    Param<Object> p = getParam(name);
    return isDefined(p) ? getOrDefault(p) : null;
  }

  /**
   * The Param of a setting: the Param class of its value type, its doc, and a validator that applies
   * the setting's own check (so the message is the one every surface gives).
   */
  private Param<?> paramOf(Setting<?> s) {
    String doc = Settings.doc(s);
    return switch (s.type().kind()) {
      case STRING -> new Param<String>(this, s.name(), doc, validator(s));
      case INT -> new IntParam(this, s.name(), doc, validator(s));
      case DOUBLE -> new DoubleParam(this, s.name(), doc, validator(s));
      case BOOLEAN -> new BooleanParam(this, s.name(), doc); // every boolean is valid
      case DOUBLE_LIST -> new DoubleArrayParam(this, s.name(), doc, validator(s));
    };
  }

  /** A setting's value as its Param holds it: lists as {@code double[]}. */
  private static Object toParamValue(Object value) {
    if (value instanceof List<?> list) {
      return list.stream().mapToDouble(x -> ((Number) x).doubleValue()).toArray();
    }
    return value;
  }

  private static <T> Function1<T, Object> validator(Setting<?> s) {
    return (Function1<T, Object> & Serializable) value -> {
      s.coerce(value); // a refused value: the setting's SETTING_INVALID, which names it
      return true;
    };
  }

  private static Function1<String, Object> nonBlank(String name) {
    return (Function1<String, Object> & Serializable) value -> {
      if (value == null || value.isBlank()) {
        throw Check.failure(name, "a non-empty string", value, null);
      }
      return true;
    };
  }

  // Typed accessors for the columns and the settings of today's mechanisms, for Java and Scala callers.

  public Param<String> inputCol() {
    return inputCol;
  }

  public Param<String> outputCol() {
    return outputCol;
  }

  public Param<String> idCol() {
    return idCol;
  }

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

  /** {@code column}, {@code content-hash} or {@code fresh}: see {@link IdMode} for the trade-offs. */
  public DpTextSanitizer setIdMode(String value) {
    return setSetting(Settings.ID_MODE.name(), value);
  }

  public String getIdMode() {
    return (String) getSetting(Settings.ID_MODE.name());
  }

  /** One of {@link Mechanisms#names()}. */
  public DpTextSanitizer setMechanism(String value) {
    return setSetting(Settings.MECHANISM.name(), value);
  }

  public String getMechanism() {
    return (String) getSetting(Settings.MECHANISM.name());
  }

  public DpTextSanitizer setEpsilon(double value) {
    return setSetting("epsilon", value);
  }

  public double getEpsilon() {
    return (Double) getSetting("epsilon");
  }

  public DpTextSanitizer setW(double value) {
    return setSetting("w", value);
  }

  public DpTextSanitizer setP(double value) {
    return setSetting("p", value);
  }

  public double getP() {
    return (Double) getSetting("p");
  }

  public DpTextSanitizer setLambda(double value) {
    return setSetting("lambda", value);
  }

  public DpTextSanitizer setT(double... values) {
    return setSetting("t", values.clone());
  }

  /** BRR's code length n. */
  public DpTextSanitizer setBits(int value) {
    return setSetting("bits", value);
  }

  public int getBits() {
    return (Integer) getSetting("bits");
  }

  public DpTextSanitizer setModel(String value) {
    return setSetting(Settings.MODEL.name(), value);
  }

  public String getModel() {
    return (String) getSetting(Settings.MODEL.name());
  }

  public DpTextSanitizer setVocabSize(int value) {
    return setSetting(Settings.VOCAB_SIZE.name(), value);
  }

  public DpTextSanitizer setNeighbours(int value) {
    return setSetting(Settings.NEIGHBOURS.name(), value);
  }

  public DpTextSanitizer setOov(String value) {
    return setSetting(Settings.OOV.name(), value);
  }

  public DpTextSanitizer setOovPlaceholder(String value) {
    return setSetting(Settings.OOV_PLACEHOLDER.name(), value);
  }

  public DpTextSanitizer setCasePolicy(String value) {
    return setSetting(Settings.CASE_POLICY.name(), value);
  }

  public DpTextSanitizer setPurpose(String value) {
    return setSetting(Settings.PURPOSE.name(), value);
  }

  public DpTextSanitizer setKeyEnv(String value) {
    return setSetting(Settings.KEY_ENV.name(), value);
  }

  public DpTextSanitizer setKeyFile(String value) {
    return setSetting(Settings.KEY_FILE.name(), value);
  }


  /** The guarantee of the configured mechanism and values, one sentence. */
  public String guarantee() {
    return options().mechanismSpec().guarantee();
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
      throw DpTextErrors.error("ML_OUTPUT_COLUMN_EXISTS", "column", out);
    }
    sanitizer(options()).validate(schema, getInputCol());
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
    DpTextOptions options = options();
    var spark = dataset.sparkSession();
    var secret = SessionSecret.get(spark);
    if (secret.isPresent()) {
      options = options.with(Settings.SECRET_KEY, secret.get());
    }
    // The key's sources the stage's Params leave unset come from the session's settings, as for the SQL
    // function and the DataFrame API (a key file set with configure(key_file=…) or SET spark.dptext.keyFile).
    for (Setting<?> source : KEY_SOURCES) {
      Param<?> param = settingParams.get(source.name());
      if (!isSet(param)) {
        scala.Option<String> value = spark.conf().getOption(source.confKey());
        if (value.isDefined()) {
          options = options.withText(source, value.get());
        }
      }
    }
    return sanitizer(options).transform(dataset.toDF(), getInputCol(), getOutputCol());
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

  /** The settings that name where the key is: the session's value applies when the stage's Param is not set. */
  private static final List<Setting<?>> KEY_SOURCES = List.of(Settings.DATABRICKS_SECRET, Settings.KEY_FILE,
      Settings.KEY_ENV);

  /** The Params as options: every setting whose Param is set or has a default; never the key. */
  private DpTextOptions options() {
    // A refused value or mechanism parameter is a catalogued error that names the setting at fault.
    DpTextOptions o = DpTextOptions.defaults();
    for (Map.Entry<String, Param<?>> e : settingParams.entrySet()) {
      Param<?> p = e.getValue();
      if (isDefined(p)) {
        o = o.withValue(Settings.byName(e.getKey()).orElseThrow(), getOrDefault(p));
      }
    }
    o.mechanismSpec();
    return o;
  }

  /** The DataFrame-API sanitizer for these options, with the id configuration checked. */
  private DpText.Builder sanitizer(DpTextOptions options) {
    DpText.Builder builder = DpText.sanitizer(options);
    IdMode mode = options.idMode();
    String id = getIdCol();
    if (mode == IdMode.COLUMN && id == null) {
      throw DpTextErrors.error("ID_COLUMN_NOT_GIVEN", "caller", "DpTextSanitizer", "idColumn", "setIdCol",
          "contentHash", "setIdMode(\"content-hash\")", "fresh", "setIdMode(\"fresh\")");
    }
    if (mode != IdMode.COLUMN && id != null) {
      throw DpTextErrors.error("ML_ID_COL_WITH_ID_MODE", "idCol", id, "idMode", getIdMode());
    }
    return switch (mode) {
      case COLUMN -> builder.idColumn(id);
      case CONTENT_HASH -> builder.seedByContent();
      case FRESH -> builder.freshRandomness();
    };
  }

  private void requireSet(Param<String> param, String what) {
    if (!isDefined(param)) {
      String name = param.name();
      throw DpTextErrors.error("ML_PARAM_NOT_SET", "param", name, "what", what,
          "setter", "set" + Character.toUpperCase(name.charAt(0)) + name.substring(1));
    }
  }
}
