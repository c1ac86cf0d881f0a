package dev.dptext.arch;

import static com.tngtech.archunit.base.DescribedPredicate.or;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * The build rule of portability: main code outside {@value #CLASSIC} uses only what every Spark 4
 * deployment offers, a Spark Connect session included (Databricks standard access mode, serverless
 * and serverless JAR tasks), and Delta's public API: no Delta internals ({@code org.apache.spark.sql.delta},
 * absent from Databricks Runtime), no {@code SparkContext}, RDDs, broadcasts, accumulators or classic
 * session casts (absent from Spark Connect), and no {@code io.delta.tables.DeltaTable} (classic only
 * without Delta Connect). What needs them lives in {@value #CLASSIC}, behind
 * {@code dev.dptext.classic.Classic}, which fails clearly on Connect.
 *
 * <p>It checks the classes of both modules (udfs and spark-job) on this module's test classpath.
 */
class ClassicOnlyRuleTest {
  static final String CLASSIC = "dev.dptext.classic..";

  static final ArchRule RULE = noClasses().that().resideOutsideOfPackage(CLASSIC)
      .should().dependOnClassesThat(or(
          resideInAnyPackage("org.apache.spark.sql.delta..", "org.apache.spark.sql.classic..", "org.apache.spark.rdd..",
              "org.apache.spark.broadcast..", "io.delta.tables.."),
          belongToAnyOf(org.apache.spark.SparkContext.class, org.apache.spark.api.java.JavaSparkContext.class,
              org.apache.spark.api.java.JavaRDD.class, org.apache.spark.api.java.JavaPairRDD.class,
              org.apache.spark.api.java.JavaDoubleRDD.class),
          assignableTo(org.apache.spark.util.AccumulatorV2.class)))
      .because("Databricks Runtime has no Delta internals and Spark Connect no SparkContext; classic-only code "
          + "belongs in dev.dptext.classic (see dev.dptext.classic.Classic)");

  @Test
  void onlyTheClassicPackageUsesClassicSparkOrDeltaInternals() {
    JavaClasses main = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        // udfs' test classes reach this module as its tests jar
        .withImportOption(location -> !location.contains("-tests.jar"))
        .importPackages("dev.dptext");
    RULE.check(main);
  }
}
