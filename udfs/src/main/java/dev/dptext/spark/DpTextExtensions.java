package dev.dptext.spark;

import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.SparkSessionExtensionsProvider;
import scala.Tuple3;
import scala.runtime.BoxedUnit;

/**
 * Makes {@code dp_sanitize} available in every session: start Spark with
 * {@code spark.sql.extensions=dev.dptext.spark.DpTextExtensions} (comma-separate it from Delta's
 * extension). On clusters where the jar is attached after start-up, call
 * {@link DpText#register(org.apache.spark.sql.SparkSession)} instead.
 */
public final class DpTextExtensions implements SparkSessionExtensionsProvider {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectFunction(new Tuple3<>(SqlFunctions.identifier(), SqlFunctions.info(), SqlFunctions.builder()));
    extensions.injectFunction(new Tuple3<>(SqlFunctions.countedIdentifier(), SqlFunctions.countedInfo(),
        SqlFunctions.countedBuilder()));
    return BoxedUnit.UNIT;
  }
}
