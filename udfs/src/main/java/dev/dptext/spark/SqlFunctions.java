package dev.dptext.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.classic.UserDefinedFunctionUtils;
import org.apache.spark.sql.expressions.SparkUserDefinedFunction;
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

  static final String USAGE =
      "_FUNC_(text, id) - Rewrites each word of `text` with a differentially private mechanism over "
          + "word embeddings (spark.dptext.mechanism: santext, santext+, laplace, mahalanobis, vickrey or "
          + "vickrey-topk; spark.dptext.epsilon, w, p, lambda, t), "
          + "seeded by the secret key and the row's stable `id`, so re-runs give identical output.\n"
          + "_FUNC_(text) - The same, seeded by the text itself (spark.dptext.idMode=content-hash: equal "
          + "texts get equal outputs) or freshly (spark.dptext.idMode=fresh: not reproducible).";

  static final String ARGUMENTS =
      "\n    Arguments:\n"
          + "      * text - a string column; null stays null, empty stays empty\n"
          + "      * id - a stable unique row id of any atomic type (its string form keys the row's noise)\n"
          + "\n    Guarantee: SanText and Laplace: ε·d metric local DP per token (d = Euclidean distance of "
          + "the embeddings); SanText+: (ε, ln(1/p))-UMLDP; Mahalanobis: ε·d_RM (regularized Mahalanobis "
          + "norm); Vickrey: its noise's guarantee (the selection is post-processing). Token count, "
          + "whitespace and any verbatim opt-in (spark.dptext.oov=keep, spark.dptext.case=restore) are not "
          + "covered.\n";

  static FunctionIdentifier identifier() {
    return new FunctionIdentifier(DpText.SQL_FUNCTION, Option.empty(), Option.empty());
  }

  static ExpressionInfo info() {
    return new ExpressionInfo(SqlFunctions.class.getName(), null, DpText.SQL_FUNCTION, USAGE, ARGUMENTS);
  }

  /** The function builder: validates arity and binds the session's sanitizer. */
  static Function1<Seq<Expression>, Expression> builder() {
    return (Function1<Seq<Expression>, Expression> & java.io.Serializable) children -> {
      java.util.List<Expression> args = CollectionConverters.asJava(children);
      SparkSession spark = SparkSession.active();
      DpText.Builder b = DpText.sanitizer(spark);
      IdMode mode = b.options().idMode();
      if (args.size() == 2 && mode != IdMode.COLUMN) {
        throw new IllegalArgumentException(
            DpText.SQL_FUNCTION + "(text, id) was called but spark.dptext.idMode is " + mode
                + "; call " + DpText.SQL_FUNCTION + "(text) or set spark.dptext.idMode=column");
      }
      if (args.size() == 1 && mode == IdMode.COLUMN) {
        throw new IllegalArgumentException(
            DpText.SQL_FUNCTION + "(text) needs an id: call " + DpText.SQL_FUNCTION + "(text, id) with a "
                + "stable unique id column, or set spark.dptext.idMode to content-hash or fresh "
                + "(read the trade-off in the README)");
      }
      if (args.size() != 1 && args.size() != 2) {
        throw new IllegalArgumentException(
            DpText.SQL_FUNCTION + " takes 1 or 2 arguments (text[, id]), got " + args.size());
      }
      UserDefinedFunction udf = b.udf(spark);
      java.util.List<Expression> bound = new java.util.ArrayList<>(args);
      if (bound.size() == 1) {
        bound.add(org.apache.spark.sql.catalyst.expressions.Literal.create(null, org.apache.spark.sql.types.DataTypes.StringType));
      }
      return UserDefinedFunctionUtils.toScalaUDF(
          (SparkUserDefinedFunction) udf, CollectionConverters.asScala(bound).toList());
    };
  }

  static void register(SparkSession spark) {
    org.apache.spark.sql.classic.SparkSession classic = (org.apache.spark.sql.classic.SparkSession) spark;
    classic.sessionState().functionRegistry().registerFunction(identifier(), info(), builder());
  }
}
