package dev.dptext.spark;

import dev.dptext.config.Setting;
import dev.dptext.errors.DpTextErrors;
import dev.dptext.mechanism.MechanismDefinition;
import dev.dptext.mechanism.Mechanisms;
import dev.dptext.runtime.SessionConf;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.IdMode;
import dev.dptext.settings.Settings;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import scala.Function1;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The SQL function {@code dp_sanitize}, for both {@link DpTextExtensions} (spark.sql.extensions) and
 * {@link DpText#register(SparkSession)} on a running session. The function is resolved lazily, when a
 * query uses it, from the session's {@code spark.dptext.*} settings at that moment, overridden by the
 * call's own options map ({@link #withQueryOptions}).
 */
final class SqlFunctions {
  private SqlFunctions() {}

  /** The usage line of {@code DESCRIBE FUNCTION}, from the registry. */
  static String usage() {
    return "_FUNC_(text, id[, options]) - Rewrites each word of `text` with a differentially private mechanism over word "
        + "embeddings (" + Settings.MECHANISM.confKey() + ": " + String.join(", ", Mechanisms.names()) + "; default "
        + Mechanisms.DEFAULT + "), seeded by the secret key and the row's stable `id`, so re-runs give identical "
        + "output.\n"
        + "_FUNC_(text) - The same, seeded by the text itself (" + Settings.ID_MODE.confKey() + "=content-hash: equal "
        + "texts get equal outputs) or freshly (" + Settings.ID_MODE.confKey() + "=fresh: not reproducible).\n"
        + "`options`, a constant map of settings (e.g. map('mechanism', 'laplace', 'epsilon', '10')), overrides the "
        + "session's settings for this call; a NULL value means the setting's default.";
  }

  /**
   * The extended text of {@code DESCRIBE FUNCTION EXTENDED}: the arguments, every mechanism with its
   * parameters and guarantee, and every setting with its default, all from the one table.
   */
  static String arguments() {
    StringBuilder s = new StringBuilder("\n    Arguments:\n");
    s.append("      * text - a string column; null stays null, empty stays empty\n");
    s.append("      * id - a stable unique row id of any atomic type (its string form keys the row's noise)\n");
    s.append("      * options - a constant MAP<STRING, STRING> of settings (names below, or their conf keys) for this "
        + "call; NULL = the default; never the key itself (" + Settings.SECRET_KEY.name() + " is refused)\n");
    s.append("\n    Mechanisms (").append(Settings.MECHANISM.confKey()).append(") and their guarantees:\n");
    for (MechanismDefinition d : Mechanisms.ALL) {
      List<String> params = new ArrayList<>();
      for (MechanismDefinition.Parameter<?> p : d.parameters()) {
        params.add(p.name() + (p.required() ? " (required)" : "=" + format(p)));
      }
      s.append("      * ").append(d.name()).append(" (").append(String.join(", ", params)).append(") - ")
          .append(d.summary()).append(" Guarantee: ").append(d.guarantee()).append(".\n");
    }
    s.append("\n    Settings (Spark conf; default):\n");
    for (Setting<?> setting : Settings.ALL) {
      s.append("      * ").append(setting.confKey()).append(" (").append(setting.defaultText()).append(") - ")
          .append(Settings.doc(setting)).append("\n");
    }
    return s.toString();
  }

  private static <T> String format(MechanismDefinition.Parameter<T> p) {
    return p.setting().format(p.defaultValue());
  }

  static FunctionIdentifier identifier() {
    return new FunctionIdentifier(DpText.SQL_FUNCTION, Option.empty(), Option.empty());
  }

  static ExpressionInfo info() {
    return new ExpressionInfo(SqlFunctions.class.getName(), null, DpText.SQL_FUNCTION, usage(), arguments());
  }

  static FunctionIdentifier countedIdentifier() {
    return new FunctionIdentifier(DpText.SQL_FUNCTION_COUNTED, Option.empty(), Option.empty());
  }

  static ExpressionInfo countedInfo() {
    return new ExpressionInfo(SqlFunctions.class.getName(), null, DpText.SQL_FUNCTION_COUNTED,
        "_FUNC_(text[, id][, options]) - " + DpText.SQL_FUNCTION + "(text[, id][, options]) with the row's token counts: a struct of text, "
            + "tokens, changed, outOfVocabulary, searchQueries, searchWanted and searchFound (for Spark Connect "
            + "clients, which sum the counts with Dataset.observe).", arguments());
  }

  /** The builder of {@code dp_sanitize}. */
  static Function1<Seq<Expression>, Expression> builder() {
    return builder(false);
  }

  /** The builder of {@code dp_sanitize_counted}. */
  static Function1<Seq<Expression>, Expression> countedBuilder() {
    return builder(true);
  }

  /**
   * The function builder: validates the arguments and binds the sanitizer of the session's settings,
   * overridden by the optional trailing options map.
   */
  private static Function1<Seq<Expression>, Expression> builder(boolean counted) {
    return (Function1<Seq<Expression>, Expression> & java.io.Serializable) children -> {
      java.util.List<Expression> args = new java.util.ArrayList<>(CollectionConverters.asJava(children));
      SparkSession spark = SparkSession.active();
      DpTextOptions options = SessionConf.options(spark);
      if (!args.isEmpty() && args.get(args.size() - 1).dataType() instanceof org.apache.spark.sql.types.MapType) {
        options = withQueryOptions(options, args.remove(args.size() - 1));
      }
      IdMode mode = options.idMode();
      if (args.size() == 2 && mode != IdMode.COLUMN) {
        throw DpTextErrors.error("SQL_ID_WITH_ID_MODE", "function", DpText.SQL_FUNCTION,
            "idModeKey", Settings.ID_MODE.confKey(), "mode", mode);
      }
      if (args.size() == 1 && mode == IdMode.COLUMN) {
        throw DpTextErrors.error("ID_COLUMN_NOT_GIVEN", "caller", DpText.SQL_FUNCTION + "(text)",
            "idColumn", DpText.SQL_FUNCTION + "(text, id)",
            "contentHash", Settings.ID_MODE.confKey() + "=content-hash",
            "fresh", Settings.ID_MODE.confKey() + "=fresh");
      }
      if (args.size() != 1 && args.size() != 2) {
        throw DpTextErrors.error("SQL_ARGUMENTS", "function", DpText.SQL_FUNCTION, "count", children.size(),
            "idModeKey", Settings.ID_MODE.confKey());
      }
      DpText.Builder b = DpText.sanitizer(options);
      UserDefinedFunction udf = counted ? b.countingUdf(spark) : b.udf(spark);
      if (args.size() == 1) {
        args.add(org.apache.spark.sql.catalyst.expressions.Literal.create(null,
            org.apache.spark.sql.types.DataTypes.StringType));
      }
      return dev.dptext.classic.ClassicFunctions.udfExpression(udf, CollectionConverters.asScala(args).toList());
    };
  }

  /**
   * {@code options} with the settings of a query's options argument: a constant {@code MAP<STRING,
   * STRING>} of setting names (or {@code spark.dptext.*} keys) to values, a NULL value meaning the
   * setting's default. Why an argument and not only the session's settings: a query then says how it
   * sanitizes by itself, whatever the session's settings are when it runs (a lazily run DataFrame, each
   * micro-batch of a stream, concurrent users of one session). The key itself is refused here: a query's
   * text is in its plan, the logs and the UI; its source (keyFile, databricksSecret) is not a secret.
   */
  static DpTextOptions withQueryOptions(DpTextOptions options, Expression map) {
    if (!map.foldable()) {
      throw DpTextErrors.error("SQL_OPTIONS_NOT_CONSTANT", "function", DpText.SQL_FUNCTION);
    }
    Object value = map.eval(null);
    if (value == null) {
      return options;
    }
    org.apache.spark.sql.catalyst.util.MapData data = (org.apache.spark.sql.catalyst.util.MapData) value;
    DpTextOptions o = options;
    for (int i = 0; i < data.numElements(); i++) {
      String name = String.valueOf(data.keyArray().get(i, org.apache.spark.sql.types.DataTypes.StringType));
      Object v = data.valueArray().isNullAt(i) ? null
          : data.valueArray().get(i, org.apache.spark.sql.types.DataTypes.StringType);
      Setting<?> setting = Settings.byName(name).or(() -> Settings.byConfKey(name)).orElseThrow(() ->
          DpTextErrors.error("SETTING_UNKNOWN", "unknown", name, "known",
              Settings.options().stream().map(Setting::name).toList()));
      if (setting.secret()) {
        throw DpTextErrors.error("SQL_OPTIONS_NAME_THE_KEY", "function", DpText.SQL_FUNCTION,
            "setting", setting.name(), "keyFile", Settings.KEY_FILE.name(),
            "databricksSecret", Settings.DATABRICKS_SECRET.name(), "secretKey", Settings.SECRET_KEY.confKey());
      }
      o = v == null ? o.with(setting, null) : o.withText(setting, v.toString());
    }
    o.mechanismSpec(); // the mechanism's parameters must fit together
    o.checkNearestSearch();
    return o;
  }

  /**
   * Registers the function in a running classic session. A Spark Connect client cannot: its functions
   * are the server's, registered by {@link DpTextExtensions} in the server's {@code spark.sql.extensions}.
   */
  static void register(SparkSession spark) {
    dev.dptext.classic.ClassicFunctions.registerFunction(spark, identifier(), info(), builder());
    dev.dptext.classic.ClassicFunctions.registerFunction(spark, countedIdentifier(), countedInfo(), countedBuilder());
  }
}
