package dev.dptext.settings;

import dev.dptext.config.Setting;
import dev.dptext.errors.DpTextErrors;
import dev.dptext.knn.HnswNearestWords;
import dev.dptext.knn.NearestSearch;
import dev.dptext.mechanism.MechanismDefinition;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.Mechanisms;
import dev.dptext.random.SecretKey;
import dev.dptext.text.CasePolicy;
import dev.dptext.text.OovPolicy;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The values of the {@link Settings} for one sanitization: immutable, checked when set, and equal
 * exactly when every setting has the same value (so it keys the JVM's cache of broadcast sanitizers).
 * Every surface fills one: the Spark conf ({@link #fromConf}), the command line and the ML stage
 * (through the same conf keys), the Java builder ({@link #with}).
 *
 * <p>The RNG key is resolved on the driver from, first match: {@code spark.dptext.secretKey}, the
 * Databricks secret named by {@code databricksSecret}, the file named by {@code keyFile}, the
 * environment variable named by {@code keyEnv} (default {@code DPTEXT_KEY}). Without a key the run fails,
 * unless {@code freshRandomness} is true or the id mode is fresh: then a fresh random key is used and
 * re-runs differ. {@code spark.dptext.secretKey} matches Spark's default {@code spark.redaction.regex},
 * so the UI and event log show it redacted; this class never prints it.
 */
public final class DpTextOptions {
  /** Setting name → value, for the settings given explicitly. */
  private final Map<String, Object> values;

  /** {@link #mechanismSpec}, once built (derived from {@link #values}, so not part of equality). */
  private MechanismSpec spec;

  private DpTextOptions(Map<String, Object> values) {
    this.values = values;
  }

  /** Every setting at its default. */
  public static DpTextOptions defaults() {
    return new DpTextOptions(Map.of());
  }

  /**
   * Reads {@code spark.dptext.*} settings through {@code get} (null when unset); a key under the
   * prefix that is not a setting is an error listing the known ones.
   */
  public static DpTextOptions fromConf(Function<String, String> get, Iterable<String> presentKeys) {
    Set<String> unknown = new TreeSet<>();
    for (String k : presentKeys) {
      if (k.startsWith(Setting.CONF_PREFIX) && Settings.byConfKey(k).isEmpty()) {
        unknown.add(k);
      }
    }
    if (!unknown.isEmpty()) {
      Set<String> known = new TreeSet<>();
      Settings.ALL.forEach(s -> known.add(s.confKey()));
      throw DpTextErrors.error("SETTING_UNKNOWN", "unknown", unknown, "known", known);
    }
    DpTextOptions o = defaults();
    for (Setting<?> s : Settings.ALL) {
      String text = get.apply(s.confKey());
      if (text != null) {
        o = o.withText(s, text);
      }
    }
    o.mechanismSpec(); // the mechanism's parameters must fit together: check now, not at first use
    o.checkNearestSearch();
    return o;
  }

  /** Reads a map of {@code spark.dptext.*} keys to values. */
  public static DpTextOptions fromMap(Map<String, String> settings) {
    return fromConf(settings::get, settings.keySet());
  }

  /** These options with {@code setting} = {@code value} (checked); null returns it to its default. */
  public <T> DpTextOptions with(Setting<T> setting, T value) {
    Map<String, Object> v = new TreeMap<>(values);
    if (value == null) {
      v.remove(setting.name());
    } else {
      v.put(setting.name(), setting.check(value));
    }
    return new DpTextOptions(v);
  }

  /** These options with {@code setting} read from text, as the Spark conf and the command line give it. */
  public <T> DpTextOptions withText(Setting<T> setting, String text) {
    return with(setting, setting.parse(text));
  }

  /** These options with {@code setting} from a typed value (a number, a list, a {@code double[]}) or text. */
  public <T> DpTextOptions withValue(Setting<T> setting, Object value) {
    return with(setting, value == null ? null : setting.coerce(value));
  }

  /** These options with the mechanism and every parameter of {@code spec}. */
  public DpTextOptions with(MechanismSpec spec) {
    DpTextOptions o = with(Settings.MECHANISM, spec.name());
    for (MechanismDefinition.Parameter<?> p : spec.definition().parameters()) {
      o = o.withValue(p.setting(), spec.values().get(p.name()));
    }
    return o;
  }

  /** The value of {@code setting}: as given, else its default (null when it has none). */
  @SuppressWarnings("unchecked")
  public <T> T get(Setting<T> setting) {
    Object v = values.get(setting.name());
    return v != null ? (T) v : setting.defaultValue().orElse(null);
  }

  /** Whether {@code setting} was given. */
  public boolean isSet(Setting<?> setting) {
    return values.containsKey(setting.name());
  }

  /**
   * The mechanism with the parameters given for it; the others take the mechanism's defaults. Built and
   * checked (ε's range, the parameters' fit) once per instance: the options are immutable, and a run asks
   * for its spec at every step (the guarantee, the sampler, the audit, the summary, the ledger).
   */
  public MechanismSpec mechanismSpec() {
    MechanismSpec s = spec;
    if (s == null) {
      MechanismDefinition d = Mechanisms.get(get(Settings.MECHANISM));
      Map<String, Object> given = new LinkedHashMap<>();
      for (MechanismDefinition.Parameter<?> p : d.parameters()) {
        if (isSet(p.setting())) {
          given.put(p.name(), values.get(p.name()));
        }
      }
      s = MechanismSpec.of(d.name(), given);
      spec = s; // a race builds an equal spec twice: no lock needed
    }
    return s;
  }

  public NearestSearch nearestSearch() {
    return NearestSearch.parse(get(Settings.NEAREST_SEARCH));
  }

  /**
   * Refuses an approximate nearest-word search where it does not apply: for a mechanism whose guarantee
   * it would change (SanText, SanText+) or that has no embedding search (BRR), and without Lucene on the
   * classpath. (The partitioned model layout refuses it where the layout is decided.)
   */
  public void checkNearestSearch() {
    if (nearestSearch() == NearestSearch.EXACT) {
      return;
    }
    String refusal = mechanismSpec().definition().approximateSearchRefusal();
    if (refusal != null) {
      throw new IllegalArgumentException(refusal);
    }
    if (!HnswNearestWords.available()) {
      throw DpTextErrors.error("HNSW_NEEDS_LUCENE", "version", LUCENE_VERSION);
    }
  }

  /** The Lucene release dptext is built and tested with (for the message above). */
  static final String LUCENE_VERSION = "9.12.2";

  public IdMode idMode() {
    return IdMode.parse(get(Settings.ID_MODE));
  }

  public OovPolicy oovPolicy() {
    return OovPolicy.parse(get(Settings.OOV));
  }

  public CasePolicy casePolicy() {
    return CasePolicy.parse(get(Settings.CASE_POLICY));
  }

  /** The key to use, resolved as described in the class comment. */
  public SecretKey resolveKey() {
    String secret = get(Settings.SECRET_KEY);
    if (secret != null) {
      return SecretKey.parse(secret, "Spark conf " + Settings.SECRET_KEY.confKey());
    }
    String databricks = get(Settings.DATABRICKS_SECRET);
    if (databricks != null) {
      return SecretKey.parse(DatabricksSecrets.get(databricks.strip()), "Databricks secret " + databricks.strip());
    }
    String file = get(Settings.KEY_FILE);
    if (file != null) {
      return SecretKey.fromFile(Path.of(file));
    }
    String variable = get(Settings.KEY_ENV);
    String env = System.getenv(variable);
    if (env != null) {
      return SecretKey.parse(env, "environment variable " + variable);
    }
    if (get(Settings.FRESH_RANDOMNESS) || idMode() == IdMode.FRESH) {
      return SecretKey.fresh();
    }
    throw DpTextErrors.error("KEY_NOT_GIVEN", "variable", variable, "secretKey", Settings.SECRET_KEY.confKey());
  }

  /** A description safe to log: mechanism, parameters, model; never the key. */
  public String describe() {
    return String.format(Locale.ROOT, "%s, model=%s, oov=%s, case=%s, idMode=%s", mechanismSpec(), get(Settings.MODEL),
        get(Settings.OOV), get(Settings.CASE_POLICY), get(Settings.ID_MODE));
  }

  /**
   * The settings given explicitly, as Spark conf keys and text, the key itself left out: what
   * {@link #fromMap} reads back into equal options (e.g. on an executor).
   */
  public Map<String, String> toConf() {
    Map<String, String> conf = new TreeMap<>();
    for (Setting<?> s : Settings.ALL) {
      if (!s.secret() && isSet(s)) {
        conf.put(s.confKey(), formatted(s));
      }
    }
    return conf;
  }

  private <T> String formatted(Setting<T> s) {
    return s.format(get(s));
  }

  public ModelDistribution modelDistribution() {
    return ModelDistribution.parse(get(Settings.MODEL_DISTRIBUTION));
  }

  /** Every setting's value, defaults included, by name. */
  private Map<String, Object> effective() {
    Map<String, Object> all = new TreeMap<>();
    for (Setting<?> s : Settings.ALL) {
      all.put(s.name(), get(s));
    }
    return all;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DpTextOptions other && other.effective().equals(effective());
  }

  @Override
  public int hashCode() {
    return effective().hashCode();
  }

  /** Like {@link #describe()}: never the key. */
  @Override
  public String toString() {
    return "DpTextOptions[" + describe() + "]";
  }
}
