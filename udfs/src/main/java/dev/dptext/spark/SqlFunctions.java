package dev.dptext.spark;

import dev.dptext.config.Setting;
import dev.dptext.mechanism.MechanismDefinition;
import dev.dptext.mechanism.Mechanisms;
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
 * query uses it, from the session's {@code spark.dptext.*} settings at that moment.
 */
final class SqlFunctions {
  private SqlFunctions() {}

  /** The usage line of {@code DESCRIBE FUNCTION}, from the registry. */
  static String usage() {
    return "_FUNC_(text, id) - Rewrites each word of `text` with a differentially private mechanism over word "
        + "embeddings (" + Settings.MECHANISM.confKey() + ": " + String.join(", ", Mechanisms.names()) + "; default "
        + Mechanisms.DEFAULT + "), seeded by the secret key and the row's stable `id`, so re-runs give identical "
        + "output.\n"
        + "_FUNC_(text) - The same, seeded by the text itself (" + Settings.ID_MODE.confKey() + "=content-hash: equal "
        + "texts get equal outputs) or freshly (" + Settings.ID_MODE.confKey() + "=fresh: not reproducible).";
  }

  /**
   * The extended text of {@code DESCRIBE FUNCTION EXTENDED}: the arguments, every mechanism with its
   * parameters and guarantee, and every setting with its default, all from the one table.
   */
  static String arguments() {
    StringBuilder s = new StringBuilder("\n    Arguments:\n");
    s.append("      * text - a string column; null stays null, empty stays empty\n");
    s.append("      * id - a stable unique row id of any atomic type (its string form keys the row's noise)\n");
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
        "_FUNC_(text[, id]) - " + DpText.SQL_FUNCTION + "(text[, id]) with the row's token counts: a struct of text, "
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

  /** The function builder: validates arity and binds the session's sanitizer. */
  private static Function1<Seq<Expression>, Expression> builder(boolean counted) {
    return (Function1<Seq<Expression>, Expression> & java.io.Serializable) children -> {
      java.util.List<Expression> args = CollectionConverters.asJava(children);
      SparkSession spark = SparkSession.active();
      DpText.Builder b = DpText.sanitizer(spark);
      IdMode mode = b.options().idMode();
      if (args.size() == 2 && mode != IdMode.COLUMN) {
        throw new IllegalArgumentException(
            DpText.SQL_FUNCTION + "(text, id) was called but " + Settings.ID_MODE.confKey() + " is " + mode
                + "; call " + DpText.SQL_FUNCTION + "(text) or set " + Settings.ID_MODE.confKey() + "=column");
      }
      if (args.size() == 1 && mode == IdMode.COLUMN) {
        throw new IllegalArgumentException(
            DpText.SQL_FUNCTION + "(text) needs an id: call " + DpText.SQL_FUNCTION + "(text, id) with a "
                + "stable unique id column, or set " + Settings.ID_MODE.confKey() + " to content-hash or fresh "
                + "(read the trade-off in the README)");
      }
      if (args.size() != 1 && args.size() != 2) {
        throw new IllegalArgumentException(
            DpText.SQL_FUNCTION + " takes 1 or 2 arguments (text[, id]), got " + args.size());
      }
      UserDefinedFunction udf = counted ? b.countingUdf(spark) : b.udf(spark);
      java.util.List<Expression> bound = new java.util.ArrayList<>(args);
      if (bound.size() == 1) {
        bound.add(org.apache.spark.sql.catalyst.expressions.Literal.create(null, org.apache.spark.sql.types.DataTypes.StringType));
      }
      return dev.dptext.classic.Classic.udfExpression(udf, CollectionConverters.asScala(bound).toList());
    };
  }

  /**
   * Registers the function in a running classic session. A Spark Connect client cannot: its functions
   * are the server's, registered by {@link DpTextExtensions} in the server's {@code spark.sql.extensions}.
   */
  static void register(SparkSession spark) {
    dev.dptext.classic.Classic.registerFunction(spark, identifier(), info(), builder());
    dev.dptext.classic.Classic.registerFunction(spark, countedIdentifier(), countedInfo(), countedBuilder());
  }
}
