package dev.dptext.classic;

import org.apache.spark.sql.SparkSession;

/**
 * SQL functions in a classic session: what names catalyst's types ({@code Expression}, {@code ScalaUDF}).
 * Apart from {@link Classic}, whose signatures name none, so that a Spark Connect client's classpath (which has
 * no catalyst) can load the door and ask it whether the session is classic; this class loads only where
 * functions are resolved, which is always a classic session (the driver, or the Spark Connect server).
 */
public final class ClassicFunctions {
  private ClassicFunctions() {}

  /**
   * Registers a SQL function in a running classic session's function registry (its session state, which a
   * Connect client does not have: there, the server's {@code spark.sql.extensions} registers it).
   */
  public static void registerFunction(SparkSession spark, org.apache.spark.sql.catalyst.FunctionIdentifier name,
      org.apache.spark.sql.catalyst.expressions.ExpressionInfo info,
      scala.Function1<scala.collection.immutable.Seq<org.apache.spark.sql.catalyst.expressions.Expression>,
          org.apache.spark.sql.catalyst.expressions.Expression> builder) {
    Classic.requireClassic(spark, "Registering a SQL function in a running session",
        "On Spark Connect, start the server with "
        + "spark.sql.extensions=dev.dptext.spark.DpTextExtensions and the dptext jar on its classpath.");
    ((org.apache.spark.sql.classic.SparkSession) spark).sessionState().functionRegistry()
        .registerFunction(name, info, builder);
  }

  /**
   * The catalyst expression of a user-defined function applied to {@code args}: what a SQL function's
   * builder returns. Runs where functions are resolved, which is always a classic session (the driver, or
   * the Spark Connect server).
   */
  public static org.apache.spark.sql.catalyst.expressions.Expression udfExpression(
      org.apache.spark.sql.expressions.UserDefinedFunction udf,
      scala.collection.immutable.Seq<org.apache.spark.sql.catalyst.expressions.Expression> args) {
    return org.apache.spark.sql.classic.UserDefinedFunctionUtils.toScalaUDF(
        (org.apache.spark.sql.expressions.SparkUserDefinedFunction) udf, args);
  }

}
